package watcher

import (
	"sync"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// lateFlush is how long late members gather before incident.json is
// rewritten with them: a node's pods arrive by the dozen.
const lateFlush = time.Second

// recordMembers records in inc the faults grouped into it while it was
// queued and triaged, and arranges for the ones joining later (until the
// group window closes) to be added too. It returns the updated record.
func (w *Watcher) recordMembers(ev *fault.Event, inc *incident.Incident) *incident.Incident {
	if w.grouper == nil || inc.Workspace == "" {
		return inc
	}
	var (
		mu      sync.Mutex
		pending []incident.Member
		timer   *time.Timer
		write   sync.Mutex // one read-modify-write of incident.json at a time
	)
	flush := func() {
		mu.Lock()
		batch := pending
		pending, timer = nil, nil
		mu.Unlock()
		write.Lock()
		defer write.Unlock()
		if _, err := incident.AddMembers(workspace.Files(inc.Workspace), batch); err != nil {
			w.log.Warn("grouped faults not recorded", "incident_id", inc.IncidentID, "error", err)
		}
	}
	members := w.grouper.Attach(ev, func(m watch.Member) {
		mu.Lock()
		defer mu.Unlock()
		pending = append(pending, toIncidentMember(m))
		if timer == nil {
			timer = time.AfterFunc(lateFlush, flush)
		}
	})
	if len(members) == 0 {
		return inc
	}
	out := make([]incident.Member, len(members))
	for i, m := range members {
		out[i] = toIncidentMember(m)
	}
	write.Lock()
	updated, err := incident.AddMembers(workspace.Files(inc.Workspace), out)
	write.Unlock()
	if err != nil {
		w.log.Warn("grouped faults not recorded", "incident_id", inc.IncidentID, "error", err)
		return inc
	}
	w.log.Info("incident stands for grouped faults", "incident_id", inc.IncidentID, "members", len(updated.Members))
	// The in-memory record is the triage's, with the members added.
	cp := *inc
	cp.Members = updated.Members
	return &cp
}

func toIncidentMember(m watch.Member) incident.Member {
	return incident.Member{Resource: m.Resource, FaultType: m.FaultType, Severity: m.Severity, EventID: m.EventID, Timestamp: m.Timestamp, Cause: m.Cause}
}

// noIncidentForGroup closes the group of a fault that got no incident (the
// cluster refused us, the object is gone): nothing more joins it, and the
// faults that had are logged, since no incident records them.
func (w *Watcher) noIncidentForGroup(ev *fault.Event) {
	if w.grouper == nil {
		return
	}
	for _, m := range w.grouper.Abandon(ev) {
		w.log.Warn("grouped fault not triaged: the fault it was grouped with got no incident",
			append(EventAttrs(&fault.Event{EventID: m.EventID, Resource: &m.Resource, FaultType: m.FaultType, Severity: m.Severity}, w.clusterOf(ev)), "group_event", ev.EventID)...)
	}
}
