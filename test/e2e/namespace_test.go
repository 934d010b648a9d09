package e2e

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestNamespaceTarget: `kubectl triage ns/NAME` on a namespace where two
// workloads fail (a crash loop on an unset variable, an image that does not
// exist) beside a healthy one: a namespace of failing pods must never read
// "healthy: no fault found". The report must name both failing
// workloads, worst explained first, each with its own cause, and read a
// bounded number of objects.
func TestNamespaceTarget(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	_, _, crashing := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "checkout", Container: "api", Replicas: 2,
		PodStatus: crashStatus("api", 1, "Error", 7)})
	for _, p := range crashing {
		c.SetLogs(ns, p.Name, "api", true, "2026/11/26 07:15:14 starting checkout v1.8.0\n2026/11/26 07:15:14 config: required key DATABASE_URL missing value\n")
		c.SetLogs(ns, p.Name, "api", false, "")
	}
	image := "registry.example.com/shop/orders:2.0.1"
	_, _, pulling := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "orders", Container: "app", Image: image, Replicas: 3,
		PodStatus: corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.22", StartTime: ptr(minutesAgo(20)), Conditions: notReadyConditions(),
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + image + `"`}}}}}})
	for _, p := range pulling {
		c.Event(t, testcluster.EventSpec{Object: p, Type: "Warning", Reason: "Failed", Count: 4, First: time.Now().Add(-20 * time.Minute), FieldPath: "spec.containers{app}",
			Message: `Failed to pull image "` + image + `": rpc error: code = NotFound desc = failed to pull and unpack image "` + image + `": failed to resolve reference "` + image + `": ` + image + `: not found`})
	}
	c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web", Container: "web", Replicas: 2, PodStatus: wlReadyStatus("web", "nginx:1.27", 3*time.Hour)})

	mark := c.AuditMark()
	res := triage(t, c, "", "ns/"+ns)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	r := readReportJSON(t, onlyWorkspace(t, res.root))
	if r.Healthy {
		t.Fatalf("namespace with 5 failing pods reported healthy: %s", r.Title)
	}
	for _, want := range []string{"5 of 7 pods in namespace " + ns + " are failing, in 2 workload(s)", "deployment checkout, 2 pod(s) failing", "deployment orders, 3 pod(s) failing", "DATABASE_URL", image} {
		if !strings.Contains(r.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.Summary)
		}
	}
	if strings.Contains(r.Summary, "deployment web") {
		t.Errorf("summary lists the healthy workload:\n%s", r.Summary)
	}
	named := strings.Join(append([]string{r.RootCause.Statement}, r.RootCause.Contributing...), "\n")
	for _, want := range []string{"deployment checkout", "deployment orders"} {
		if !strings.Contains(named, want) {
			t.Errorf("root cause and contributing facts do not name %s:\n%s", want, named)
		}
	}
	// The fixes name each pod's own workload, not whichever was read first.
	for _, a := range r.Actions {
		for _, cmd := range a.Commands {
			if strings.Contains(cmd, "deployment/web") {
				t.Errorf("an action targets the healthy workload: %s", cmd)
			}
		}
	}
	hasOrdersFix := false
	for _, a := range r.Actions {
		hasOrdersFix = hasOrdersFix || strings.HasPrefix(a.Description, "For deployment orders: ")
	}
	if !hasOrdersFix {
		t.Errorf("no action for the second failing workload: %+v", r.Actions)
	}
	// The saved workspace replays offline to the same root cause.
	offline := []string{"KUBECONFIG=" + unreachableKubeconfig(t), "HOME=" + t.TempDir(), "WORKSPACE_ROOT=" + res.root}
	if code, stdout, stderr := runBinary(t, offline, "replay", onlyWorkspace(t, res.root), "--diff"); code != 0 {
		t.Errorf("replay --diff: exit %d\n%s%s", code, stdout, stderr)
	}
	if n := assertReadOnly(t, c, mark); n > 40 {
		t.Errorf("%d API requests for a namespace of 7 pods; want a bounded plan (≤ 40)", n)
	}
}
