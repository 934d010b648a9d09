package leader

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

type history struct {
	incs  []incident.Incident
	fails int
}

func (h *history) Recent(_ context.Context, since time.Time) ([]incident.Incident, error) {
	if h.fails > 0 {
		h.fails--
		return nil, errors.New("store unreachable")
	}
	var out []incident.Incident
	for _, i := range h.incs {
		if !i.CreatedAt.Before(since) {
			out = append(out, i)
		}
	}
	return out, nil
}

func pod(id, name, faultType string) *fault.Event {
	return &fault.Event{EventID: id, Cluster: "prod", FaultType: faultType, Resource: &fault.Resource{Kind: "Pod", Namespace: "shop", Name: name}}
}

func inc(name, faultType string, at time.Time, members ...string) incident.Incident {
	i := incident.Incident{Cluster: "prod", Resource: fault.Resource{Kind: "Pod", Namespace: "shop", Name: name}, FaultType: faultType, CreatedAt: at}
	for _, m := range members {
		i.Members = append(i.Members, incident.Member{Resource: fault.Resource{Kind: "Pod", Namespace: "shop", Name: m}, FaultType: "PodNotReady"})
	}
	return i
}

func TestGateTakeover(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	now := t0
	q := watch.NewQueue[*fault.Event](100, watch.DropOldest)
	g := NewGate(time.Hour, 15*time.Minute+35*time.Second, nil)
	g.Now = func() time.Time { return now }
	g.Wrap(q)

	// As a follower: remembered, not queued.
	for _, ev := range []*fault.Event{
		pod("1", "api-0", "CrashLoop"),   // the old leader triaged it
		pod("2", "web-0", "PodNotReady"), // a member of the old leader's incident
		pod("3", "cart-0", "CrashLoop"),  // queued by the old leader, never started
		pod("4", "db-0", "OOMKilled"),    // began while no replica led
		pod("5", "pay-0", "ImagePull"),   // an incident of it, but from long before
		pod("6", "api-0", "PodNotReady"), // same pod, another fault: not covered
	} {
		if _, dropped := g.Push(ev); dropped {
			t.Fatal("follower dropped a fault")
		}
		now = now.Add(time.Second)
	}
	if q.Len() != 0 || g.Remembered() != 6 {
		t.Fatalf("follower queued %d, remembered %d; want 0, 6", q.Len(), g.Remembered())
	}
	h := &history{fails: 1, incs: []incident.Incident{
		inc("api-0", "CrashLoop", t0.Add(2*time.Second)),
		inc("node-x", "NodeUnhealthy", t0, "web-0"),
		inc("pay-0", "ImagePull", t0.Add(-40*time.Minute)),
	}}
	h.incs[1].Resource = fault.Resource{Kind: "Node", Name: "node-x"}
	tk, err := g.Lead(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Remembered != 6 || tk.Covered != 2 || tk.Queued != 4 {
		t.Fatalf("takeover %+v; want 6 remembered, 2 covered, 4 queued", tk)
	}
	var got []string
	for q.Len() > 0 {
		ev, _ := q.TryPop()
		got = append(got, ev.EventID)
	}
	if want := []string{"3", "4", "5", "6"}; len(got) != len(want) || got[0] != "3" || got[1] != "4" || got[2] != "5" || got[3] != "6" {
		t.Fatalf("queued %v; want %v", got, want)
	}
	// As the leader: straight through.
	g.Push(pod("7", "x", "CrashLoop"))
	if q.Len() != 1 || !g.Leading() {
		t.Fatalf("leader did not pass a fault on")
	}
}

func TestGateForgetsBeyondItsBounds(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	g := NewGate(time.Minute, 0, nil)
	g.Max = 3
	g.Now = func() time.Time { return now }
	for i := range 5 {
		g.Push(pod(string(rune('a'+i)), "p", "CrashLoop"))
	}
	if g.Remembered() != 3 || g.Forgotten() != 2 {
		t.Fatalf("remembered %d, forgotten %d; want 3, 2", g.Remembered(), g.Forgotten())
	}
	now = now.Add(2 * time.Minute)
	g.Push(pod("z", "p", "CrashLoop"))
	if g.Remembered() != 1 {
		t.Fatalf("remembered %d after the horizon; want 1", g.Remembered())
	}
}

func TestLeadWaitsForTheQueue(t *testing.T) {
	g := NewGate(time.Hour, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Lead(ctx, &history{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lead before Wrap: %v", err)
	}
}
