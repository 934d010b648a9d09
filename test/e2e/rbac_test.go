package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/shlex"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// rbacDeniedPod creates a Ready pod running as serviceaccount sa whose log
// holds client-go's reflector denial of "list services" at the cluster
// scope (giantswarm/prometheus#142), with a ClusterRole bound to sa that
// grants pods only.
func rbacDeniedPod(t *testing.T, c *testcluster.Cluster, ns, sa string) string {
	t.Helper()
	c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}})
	c.Create(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + sa},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list", "watch"}}}})
	c.Create(t, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + sa},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: ns}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ns + "-" + sa}})
	name := sa + "-0"
	c.CreatePod(t, simplePod(name, func(p *corev1.Pod) {
		p.Namespace = ns
		p.Spec.ServiceAccountName = sa
		p.Status = rcReadyStatus("quay.io/coreos/kube-state-metrics:v1.3.1", 0, nil)
	}))
	c.SetLogs(ns, name, "app", false, fmt.Sprintf("E0815 13:42:36.847815       1 reflector.go:199] vendor/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.Service: services is forbidden: User \"system:serviceaccount:%s:%s\" cannot list resource \"services\" in API group \"\" at the cluster scope\n", ns, sa))
	return name
}

// canI asks the real API server (RBAC authorizer) whether the account may
// list services everywhere.
func canI(t *testing.T, c *testcluster.Cluster, ns, sa string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.KubectlPath, "auth", "can-i", "list", "services", "--all-namespaces", "--as=system:serviceaccount:"+ns+":"+sa)
	cmd.Env = c.Env()
	out, _ := cmd.CombinedOutput() // "no" exits 1
	return strings.TrimSpace(string(out))
}

// TestRBACFixGrants: the report names the ClusterRole that lacks the verb,
// and its proposed patch, run against the real API server, makes its RBAC
// authorizer allow what the log said was forbidden.
func TestRBACFixGrants(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	sa := "metrics"
	pod := rbacDeniedPod(t, c, ns, sa)
	if got := canI(t, c, ns, sa); got != "no" {
		t.Fatalf("before the fix: can-i = %q, want no", got)
	}
	r := triage(t, c, ns, "pod/"+pod)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	role := "clusterrole " + ns + "-" + sa
	if section := rootCauseSection(r.stdout); !strings.Contains(section, role) || !strings.Contains(section, "list services") {
		t.Fatalf("root cause does not name %s and list services:\n%s", role, section)
	}
	var patch string
	for _, line := range strings.Split(r.stdout, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "kubectl patch clusterrole ") {
			patch = line
		}
	}
	args, err := shlex.Split(patch)
	if patch == "" || err != nil {
		t.Fatalf("no pasteable patch in the report (%v):\n%s", err, r.stdout)
	}
	c.Kubectl(t, args[1:]...)
	if got := canI(t, c, ns, sa); got != "yes" {
		t.Errorf("after %s: can-i = %q, want yes", patch, got)
	}
}

// TestRBACUnreadableSaysSo: run with an identity that may read pods and
// logs but not RBAC (the built-in view ClusterRole), the report says the
// bindings could not be read instead of guessing which Role to change.
func TestRBACUnreadableSaysSo(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	pod := rbacDeniedPod(t, c, ns, "metrics")
	viewer := "viewer-" + ns
	c.Create(t, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: viewer},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: viewer}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}})
	r := triage(t, c, ns, "pod/"+pod, "--as="+viewer)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	section := rootCauseSection(r.stdout)
	if !strings.Contains(section, "could not be read (403)") || strings.Contains(section, "does not allow it") {
		t.Errorf("root cause does not say RBAC was unreadable:\n%s", section)
	}
}
