package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/azurite"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestWatchLeaderElectionStore: the two replicas as `install --replicas 2
// --store` runs them in the cluster: each keeps its workspaces on a root of
// its own (the pod's emptyDir, dropped once uploaded) and they share only
// the object store, a real Azurite. The leader is killed with SIGKILL,
// faults begin while no replica leads, and the follower learns from the
// store alone what its predecessor triaged: every fault is exactly one
// incident in the store.
func TestWatchLeaderElectionStore(t *testing.T) {
	c := testcluster.Get(t)
	srv := azurite.Start(t)
	url := srv.URL("incidents-ha")
	ns := c.Namespace(t)
	replica := func() *watchProc {
		return startWatchEnv(t, c, srv.Env(), "-n", ns, "--store", url, "--keep-local=false",
			"--leader-elect", "--leader-elect-namespace", ns, "--leader-elect-lease-duration", leaseDuration.String(),
			"--leader-elect-renew-deadline", renewDeadline.String(), "--leader-elect-retry-period", retryPeriod.String())
	}
	a := replica()
	a.logged(t, "takeover: now triaging", time.Minute)
	b := replica()
	b.logged(t, "leader election: following", time.Minute)

	crashPod(t, c, ns, "before")
	if il := a.next(t, 2*time.Minute); il.Name != "before" || il.Stored == "" {
		t.Fatalf("leader's incident: %+v; want it stored", il)
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	crashPod(t, c, ns, "orphan-1")
	crashPod(t, c, ns, "orphan-2")
	tk := b.logged(t, "takeover: now triaging", time.Minute)
	// Whether the follower saw "before" at all depends on its informer's
	// timing; what it must not do is queue it again.
	if tk["queued"] != float64(2) || tk["remembered"] != tk["queued"].(float64)+tk["covered_by_earlier_incidents"].(float64) {
		t.Errorf("takeover: %v; want the 2 orphans queued and whatever else it remembered covered by the store", tk)
	}
	for range 2 {
		if il := b.next(t, 2*time.Minute); il.Stored == "" {
			t.Errorf("new leader's incident %+v was not stored", il)
		}
	}

	code, out, stderr := runStoreCmd(t, srv.Env(), "list", "--store", url, "-o", "json")
	var list struct{ Items []incident.Incident }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("list --store: exit %d\n%s\n%s", code, out, stderr)
	}
	count := map[string]int{}
	for _, inc := range list.Items {
		count[inc.Resource.Name]++
	}
	for _, name := range []string{"before", "orphan-1", "orphan-2"} {
		if count[name] != 1 {
			t.Errorf("pod %s: %d incidents in the store; want exactly 1 (all: %v)", name, count[name], count)
		}
	}
}
