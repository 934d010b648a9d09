package watchmode

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/leader"
	"github.com/kubectl-triage/kubectl-triage/pkg/metrics"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

// replica is a watch's part in leader election.
type replica struct {
	elector  *leader.Elector
	gate     *leader.Gate
	stopping atomic.Bool
	lost     atomic.Bool
	stop     func()
	once     sync.Once
}

// newReplica sets up leader election for the watch: the Lease, the gate in
// front of the triage queue, the leader_election_master_status gauge and
// the role on /healthz. It returns nil without Leader.Enabled.
func (r *run) newReplica(ctx context.Context, m *metrics.Metrics) (*replica, error) {
	l := r.cfg.Leader
	if !l.Enabled {
		return nil, nil
	}
	// The plain connection config: the Lease is the one write, made through
	// a client restricted to it (leader.LeaseOnlyConfig). The triage client
	// stays read-only.
	loader := r.cfg.Flags.ToRawKubeConfigLoader()
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	ns := l.Namespace
	if ns == "" {
		ctxNS, _, _ := loader.Namespace()
		ns = leader.Namespace(ctxNS)
	}
	name := l.LeaseName
	if name == "" {
		name = leader.LeaseName(string(r.cfg.Source), r.cfg.MCP.Endpoint, r.namespace())
	}
	// A follower remembers faults longer than one may wait in the old
	// leader's queue; an incident covers a fault seen up to a dedup window
	// (the old leader dropped repeats within it) and a group window after it.
	rep := &replica{gate: leader.NewGate(max(r.cfg.DedupWindow, time.Hour), r.cfg.DedupWindow+r.cfg.GroupWindow+5*time.Second, r.log)}
	hist, err := r.history()
	if err != nil {
		return nil, err
	}
	rep.elector, err = leader.New(leader.Config{
		Config: cfg, Namespace: ns, Name: name, Logger: r.log,
		LeaseDuration: l.LeaseDuration, RenewDeadline: l.RenewDeadline, RetryPeriod: l.RetryPeriod,
	}, func(ctx context.Context) {
		t, err := rep.gate.Lead(ctx, hist)
		if err != nil {
			r.log.Error("takeover failed", "error", err)
			return
		}
		r.log.Info("takeover: now triaging", "remembered", t.Remembered, "covered_by_earlier_incidents", t.Covered, "queued", t.Queued)
	})
	if err != nil {
		return nil, err
	}
	if err := rep.elector.Check(ctx); err != nil {
		return nil, err
	}
	if err := m.Register(leader.Collectors()...); err != nil {
		return nil, fmt.Errorf("leader election metrics: %w", err)
	}
	m.SetRole(rep.elector.Role)
	r.log.Info("leader election: campaigning", "lease", ns+"/"+name, "identity", rep.elector.Identity(), "lease_duration", l.LeaseDuration.String())
	return rep, nil
}

// history is where a new leader reads the incidents its predecessors
// made: where this watch keeps them (the replicas must share it).
func (r *run) history() (leader.History, error) {
	// Replicas in the cluster share only the object store (each pod's
	// workspace root is its own emptyDir): a new leader learns there what
	// its predecessor triaged.
	if r.objects != nil {
		return r.objects, nil
	}
	return store.New(r.cfg.WorkspaceRoot)
}

// wrap is the watcher's WrapSink (nil without leader election).
func (r *replica) wrap() func(watch.Sink) watch.Sink {
	if r == nil {
		return nil
	}
	return r.gate.Wrap
}

// following is the watcher's Following (nil without leader election).
func (r *replica) following() func() bool {
	if r == nil {
		return nil
	}
	return func() bool { return !r.gate.Leading() }
}

// start campaigns; losing a Lease held calls cancel (the watch drains and
// stops: another replica may lead already).
func (r *replica) start(cancel context.CancelFunc) {
	if r == nil {
		return
	}
	r.stop = r.elector.Start(func() {
		if !r.stopping.Load() {
			r.lost.Store(true)
			cancel()
		}
	})
}

// finish ends the campaign once the watch has drained, releasing the Lease
// when held; the watch's error err stands, else losing the Lease is the
// error. Calling it again does nothing more.
func (r *replica) finish(err error) error {
	if r == nil || r.stop == nil {
		return err
	}
	r.stopping.Store(true)
	r.once.Do(r.stop)
	if err == nil && r.lost.Load() {
		return errors.New("lost the leader-election lease: stopped so that only the new leader triages (a restart rejoins as a follower)")
	}
	return err
}
