package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// Short leader-election timings, so the test waits seconds, not the
// default 15 s lease.
const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

// startReplica runs one replica of a leader-elected watch of ns, with the
// workspace root every replica shares.
func startReplica(t *testing.T, c *testcluster.Cluster, root, ns string, extra ...string) (*watchProc, string) {
	t.Helper()
	args := append([]string{"--workspace-root", root, "--leader-elect", "--leader-elect-namespace", ns,
		"--leader-elect-lease-duration", leaseDuration.String(), "--leader-elect-renew-deadline", renewDeadline.String(),
		"--leader-elect-retry-period", retryPeriod.String(), "--metrics-addr", "127.0.0.1:0"}, extra...)
	w := startWatch(t, c, args...)
	addr, _ := w.logged(t, "serving metrics", time.Minute)["addr"].(string)
	return w, addr
}

func httpBody(t *testing.T, url string) string {
	t.Helper()
	body, err := httpGetBody(url)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func httpGetBody(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func masterStatus(t *testing.T, addr string) string {
	m := regexp.MustCompile(`(?m)^leader_election_master_status\{name="[^"]+"\} (\S+)$`).FindStringSubmatch(httpBody(t, "http://"+addr+"/metrics"))
	if m == nil {
		return ""
	}
	return m[1]
}

// logTime is when a JSON log record was written.
func logTime(t *testing.T, rec map[string]any) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(rec["time"]))
	if err != nil {
		t.Fatalf("log record without a time: %v", rec)
	}
	return at
}

// crashPod makes a pod that starts crash-looping now: one CrashLoop fault.
func crashPod(t *testing.T, c *testcluster.Cluster, ns, name string) {
	t.Helper()
	c.CreatePod(t, simplePod(name, func(p *corev1.Pod) {
		p.Namespace = ns
		p.Status = crashStatus("app", 1, "Error", 4)
	}))
}

// incidentsByResource counts the incidents in root per "Kind/name".
func incidentsByResource(t *testing.T, root string) map[string][]*incident.Incident {
	t.Helper()
	s, err := store.New(root)
	if err != nil {
		t.Fatal(err)
	}
	entries, _, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*incident.Incident{}
	for _, e := range entries {
		k := e.Incident.Resource.Kind + "/" + e.Incident.Resource.Name
		out[k] = append(out[k], e.Incident)
	}
	return out
}

// TestWatchLeaderElection: two replicas of one watch share a workspace
// root. One leads and triages; the other follows, and /healthz and
// leader_election_master_status say which is which. The leader is killed
// with SIGKILL (no hand-over), faults happen while no replica leads, and
// the follower takes over within the lease duration: every fault is
// exactly one incident, what the old leader triaged is not triaged again,
// and the only write either process made is its Lease.
func TestWatchLeaderElection(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	root := filepath.Join(t.TempDir(), "incidents")
	mark := c.AuditMark()

	a, addrA := startReplica(t, c, root, ns, "-n", ns)
	a.logged(t, "takeover: now triaging", time.Minute) // the first replica leads at once
	// Leading and the watch's first sync race: /healthz says "ok" only
	// once both hold, and on a loaded machine the Lease can come first.
	a.logged(t, "watching cluster for faults", time.Minute)
	b, addrB := startReplica(t, c, root, ns, "-n", ns)
	b.logged(t, "watching cluster for faults", time.Minute)
	b.logged(t, "leader election: following", time.Minute)

	if h := httpBody(t, "http://"+addrA+"/healthz"); h != "ok: leader\n" {
		t.Errorf("leader's /healthz: %q", h)
	}
	if h := httpBody(t, "http://"+addrB+"/healthz"); h != "ok: follower\n" {
		t.Errorf("follower's /healthz: %q", h)
	}
	if a, b := masterStatus(t, addrA), masterStatus(t, addrB); a != "1" || b != "0" {
		t.Errorf("leader_election_master_status: leader %q, follower %q; want 1 and 0", a, b)
	}

	// A fault while A leads: A triages it, B only remembers it.
	crashPod(t, c, ns, "before")
	if il := a.next(t, 2*time.Minute); il.Name != "before" {
		t.Fatalf("leader's incident: %+v", il)
	}

	// The leader dies without a word; faults begin while no replica leads.
	killed := time.Now()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	crashPod(t, c, ns, "orphan-1")
	crashPod(t, c, ns, "orphan-2")

	took := b.logged(t, "leader election: leading", time.Minute)
	// B takes the Lease once it has not been renewed for a lease duration:
	// at most a retry period after the kill (the last renewal B saw) plus
	// the lease duration plus a jittered retry period.
	if d := logTime(t, took).Sub(killed); d > leaseDuration+2500*time.Millisecond {
		t.Errorf("takeover %s after the kill; want within the lease duration (%s, plus two retry periods)", d, leaseDuration)
	} else {
		t.Logf("takeover %s after SIGKILL (lease duration %s)", d.Round(10*time.Millisecond), leaseDuration)
	}
	tk := b.logged(t, "takeover: now triaging", time.Minute)
	if tk["covered_by_earlier_incidents"] != float64(1) || tk["queued"] != float64(2) {
		t.Errorf("takeover: %v; want the old leader's fault covered and the 2 orphans queued", tk)
	}
	got := map[string]bool{}
	for range 2 {
		got[b.next(t, 2*time.Minute).Name] = true
	}
	if !got["orphan-1"] || !got["orphan-2"] {
		t.Errorf("new leader triaged %v; want the two orphans", got)
	}
	// And, as the leader now, what comes next.
	crashPod(t, c, ns, "after")
	if il := b.next(t, 2*time.Minute); il.Name != "after" {
		t.Errorf("new leader's incident: %+v", il)
	}
	if h := httpBody(t, "http://"+addrB+"/healthz"); h != "ok: leader\n" {
		t.Errorf("new leader's /healthz: %q", h)
	}
	if s := masterStatus(t, addrB); s != "1" {
		t.Errorf("new leader's leader_election_master_status %q", s)
	}
	select {
	case l := <-b.lines:
		t.Errorf("an incident too many: %s", l)
	case <-time.After(3 * time.Second):
	}

	byRes := incidentsByResource(t, root)
	for _, name := range []string{"before", "orphan-1", "orphan-2", "after"} {
		if n := len(byRes["Pod/"+name]); n != 1 {
			t.Errorf("pod %s: %d incidents; want exactly 1", name, n)
		}
	}
	lease, err := c.Client.CoordinationV1().Leases(ns).Get(context.Background(), "kubectl-triage-watch-"+ns, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Fatalf("lease: %+v, %v", lease, err)
	}

	// SIGTERM: B drains and releases the Lease for a successor.
	b.cmd.Process.Signal(os.Interrupt)
	if code, _ := b.wait(t, time.Minute); code != 0 {
		t.Errorf("exit %d", code)
	}
	lease, err = c.Client.CoordinationV1().Leases(ns).Get(context.Background(), "kubectl-triage-watch-"+ns, metav1.GetOptions{})
	if err != nil || (lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "") {
		t.Errorf("lease not released on SIGTERM: %+v, %v", lease.Spec, err)
	}

	// The API server's audit log: the plugin's identity wrote nothing but
	// the Lease (the identity is system:masters: the server would have
	// allowed anything).
	writes := 0
	for _, e := range c.AuditSince(t, mark, c.UserName) {
		switch e.Verb {
		case "get", "list", "watch":
			continue
		}
		if strings.HasPrefix(e.Resource, "selfsubject") {
			continue
		}
		if e.Resource != "leases" || e.Namespace != ns {
			t.Errorf("a write other than the Lease: %s %s", e.Verb, e.RequestURI)
		}
		writes++
	}
	if writes == 0 {
		t.Errorf("no Lease write in the audit log: is the audit log read?")
	}
}

// TestWatchGroupsNodeFaults: a node goes NotReady and the node lifecycle
// controller marks the 20 pods on it not ready, with a NodeNotReady warning
// on each: one incident, for the node, listing the 20 pods.
func TestWatchGroupsNodeFaults(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	node := "grouped-" + ns[len(ns)-5:] // the namespace's random suffix: a node per test run
	n := schedNode(t, c, node)
	t.Cleanup(func() { // a NotReady node is no fixture for later tests
		c.Client.CoreV1().Nodes().Delete(context.Background(), node, metav1.DeleteOptions{})
	})
	var pods []string
	for i := range 20 {
		name := fmt.Sprintf("web-%02d", i)
		nodePod(t, c, ns, name, node, schedRunningStatus("app", "shop/web:1.0.0"))
		pods = append(pods, name)
	}
	// Nodes are cluster-scoped: the watch is too (no -n), and other tests'
	// faults may show up; only this node's and namespace's count.
	w := startWatch(t, c, "--metrics-addr", "127.0.0.1:0")
	addr, _ := w.logged(t, "serving metrics", time.Minute)["addr"].(string)
	w.logged(t, "watching cluster for faults", time.Minute)

	nodeUnreachable(1)(n)
	c.SetObjectStatus(t, n)
	waitLogged(t, w, "fault queued", func(rec map[string]any) bool { return rec["kind"] == "Node" && rec["name"] == node })
	for _, name := range pods {
		p, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status = staleRunning("app", "shop/web:1.0.0")
		p = c.SetStatus(t, p)
		c.Event(t, testcluster.EventSpec{Object: p, Type: corev1.EventTypeWarning, Reason: "NodeNotReady", Message: "Node is not ready",
			First: time.Now(), Component: "node-controller"})
	}

	var il incidentLine
	for il.Name != node {
		if il = w.next(t, 2*time.Minute); il.Namespace == ns {
			t.Errorf("a pod of the NotReady node got an incident of its own: %+v", il)
		}
	}
	if il.Kind != "Node" || il.FaultType != "NodeUnhealthy" {
		t.Errorf("incident: %+v", il)
	}
	// Members that arrive after the triage are added within a second or so.
	var inc *incident.Incident
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		if inc, err = incident.Load(filepath.Join(il.Workspace, incident.FileName)); err != nil {
			t.Fatal(err)
		}
		if len(inc.Members) >= len(pods) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	members := map[string]bool{}
	for _, m := range inc.Members {
		if m.Resource.Namespace == ns && m.Resource.Kind == "Pod" && m.FaultType == "NodeUnhealthy" && m.Cause == "Node//"+node {
			members[m.Resource.Name] = true
		}
	}
	if len(members) != len(pods) || len(inc.Members) != len(pods) {
		t.Errorf("incident members: %d of the %d pods (%d in all): %+v", len(members), len(pods), len(inc.Members), inc.Members)
	}
	report, err := os.ReadFile(inc.Report.Path)
	if err != nil || !strings.Contains(string(report), "## Grouped faults") || !strings.Contains(string(report), ns+"/Pod/web-07 NodeUnhealthy") {
		t.Errorf("the report does not list the grouped pods (%v):\n%s", err, report)
	}
	m := regexp.MustCompile(`(?m)^kubectl_triage_events_grouped_total\{[^}]*\} (\S+)$`).FindStringSubmatch(httpBody(t, "http://"+addr+"/metrics"))
	if m == nil || m[1] == "0" {
		t.Errorf("kubectl_triage_events_grouped_total: %v", m)
	}
	select {
	case l := <-w.lines:
		if strings.Contains(l, ns) || strings.Contains(l, node) {
			t.Errorf("an incident too many: %s", l)
		}
	case <-time.After(3 * time.Second):
	}
}

// waitLogged waits for a JSON log record with msg for which match holds.
func waitLogged(t *testing.T, w *watchProc, msg string, match func(map[string]any) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, l := range strings.Split(w.stderr.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == msg && match(rec) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("watch did not log %q as expected; stderr:\n%s", msg, w.stderr.String())
}

// TestWatchGroupsByCause: from the cluster, a failed Job and its failed
// pods make one incident, and so do a Deployment stuck on an image pull
// and its pods; from an MCP server, PodCrash then CrashLoop of one pod.
func TestWatchGroupsByCause(t *testing.T) {
	c := testcluster.Get(t)
	t.Run("cluster", func(t *testing.T) {
		ns := c.Namespace(t)
		w := startWatch(t, c, "-n", ns)
		w.logged(t, "watching cluster for faults", time.Minute)

		image := "registry.example.com/batch/nightly:2.0"
		j := wlJob(t, c, ns, "nightly", batchv1.JobSpec{BackoffLimit: ptr(int32(2)), Template: wlJobTemplate("task", image)},
			wlFailedJobStatus("BackoffLimitExceeded", "Job has reached the specified backoff limit", 3, 5*time.Minute, 0))
		for _, name := range []string{"nightly-a", "nightly-b", "nightly-c"} {
			wlJobPod(t, c, j, name, wlFailedPodStatus("task", image, 1, time.Minute))
		}
		_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web", Image: "registry.example.com/shop/web:9.9", Replicas: 2,
			PodStatus: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Image: "registry.example.com/shop/web:9.9",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}}})

		// The rollout's incident stands for the Deployment and its two
		// pods; which of the three is its primary is whichever fault came
		// first, and the informers of different kinds keep no order
		// between them.
		rollout := map[string]bool{"Deployment/web": true, "Pod/" + pods[0].Name: true, "Pod/" + pods[1].Name: true}
		got := map[string]*incident.Incident{}
		for range 2 {
			il := w.next(t, 2*time.Minute)
			got[il.Kind+"/"+il.Name] = loadIncident(t, il.Workspace)
		}
		select {
		case l := <-w.lines:
			t.Errorf("an incident too many: %s", l)
		case <-time.After(3 * time.Second):
		}
		for primary, inc := range got {
			want := map[string]bool{}
			switch {
			case primary == "Job/nightly":
				want = map[string]bool{"Pod/nightly-a": true, "Pod/nightly-b": true, "Pod/nightly-c": true}
			case rollout[primary]:
				for r := range rollout {
					if r != primary {
						want[r] = true
					}
				}
			default:
				t.Errorf("an incident for %s; want Job/nightly and one for the rollout (got %v)", primary, keys(got))
				continue
			}
			inc = waitMembers(t, inc.Workspace, len(want))
			members := map[string]bool{}
			for _, m := range inc.Members {
				members[m.Resource.Kind+"/"+m.Resource.Name] = true
			}
			if !maps.Equal(members, want) {
				t.Errorf("%s: members %v; want %v", primary, members, want)
			}
		}
		if got["Job/nightly"] == nil || len(got) != 2 {
			t.Errorf("incidents %v; want Job/nightly and one for the rollout", keys(got))
		}
	})
	t.Run("mcp", func(t *testing.T) {
		ns := c.Namespace(t)
		scenarioNamed("crashloop-missing-env").setup(t, c, ns)
		mcp := startMCP(t, mcpserver.Options{})
		w := startWatch(t, c, "--mcp-endpoint", mcp.Endpoint())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := mcp.WaitSubscribed(ctx, 1); err != nil {
			t.Fatal(err)
		}
		send(t, mcp, podFault(ns, "api", "PodCrash", "warning"))
		send(t, mcp, podFault(ns, "api", "CrashLoop", "critical"))
		il := w.next(t, 2*time.Minute)
		if il.Name != "api" || il.FaultType != "PodCrash" {
			t.Errorf("incident: %+v", il)
		}
		inc := waitMembers(t, il.Workspace, 1)
		if len(inc.Members) != 1 || inc.Members[0].FaultType != "CrashLoop" || inc.Members[0].Cause != "Pod/"+ns+"/api" {
			t.Errorf("members %+v; want the CrashLoop of the same pod", inc.Members)
		}
		select {
		case l := <-w.lines:
			t.Errorf("an incident too many: %s", l)
		case <-time.After(3 * time.Second):
		}
	})
}

// waitMembers reloads an incident until it has n members (late ones are
// added within a second or so) or half a minute passed.
func waitMembers(t *testing.T, workspace string, n int) *incident.Incident {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		inc := loadIncident(t, workspace)
		if len(inc.Members) >= n || time.Now().After(deadline) {
			return inc
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestInstallReplicas: `install --print --replicas 2 --store …` is accepted by the API
// server, and its watch elects a leader.
func TestInstallReplicas(t *testing.T) {
	c := testcluster.Get(t)
	ns, _ := applyInstall(t, c, "--replicas", "2", "--store", "azblob://incidents", "--store-secret", "triage-storage")
	d, err := c.Client.AppsV1().Deployments(ns).Get(context.Background(), "kubectl-triage", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	args := d.Spec.Template.Spec.Containers[0].Args
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 || !slices.Contains(args, "--leader-elect") {
		t.Errorf("replicas %v, args %q; want 2 replicas of a leader-elected watch", d.Spec.Replicas, args)
	}
}

// TestWatchLeaderLosesLease: a leader whose Lease another holder took (as
// after a partition) stops triaging: it drains and exits 1 with a line
// that says why, rather than triaging beside the new leader.
func TestWatchLeaderLosesLease(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	w, _ := startReplica(t, c, filepath.Join(t.TempDir(), "incidents"), ns, "-n", ns)
	w.logged(t, "takeover: now triaging", time.Minute)
	ctx := context.Background()
	leases := c.Client.CoordinationV1().Leases(ns)
	for {
		l, err := leases.Get(ctx, "kubectl-triage-watch-"+ns, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l.Spec.HolderIdentity = ptr("another-replica")
		l.Spec.LeaseDurationSeconds = ptr(int32(3600))
		l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		if _, err = leases.Update(ctx, l, metav1.UpdateOptions{}); err == nil {
			break
		} else if !apierrors.IsConflict(err) {
			t.Fatal(err)
		}
	}
	code, _ := w.wait(t, time.Minute)
	if code != 1 || !strings.Contains(w.stderr.String(), "lost the leader-election lease") {
		t.Errorf("exit %d; stderr:\n%s", code, w.stderr.String())
	}
}
