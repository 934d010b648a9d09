package cmd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubectl-triage/kubectl-triage/pkg/leader"
	"github.com/kubectl-triage/kubectl-triage/pkg/metrics"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

// LeaderElectFlags are watch's high-availability flags (pkg/leader).
type LeaderElectFlags struct {
	LeaderElect   bool
	Namespace     string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
}

// AddFlags registers the --leader-elect flags.
func (l *LeaderElectFlags) AddFlags(f *pflag.FlagSet) {
	f.BoolVar(&l.LeaderElect, "leader-elect", false, "Run as one of several replicas: only the one holding a Lease triages; the others watch, remember the faults they see and take over, without doubling or losing incidents, when it goes away")
	f.StringVar(&l.Namespace, "leader-elect-namespace", "", "Namespace of the leader-election Lease. Default: the pod's own namespace in the cluster, else the current context's")
	nonNegativeDurationVar(f, &l.LeaseDuration, "leader-elect-lease-duration", leader.DefaultLeaseDuration, "How long followers wait after the last renewal before taking the Lease over")
	nonNegativeDurationVar(f, &l.RenewDeadline, "leader-elect-renew-deadline", leader.DefaultRenewDeadline, "How long the leader keeps retrying to renew the Lease before it stops leading")
	nonNegativeDurationVar(f, &l.RetryPeriod, "leader-elect-retry-period", leader.DefaultRetryPeriod, "How often replicas try to acquire or renew the Lease")
}

// Validate checks the durations as client-go's elector will.
func (l *LeaderElectFlags) Validate() error {
	if !l.LeaderElect {
		return nil
	}
	switch {
	case l.LeaseDuration <= l.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be longer than --leader-elect-renew-deadline (%s)", l.LeaseDuration, l.RenewDeadline)
	case float64(l.RenewDeadline) <= 1.2*float64(l.RetryPeriod) || l.RetryPeriod <= 0:
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be longer than 1.2 × --leader-elect-retry-period (%s)", l.RenewDeadline, l.RetryPeriod)
	}
	return nil
}

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
// the role on /healthz. It returns nil without --leader-elect.
func (o *WatchOptions) newReplica(ctx context.Context, m *metrics.Metrics) (*replica, error) {
	l := o.LeaderElectFlags
	if !l.LeaderElect {
		return nil, nil
	}
	// The plain connection config: the Lease is the one write, made through
	// a client restricted to it (leader.LeaseOnlyConfig). The triage client
	// stays read-only.
	loader := o.configFlags.ToRawKubeConfigLoader()
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	ns := l.Namespace
	if ns == "" {
		ctxNS, _, _ := loader.Namespace()
		ns = leader.Namespace(ctxNS)
	}
	scope := ""
	if len(o.namespaces) > 0 {
		scope = o.namespaces[0]
	}
	name := leader.LeaseName(o.Source, o.MCPEndpoint, scope)
	// A follower remembers faults longer than one may wait in the old
	// leader's queue; an incident covers a fault seen up to a dedup window
	// (the old leader dropped repeats within it) and a group window after it.
	r := &replica{gate: leader.NewGate(max(o.DedupWindow, time.Hour), o.DedupWindow+o.GroupWindow+5*time.Second, o.log)}
	hist, err := o.history()
	if err != nil {
		return nil, err
	}
	r.elector, err = leader.New(leader.Config{
		Config: cfg, Namespace: ns, Name: name, Logger: o.log,
		LeaseDuration: l.LeaseDuration, RenewDeadline: l.RenewDeadline, RetryPeriod: l.RetryPeriod,
	}, func(ctx context.Context) {
		t, err := r.gate.Lead(ctx, hist)
		if err != nil {
			o.log.Error("takeover failed", "error", err)
			return
		}
		o.log.Info("takeover: now triaging", "remembered", t.Remembered, "covered_by_earlier_incidents", t.Covered, "queued", t.Queued)
	})
	if err != nil {
		return nil, err
	}
	if err := r.elector.Check(ctx); err != nil {
		return nil, err
	}
	if err := m.Register(leader.Collectors()...); err != nil {
		return nil, fmt.Errorf("leader election metrics: %w", err)
	}
	m.SetRole(r.elector.Role)
	o.log.Info("leader election: campaigning", "lease", ns+"/"+name, "identity", r.elector.Identity(), "lease_duration", l.LeaseDuration.String())
	return r, nil
}

// history is where a new leader reads the incidents its predecessors
// made: where this watch keeps them (the replicas must share it).
func (o *WatchOptions) history() (leader.History, error) {
	// Replicas in the cluster share only the object store (each pod's
	// workspace root is its own emptyDir): a new leader learns there what
	// its predecessor triaged.
	if o.objects != nil {
		return o.objects, nil
	}
	return store.New(o.WorkspaceRoot)
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
