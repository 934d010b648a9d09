package leader

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

// History is where a new leader reads what the replicas before it handled:
// the incidents created since a time. The local workspace root
// (pkg/store) and the object store implement it.
type History interface {
	Recent(ctx context.Context, since time.Time) ([]incident.Incident, error)
}

// DefaultMemory bounds how many faults a follower remembers.
const DefaultMemory = 10_000

// Gate sits between a replica's ingest pipeline (after filter, dedup and
// grouping) and its triage queue. The leader's faults pass through; a
// follower's are remembered instead, so that when it takes over (Lead) it
// can triage those no incident covers: the ones the old leader had queued
// but not started when it died, and the ones that began while no replica
// led. Safe for concurrent use.
type Gate struct {
	// Next is the triage queue.
	Next watch.Sink
	// Horizon is how long a follower remembers a fault: longer than a
	// fault may wait in the old leader's queue.
	Horizon time.Duration
	// Slack is how much older than a remembered fault an incident of the
	// same fault may be and still cover it: the dedup window (the old
	// leader dropped repeats within it), plus the group window.
	Slack time.Duration
	// Max bounds the faults remembered (DefaultMemory when 0); beyond it
	// the oldest are forgotten, counted by Forgotten.
	Max    int
	Now    func() time.Time
	Logger *slog.Logger

	mu        sync.Mutex
	ready     chan struct{} // closed by Wrap
	leading   bool
	mem       []remembered // oldest first
	forgotten uint64
}

type remembered struct {
	ev *fault.Event
	at time.Time
}

// NewGate makes a gate; Wrap gives it the triage queue.
func NewGate(horizon, slack time.Duration, logger *slog.Logger) *Gate {
	return &Gate{Horizon: horizon, Slack: slack, Logger: logger, ready: make(chan struct{})}
}

// Wrap puts the gate in front of the triage queue (watcher.Config.WrapSink).
func (g *Gate) Wrap(next watch.Sink) watch.Sink {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Next = next
	if g.ready != nil {
		select {
		case <-g.ready:
		default:
			close(g.ready)
		}
	}
	return g
}

// Push passes ev on when leading, and remembers it otherwise.
func (g *Gate) Push(ev *fault.Event) (*fault.Event, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.leading {
		return g.Next.Push(ev)
	}
	now := g.now()
	g.expire(now)
	max := g.Max
	if max <= 0 {
		max = DefaultMemory
	}
	if len(g.mem) >= max {
		g.mem = g.mem[1:]
		g.forgotten++
	}
	g.mem = append(g.mem, remembered{ev: ev, at: now})
	g.log().Debug("follower: fault remembered for a takeover", "event", ev.EventID, "kind", ev.ResourceKind(), "namespace", ev.Namespace(), "name", ev.ResourceName(), "fault", ev.FaultType)
	return nil, false
}

func (g *Gate) expire(now time.Time) {
	i := 0
	for i < len(g.mem) && now.Sub(g.mem[i].at) > g.Horizon {
		i++
	}
	if i > 0 {
		g.mem = append(g.mem[:0:0], g.mem[i:]...)
	}
}

// Remembered is the number of faults remembered now.
func (g *Gate) Remembered() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.mem)
}

// Forgotten counts faults a follower forgot because it held Max already.
func (g *Gate) Forgotten() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.forgotten
}

// Leading reports whether the gate passes faults on.
func (g *Gate) Leading() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.leading
}

// Takeover is what Lead did.
type Takeover struct {
	Remembered int // faults remembered as a follower
	Covered    int // of those, covered by an incident of an earlier leader
	Queued     int // triaged now: no incident covered them
}

// Lead makes this replica the one that triages: it reads the incidents of
// the last Horizon (plus Slack) from history, queues every remembered fault
// none of them covers, and from then on passes faults through. A fault is
// covered by an incident of the same cluster, resource and fault type (or
// one listing it among its grouped members) created no more than Slack
// before the fault was seen. When history cannot be read, Lead retries
// until ctx ends: triaging everything again would double what the old
// leader did, so it waits rather than guesses.
func (g *Gate) Lead(ctx context.Context, history History) (Takeover, error) {
	if g.ready != nil {
		select {
		case <-g.ready:
		case <-ctx.Done():
			return Takeover{}, ctx.Err()
		}
	}
	var incs []incident.Incident
	for attempt := 0; ; attempt++ {
		since := g.now().Add(-g.Horizon - g.Slack)
		var err error
		if incs, err = history.Recent(ctx, since); err == nil {
			break
		}
		g.log().Warn("takeover: cannot read recent incidents; retrying", "error", err, "attempt", attempt+1)
		select {
		case <-ctx.Done():
			return Takeover{}, fmt.Errorf("takeover: read recent incidents: %w", err)
		case <-time.After(min(time.Duration(attempt+1)*time.Second, 10*time.Second)):
		}
	}
	covered := coverage(incs)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expire(g.now())
	t := Takeover{Remembered: len(g.mem)}
	for _, r := range g.mem {
		if at, ok := covered[watch.KeyOf(r.ev)]; ok && !at.Before(r.at.Add(-g.Slack)) {
			t.Covered++
			continue
		}
		t.Queued++
		if lost, dropped := g.Next.Push(r.ev); dropped && lost != nil {
			g.log().Warn("takeover: queue full: fault dropped", "event", lost.EventID, "kind", lost.ResourceKind(), "namespace", lost.Namespace(), "name", lost.ResourceName(), "fault", lost.FaultType)
		}
	}
	g.mem = nil
	g.leading = true
	return t, nil
}

// coverage maps each fault key an incident covers (its own and its
// members') to the latest creation time of such an incident.
func coverage(incs []incident.Incident) map[string]time.Time {
	out := map[string]time.Time{}
	add := func(cluster string, r fault.Resource, faultType string, at time.Time) {
		res := r
		k := watch.KeyOf(&fault.Event{Cluster: cluster, Resource: &res, FaultType: faultType})
		if at.After(out[k]) {
			out[k] = at
		}
	}
	for _, inc := range incs {
		add(inc.Cluster, inc.Resource, inc.FaultType, inc.CreatedAt)
		for _, m := range inc.Members {
			add(inc.Cluster, m.Resource, m.FaultType, inc.CreatedAt)
		}
	}
	return out
}

func (g *Gate) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func (g *Gate) log() *slog.Logger {
	if g.Logger != nil {
		return g.Logger
	}
	return slog.New(slog.DiscardHandler)
}
