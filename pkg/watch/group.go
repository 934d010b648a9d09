package watch

import (
	"sync"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// DefaultGroupWindow is how long a group takes in faults sharing its cause.
const DefaultGroupWindow = 30 * time.Second

// Groups are held for their primary's triage (Attach) at most
// maxHeldGroups of them and for heldFor: a follower's primaries that a
// takeover finds covered are never triaged here, and must not pile up.
// A group let go early loses only the recording of its members.
const (
	maxHeldGroups = 20_000
	heldFor       = 2 * time.Hour
)

// Member is a fault grouped into another's incident instead of being
// triaged on its own.
type Member struct {
	Resource  fault.Resource
	FaultType string
	Severity  string
	EventID   string
	Timestamp time.Time
	Cause     string // the cause key it shares with the incident's fault
}

// CausesOf are the cause keys of a fault: its own resource first
// ("Kind/namespace/name": PodCrash then CrashLoop of one pod share it),
// then what the source knows may have caused it (ev.Causes: the pod's
// NotReady node, its ReplicaSet, Deployment or Job).
func CausesOf(ev *fault.Event) []string {
	keys := make([]string, 0, 1+len(ev.Causes))
	if ev.ResourceKind() != "" {
		keys = append(keys, fault.CauseKey(ev.ResourceKind(), ev.Namespace(), ev.ResourceName()))
	}
	return append(keys, ev.Causes...)
}

// Group is the faults one incident stands for: the first of them (Primary,
// the one triaged) and the members that joined within the window.
type Group struct {
	Primary *fault.Event
	keys    []string
	opened  time.Time

	mu      sync.Mutex
	members []Member
	late    func(Member) // once attached: where later members go
}

// Members are the group's members so far.
func (g *Group) Members() []Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Member(nil), g.members...)
}

// Grouper groups faults that share a cause within Window into the first
// one's incident (DESIGN.md §9): a node that went NotReady and the pods on
// it, the pods of one ReplicaSet (a rollout revision), a Deployment or Job
// and its pods, PodCrash then CrashLoop of one pod. A fault joins an open
// group when one of its cause keys is among the keys of the group's first
// fault; otherwise it opens a group of its own and is triaged. The first
// fault is triaged at once (no waiting for the window to close): members
// joining before its triage ends are recorded with the incident, later
// ones are handed to the callback Attach registered. Safe for concurrent
// use.
type Grouper struct {
	Window time.Duration

	mu        sync.Mutex
	open      map[string]*Group // cause key → open group
	order     []*Group          // open groups, oldest first
	byPrimary map[string]*Group // primary's EventID → group, until attached
	held      []heldGroup       // byPrimary's keys in insertion order
}

type heldGroup struct {
	id string
	at time.Time
}

// NewGrouper makes a grouper over window; a window <= 0 groups nothing
// (nil is returned, and a nil *Grouper is valid and groups nothing).
func NewGrouper(window time.Duration) *Grouper {
	if window <= 0 {
		return nil
	}
	return &Grouper{Window: window, open: map[string]*Group{}, byPrimary: map[string]*Group{}}
}

// Admit either adds ev to an open group whose cause it shares (joined is
// that group) or opens a group with ev as its primary (joined is nil).
func (gr *Grouper) Admit(ev *fault.Event, now time.Time) (joined *Group) {
	if gr == nil {
		return nil
	}
	keys := CausesOf(ev)
	gr.mu.Lock()
	gr.expire(now)
	for _, k := range keys {
		if g := gr.open[k]; g != nil {
			gr.mu.Unlock()
			m := Member{EventID: ev.EventID, FaultType: ev.FaultType, Severity: ev.Severity, Timestamp: ev.Timestamp, Cause: k}
			if ev.Resource != nil {
				m.Resource = *ev.Resource
			} else {
				m.Resource = fault.Resource{Kind: ev.ResourceKind(), Namespace: ev.Namespace(), Name: ev.ResourceName()}
			}
			g.mu.Lock()
			late := g.late
			if late == nil {
				g.members = append(g.members, m)
			}
			g.mu.Unlock()
			if late != nil {
				late(m)
			}
			return g
		}
	}
	g := &Group{Primary: ev, keys: keys, opened: now}
	for _, k := range keys {
		gr.open[k] = g
	}
	gr.order = append(gr.order, g)
	if ev.EventID != "" {
		for len(gr.held) > 0 && (len(gr.held) >= maxHeldGroups || now.Sub(gr.held[0].at) > heldFor) {
			if gr.byPrimary[gr.held[0].id] != nil && gr.byPrimary[gr.held[0].id].opened.Equal(gr.held[0].at) {
				delete(gr.byPrimary, gr.held[0].id)
			}
			gr.held = gr.held[1:]
		}
		gr.byPrimary[ev.EventID] = g
		gr.held = append(gr.held, heldGroup{ev.EventID, now})
		if len(gr.held) > 2*len(gr.byPrimary)+1024 {
			// Attach deleted most of them: keep only the ones still held.
			kept := gr.held[:0:0]
			for _, h := range gr.held {
				if gr.byPrimary[h.id] != nil {
					kept = append(kept, h)
				}
			}
			gr.held = kept
		}
	}
	gr.mu.Unlock()
	return nil
}

// expire closes the groups whose window ended.
func (gr *Grouper) expire(now time.Time) {
	i := 0
	for i < len(gr.order) && now.Sub(gr.order[i].opened) >= gr.Window {
		gr.close(gr.order[i])
		i++
	}
	if i > 0 {
		gr.order = append(gr.order[:0:0], gr.order[i:]...)
	}
}

func (gr *Grouper) close(g *Group) {
	for _, k := range g.keys {
		if gr.open[k] == g {
			delete(gr.open, k)
		}
	}
}

// Forget closes the group ev is the primary of, as if it never opened: ev
// was dropped from the queue and will not be triaged, so nothing may join
// its incident.
func (gr *Grouper) Forget(ev *fault.Event) {
	if gr == nil || ev == nil {
		return
	}
	gr.mu.Lock()
	defer gr.mu.Unlock()
	if g := gr.byPrimary[ev.EventID]; g != nil {
		gr.close(g)
		delete(gr.byPrimary, ev.EventID)
	}
}

// Abandon closes the group primary opened, as Forget does, and returns
// the members that had joined it: primary got no incident, so nothing
// records them and nothing more may join.
func (gr *Grouper) Abandon(primary *fault.Event) []Member {
	if gr == nil || primary == nil {
		return nil
	}
	gr.mu.Lock()
	g := gr.byPrimary[primary.EventID]
	if g != nil {
		gr.close(g)
		delete(gr.byPrimary, primary.EventID)
	}
	gr.mu.Unlock()
	if g == nil {
		return nil
	}
	return g.Members()
}

// Attach is called once primary's incident exists: it returns the members
// that joined so far and routes the ones joining later (until the window
// closes) to late. It returns nil for a fault that opened no group.
func (gr *Grouper) Attach(primary *fault.Event, late func(Member)) []Member {
	if gr == nil || primary == nil {
		return nil
	}
	gr.mu.Lock()
	g := gr.byPrimary[primary.EventID]
	delete(gr.byPrimary, primary.EventID)
	if len(gr.byPrimary) == 0 {
		gr.held = nil
	}
	gr.mu.Unlock()
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.late = late
	if late == nil {
		g.late = func(Member) {}
	}
	out := g.members
	g.members = nil
	return out
}

// Open is the number of groups still taking members.
func (gr *Grouper) Open() int {
	if gr == nil {
		return 0
	}
	gr.mu.Lock()
	defer gr.mu.Unlock()
	return len(gr.order)
}
