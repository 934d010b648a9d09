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

// TestWatchLeaderStoreCreateRace: two replicas start at the same instant
// on a store whose container does not exist yet. Both find it missing and
// both create it (a proxy holds the creates until both have sent theirs);
// the one told "ContainerAlreadyExists" stays up as well. Then the leader
// is killed and the survivor takes over and stores what it triages.
func TestWatchLeaderStoreCreateRace(t *testing.T) {
	c := testcluster.Get(t)
	srv := azurite.Start(t)
	gate := srv.NewBarrier(t, 2)
	url := gate.URL("race-ha")
	ns := c.Namespace(t)
	args := []string{"-n", ns, "--store", url, "--keep-local=false",
		"--leader-elect", "--leader-elect-namespace", ns, "--leader-elect-lease-duration", leaseDuration.String(),
		"--leader-elect-renew-deadline", renewDeadline.String(), "--leader-elect-retry-period", retryPeriod.String()}
	a := startWatchEnv(t, c, srv.Env(), args...)
	b := startWatchEnv(t, c, srv.Env(), args...)
	for _, w := range []*watchProc{a, b} {
		w.logged(t, "storing incidents", time.Minute)
	}
	if n := gate.Creates.Load(); n != 2 {
		t.Fatalf("%d creates of the container reached Azurite, want one per replica", n)
	}
	created, raced := "created the store's container", "the store's container was created by another replica"
	if got := a.loggedCount(created) + b.loggedCount(created); got != 1 {
		t.Errorf("%d replicas created the container, want 1", got)
	}
	if got := a.loggedCount(raced) + b.loggedCount(raced); got != 1 {
		t.Errorf("%d replicas found it made by the other, want 1", got)
	}

	// Who leads is up to the Lease.
	leader, follower := a, b
	deadline := time.Now().Add(time.Minute)
	for a.loggedCount("takeover: now triaging")+b.loggedCount("takeover: now triaging") == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if b.loggedCount("takeover: now triaging") > 0 {
		leader, follower = b, a
	}
	leader.logged(t, "takeover: now triaging", time.Second)
	follower.logged(t, "leader election: following", time.Minute)
	if err := leader.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-leader.done
	follower.logged(t, "takeover: now triaging", time.Minute)
	crashPod(t, c, ns, "after")
	if il := follower.next(t, 2*time.Minute); il.Name != "after" || il.Stored == "" {
		t.Fatalf("survivor's incident: %+v; want it stored", il)
	}
	select {
	case <-follower.done:
		t.Fatalf("the survivor exited (code %d); stderr:\n%s", follower.code, follower.stderr.String())
	default:
	}
}
