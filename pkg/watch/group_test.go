package watch

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func gev(id, kind, ns, name, faultType string, causes ...string) *fault.Event {
	return &fault.Event{EventID: id, FaultType: faultType, Severity: "warning", Resource: &fault.Resource{Kind: kind, Namespace: ns, Name: name}, Causes: causes}
}

var (
	node3    = fault.CauseKey("Node", "", "worker-3")
	rsWeb    = fault.CauseKey("ReplicaSet", "shop", "web-5d9f")
	deplWeb  = fault.CauseKey("Deployment", "shop", "web")
	jobNight = fault.CauseKey("Job", "batch", "nightly")
)

func TestGrouperGroupsByCause(t *testing.T) {
	type step struct {
		at     time.Duration // after t0
		ev     *fault.Event
		joins  string // the primary's EventID it joins; "" opens a group
		window time.Duration
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"pods of a NotReady node join the node's incident", []step{
			{0, gev("n", "Node", "", "worker-3", "NodeUnhealthy"), "", 0},
			{time.Second, gev("p1", "Pod", "shop", "web-5d9f-a", "PodNotReady", node3, rsWeb, deplWeb), "n", 0},
			{2 * time.Second, gev("p2", "Pod", "db", "pg-0", "PodNotReady", node3), "n", 0},
		}},
		{"a pod first, then its node: the node joins the pod's incident", []step{
			{0, gev("p1", "Pod", "db", "pg-0", "PodNotReady", node3), "", 0},
			{time.Second, gev("n", "Node", "", "worker-3", "NodeUnhealthy"), "p1", 0},
		}},
		{"crash then crash loop of one pod", []step{
			{0, gev("a", "Pod", "shop", "api-0", "PodCrash"), "", 0},
			{20 * time.Second, gev("b", "Pod", "shop", "api-0", "CrashLoop"), "a", 0},
		}},
		{"pods of one rollout revision, then the Deployment", []step{
			{0, gev("p1", "Pod", "shop", "web-5d9f-a", "ImagePull", rsWeb, deplWeb), "", 0},
			{time.Second, gev("p2", "Pod", "shop", "web-5d9f-b", "ImagePull", rsWeb, deplWeb), "p1", 0},
			{3 * time.Second, gev("d", "Deployment", "shop", "web", "DeploymentFailure"), "p1", 0},
		}},
		{"a failed Job and its pods", []step{
			{0, gev("j", "Job", "batch", "nightly", "JobFailure"), "", 0},
			{time.Second, gev("p", "Pod", "batch", "nightly-x7", "PodFailed", jobNight), "j", 0},
		}},
		{"unrelated pods on one healthy node stay apart", []step{
			{0, gev("a", "Pod", "shop", "api-0", "CrashLoop"), "", 0},
			{time.Second, gev("b", "Pod", "shop", "cart-0", "CrashLoop"), "", 0},
		}},
		{"a member of the node's incident does not pull in its Deployment's other pods", []step{
			{0, gev("n", "Node", "", "worker-3", "NodeUnhealthy"), "", 0},
			{time.Second, gev("p1", "Pod", "shop", "web-5d9f-a", "PodNotReady", node3, rsWeb, deplWeb), "n", 0},
			{2 * time.Second, gev("p2", "Pod", "shop", "web-5d9f-b", "CrashLoop", rsWeb, deplWeb), "", 0},
		}},
		{"after the window a fault opens a new group", []step{
			{0, gev("a", "Pod", "shop", "api-0", "PodCrash"), "", 0},
			{31 * time.Second, gev("b", "Pod", "shop", "api-0", "CrashLoop"), "", 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gr := NewGrouper(30 * time.Second)
			for _, s := range tc.steps {
				g := gr.Admit(s.ev, t0.Add(s.at))
				switch {
				case s.joins == "" && g != nil:
					t.Fatalf("%s joined %s's group; want a group of its own", s.ev.EventID, g.Primary.EventID)
				case s.joins != "" && g == nil:
					t.Fatalf("%s opened a group; want it to join %s's", s.ev.EventID, s.joins)
				case s.joins != "" && g.Primary.EventID != s.joins:
					t.Fatalf("%s joined %s's group; want %s's", s.ev.EventID, g.Primary.EventID, s.joins)
				}
			}
		})
	}
}

func TestGrouperAttach(t *testing.T) {
	gr := NewGrouper(30 * time.Second)
	n := gev("n", "Node", "", "worker-3", "NodeUnhealthy")
	gr.Admit(n, t0)
	for i, id := range []string{"p1", "p2"} {
		gr.Admit(gev(id, "Pod", "shop", id, "PodNotReady", node3), t0.Add(time.Duration(i+1)*time.Second))
	}
	var late []Member
	got := gr.Attach(n, func(m Member) { late = append(late, m) })
	if len(got) != 2 || got[0].EventID != "p1" || got[1].EventID != "p2" || got[0].Cause != node3 {
		t.Fatalf("Attach = %+v; want p1, p2 via %s", got, node3)
	}
	// Joining after the incident exists: handed to the callback.
	gr.Admit(gev("p3", "Pod", "shop", "p3", "PodNotReady", node3), t0.Add(5*time.Second))
	if len(late) != 1 || late[0].EventID != "p3" || late[0].Resource.Name != "p3" {
		t.Fatalf("late = %+v; want p3", late)
	}
	// A fault that opened no group has no members.
	if m := gr.Attach(gev("x", "Pod", "a", "b", "CrashLoop"), nil); m != nil {
		t.Fatalf("Attach(unknown) = %+v", m)
	}
}

func TestGrouperForgetAndDisabled(t *testing.T) {
	gr := NewGrouper(30 * time.Second)
	a := gev("a", "Pod", "shop", "api-0", "PodCrash")
	gr.Admit(a, t0)
	gr.Forget(a) // dropped from the queue: never triaged
	if g := gr.Admit(gev("b", "Pod", "shop", "api-0", "CrashLoop"), t0.Add(time.Second)); g != nil {
		t.Fatalf("joined the group of a dropped fault")
	}
	var off *Grouper = NewGrouper(0)
	if off != nil {
		t.Fatal("NewGrouper(0) groups")
	}
	if off.Admit(a, t0) != nil || off.Attach(a, nil) != nil || off.Open() != 0 {
		t.Fatal("a nil Grouper grouped")
	}
}

func TestPipelineCountsGrouped(t *testing.T) {
	q := NewQueue[*fault.Event](10, DropOldest)
	var c Counters
	p := &Pipeline{Group: NewGrouper(30 * time.Second), Sink: q, Counters: &c, Now: func() time.Time { return t0 }}
	p.IngestEvent(gev("n", "Node", "", "worker-3", "NodeUnhealthy"))
	for i := range 20 {
		r := p.IngestEvent(gev("", "Pod", "shop", "p"+string(rune('a'+i)), "PodNotReady", node3))
		if r.Outcome != Grouped || r.Group == nil || r.Group.Primary.ResourceKind() != "Node" {
			t.Fatalf("pod %d: outcome %s", i, r.Outcome)
		}
	}
	if q.Len() != 1 || c.Grouped.Load() != 20 || c.Enqueued.Load() != 1 {
		t.Fatalf("queued %d, grouped %d, enqueued %d; want 1, 20, 1", q.Len(), c.Grouped.Load(), c.Enqueued.Load())
	}
}

func TestGrouperLetsGoOfUnattachedGroups(t *testing.T) {
	gr := NewGrouper(30 * time.Second)
	old := gev("old", "Pod", "shop", "old-0", "CrashLoop")
	gr.Admit(old, t0)
	gr.Admit(gev("m", "Pod", "shop", "old-0", "PodFailed"), t0.Add(time.Second))
	// A follower's primary that a takeover found covered is never attached:
	// it is let go once held for heldFor.
	gr.Admit(gev("new", "Pod", "shop", "new-0", "CrashLoop"), t0.Add(heldFor+time.Minute))
	if m := gr.Attach(old, nil); m != nil {
		t.Fatalf("a group held past heldFor: %+v", m)
	}
	if gr.byPrimary["new"] == nil {
		t.Fatalf("the new group was let go too")
	}
	for i := range maxHeldGroups + 10 {
		gr.Admit(gev(fmt.Sprint("p", i), "Pod", "shop", fmt.Sprint("p", i), "CrashLoop"), t0.Add(heldFor+2*time.Minute))
	}
	if len(gr.byPrimary) > maxHeldGroups || len(gr.held) > maxHeldGroups {
		t.Fatalf("held %d groups (%d entries); want at most %d", len(gr.byPrimary), len(gr.held), maxHeldGroups)
	}
}

func TestGrouperAbandon(t *testing.T) {
	gr := NewGrouper(30 * time.Second)
	a := gev("a", "Pod", "shop", "api-0", "PodCrash")
	gr.Admit(a, t0)
	gr.Admit(gev("b", "Pod", "shop", "api-0", "CrashLoop"), t0.Add(time.Second))
	// a got no incident: its member is handed back, and nothing joins any more.
	if m := gr.Abandon(a); len(m) != 1 || m[0].EventID != "b" {
		t.Fatalf("Abandon = %+v; want b", m)
	}
	if g := gr.Admit(gev("c", "Pod", "shop", "api-0", "OOMKilled"), t0.Add(2*time.Second)); g != nil {
		t.Fatalf("joined an abandoned group")
	}
}
