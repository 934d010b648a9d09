// Package watcher is watch mode's engine (DESIGN.md §9): a source feeds
// notifications into the ingest pipeline (pkg/watch), one triage runs at a
// time per cluster, and each outcome is handed to the observers (the
// summary line, Slack, metrics). It owns the lifecycle: intake, the
// --max-incidents stop, the SIGINT/SIGTERM drain and periodic retention.
package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

// Intake is what a source feeds: split MCP messages or ready events.
type Intake interface {
	Message(logger, level string, data []byte)
	Event(ev *fault.Event)
}

// Source delivers notifications to in until ctx ends. It returns an error
// only when it cannot start (the user's endpoint or credentials are wrong);
// nil once ctx is done.
type Source interface {
	Run(ctx context.Context, in Intake) error
}

// SourceFunc adapts a function to Source.
type SourceFunc func(ctx context.Context, in Intake) error

// Run calls f.
func (f SourceFunc) Run(ctx context.Context, in Intake) error { return f(ctx, in) }

// Outcome is one triaged fault.
type Outcome struct {
	Event    *fault.Event
	Cluster  string
	Incident *incident.Incident // nil when no incident could be created
	Err      error              // why there is no incident
	Took     time.Duration
}

// Observer sees every outcome, in order per cluster. It runs on the
// cluster's worker, so it should not block long; ctx outlives the watch's
// cancellation so a notification about the last incident still goes out.
type Observer func(ctx context.Context, o Outcome)

// Config configures a Watcher.
type Config struct {
	Filter       watch.Filter
	DedupWindow  time.Duration // 0: no dedup
	DedupMaxKeys int           // 0: watch.DefaultDedupMaxKeys
	MaxQueue     int           // per cluster; 0: watch.DefaultQueueSize
	Overflow     watch.Overflow
	GroupWindow  time.Duration // faults sharing a cause within it make one incident; 0: no grouping
	MaxIncidents int           // stop after this many triages; 0: never
	DrainTimeout time.Duration // after intake stops, how long running triages get before they are cancelled

	// Triage runs one fault to an incident. ctx is cancelled only when the
	// drain timeout passes.
	Triage func(ctx context.Context, ev *fault.Event) (*incident.Incident, error)
	// WrapSink, when set, wraps the triage queue: leader election's gate,
	// which remembers a follower's faults instead of queueing them.
	WrapSink func(next watch.Sink) watch.Sink
	// Following, when set, says whether the gate is remembering rather than
	// queueing (a follower), for the log.
	Following func() bool
	// Parsed, when set, sees every fault event a source's message carried,
	// before the filter (the MCP reconciler notes what the server reported).
	Parsed func(ev *fault.Event)
	// Started is called as a triage begins (metrics' active agents).
	Started func(cluster string)
	// Observers see each outcome (summary line, metrics) on the cluster's
	// worker, before the next triage starts.
	Observers []Observer
	// AsyncObservers see each outcome on their own goroutine, so a slow one
	// (Slack retrying) never holds a cluster's queue. Each has a bounded
	// backlog (outcomes beyond it are dropped and logged) and gets
	// ObserverTimeout per outcome; the watch waits up to that long for
	// their backlog when it stops.
	AsyncObservers []Observer
	// ObserverTimeout bounds an observer's work on one outcome.
	ObserverTimeout time.Duration

	// WorkspaceRoot and Retention: when Retention > 0, finished incidents
	// older than it are removed at start and periodically.
	WorkspaceRoot string
	Retention     time.Duration

	// DefaultCluster names the cluster of events that name none (a
	// single-cluster MCP server's) in outcomes, logs and metrics.
	DefaultCluster string
	// ClusterOf, when set, names the cluster a fault will be triaged on
	// (the kubeconfig context it maps to). "One triage at a time per
	// cluster" keys on it, so names that map to one context share a queue.
	ClusterOf func(ev *fault.Event) string

	Logger *slog.Logger
	Now    func() time.Time
}

// Watcher runs watch mode. Use New, then Run once.
type Watcher struct {
	cfg      Config
	log      *slog.Logger
	counters watch.Counters
	pipeline *watch.Pipeline
	grouper  *watch.Grouper
	keyed    atomic.Pointer[watch.Keyed[*fault.Event]] // set by Run; read by metrics scrapes
	async    []chan Outcome
	stopping atomic.Bool

	stopIntake context.CancelFunc
	runCtx     context.Context

	started   atomic.Int64
	completed atomic.Int64
	failed    atomic.Int64
	active    atomic.Int64
	discarded atomic.Uint64
}

// New validates cfg.
func New(cfg Config) (*Watcher, error) {
	if cfg.Triage == nil {
		return nil, errors.New("watcher: Config.Triage is required")
	}
	if cfg.MaxIncidents < 0 {
		return nil, fmt.Errorf("--max-incidents must not be negative, got %d", cfg.MaxIncidents)
	}
	if cfg.MaxQueue < 0 {
		return nil, fmt.Errorf("--max-queue must not be negative, got %d", cfg.MaxQueue)
	}
	if cfg.DedupWindow < 0 || cfg.DrainTimeout < 0 || cfg.Retention < 0 {
		return nil, errors.New("--dedup-window, --drain-timeout and --retention must not be negative")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ObserverTimeout <= 0 {
		cfg.ObserverTimeout = time.Minute
	}
	return &Watcher{cfg: cfg, log: cfg.Logger}, nil
}

// Counters are the ingest pipeline's counters (for metrics).
func (w *Watcher) Counters() *watch.Counters { return &w.counters }

// QueueDepth is the number of faults waiting for their cluster's agent.
func (w *Watcher) QueueDepth() int {
	if k := w.keyed.Load(); k != nil {
		return k.Len()
	}
	return 0
}

// Stats is what a watch did, for its closing log line.
type Stats struct {
	watch.CounterValues
	Triaged, Failed int64
	Discarded       uint64 // queued faults never triaged because the watch stopped
}

// Stats reads the totals.
func (w *Watcher) Stats() Stats {
	s := Stats{CounterValues: w.counters.Snapshot(), Triaged: w.completed.Load(), Failed: w.failed.Load(), Discarded: w.discarded.Load()}
	if k := w.keyed.Load(); k != nil {
		s.Discarded += k.Discarded()
	}
	return s
}

// Run watches until ctx ends (SIGINT/SIGTERM), --max-incidents is reached
// or the source fails to start. On the way out it stops intake, lets the
// running triages finish for up to DrainTimeout, then cancels them.
func (w *Watcher) Run(ctx context.Context, src Source) error {
	intake, stopIntake := context.WithCancel(ctx)
	defer stopIntake()
	w.stopIntake = stopIntake
	runCtx, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRuns()
	w.runCtx = runCtx

	var dedup *watch.Dedup
	if w.cfg.DedupWindow > 0 {
		dedup = watch.NewDedup(w.cfg.DedupWindow, w.cfg.DedupMaxKeys)
	}
	// Cancelling intake discards queued faults and starts no more triages;
	// the running ones go on until the drain ends.
	keyed := watch.NewKeyed(intake, w.cfg.MaxQueue, w.cfg.Overflow, w.clusterOf, w.handle)
	keyed.OnDiscard = func(ev *fault.Event) {
		w.log.Warn("fault not triaged: the watch stopped", w.eventAttrs(ev)...)
	}
	w.keyed.Store(keyed)
	var sink watch.Sink = keyed
	if w.cfg.WrapSink != nil {
		sink = w.cfg.WrapSink(keyed)
	}
	w.grouper = watch.NewGrouper(w.cfg.GroupWindow)
	w.pipeline = &watch.Pipeline{Filter: w.cfg.Filter, Dedup: dedup, Group: w.grouper, Sink: sink, Counters: &w.counters, Now: w.cfg.Now}

	var bg, observers sync.WaitGroup
	if w.cfg.Retention > 0 && w.cfg.WorkspaceRoot != "" {
		bg.Add(1)
		go func() { defer bg.Done(); w.retain(intake) }()
	}
	for _, obs := range w.cfg.AsyncObservers {
		ch := make(chan Outcome, asyncBacklog)
		w.async = append(w.async, ch)
		observers.Add(1)
		go func() {
			defer observers.Done()
			for o := range ch {
				octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.ObserverTimeout)
				obs(octx, o)
				cancel()
			}
		}()
	}

	srcErr := make(chan error, 1)
	go func() { srcErr <- src.Run(intake, w) }()
	var err error
	select {
	case err = <-srcErr:
		// The source stopped by itself: it could not start, or gave up.
		stopIntake()
	case <-intake.Done():
	}
	w.stopping.Store(true)
	keyed.Close()
	// The drain runs while the source shuts down, so --drain-timeout counts
	// from the moment intake stopped.
	w.drain(ctx, keyed, cancelRuns)
	if intake.Err() != nil && err == nil {
		err = <-srcErr
	}
	for _, ch := range w.async {
		close(ch)
	}
	flushed := make(chan struct{})
	go func() { observers.Wait(); close(flushed) }()
	// Stopping is not held up for long by a Slack that does not answer.
	flush := min(w.cfg.ObserverTimeout, maxFlush)
	select {
	case <-flushed:
	case <-time.After(flush):
		w.log.Warn("stopping before every notification was delivered", "waited", flush.String())
	}
	bg.Wait()
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// asyncBacklog bounds each async observer's pending outcomes.
const asyncBacklog = 256

// maxFlush bounds how long a stopping watch waits for async observers.
const maxFlush = 15 * time.Second

// clusterOf is the cluster a fault is triaged on: its queue's key.
func (w *Watcher) clusterOf(ev *fault.Event) string {
	if w.cfg.ClusterOf != nil {
		return w.cfg.ClusterOf(ev)
	}
	if ev.Cluster == "" {
		return w.cfg.DefaultCluster
	}
	return ev.Cluster
}

// drain waits for running triages. Once the watch is interrupted (now or
// while it waits: a SIGTERM after --max-incidents was reached), they get
// DrainTimeout to finish before they are cancelled.
func (w *Watcher) drain(ctx context.Context, keyed *watch.Keyed[*fault.Event], cancelRuns context.CancelFunc) {
	done := make(chan struct{})
	go func() { keyed.Wait(); close(done) }()
	if n := w.active.Load(); n > 0 {
		w.log.Info("stopping: waiting for running triages", "running", n, "drain_timeout", w.cfg.DrainTimeout.String())
	}
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(w.cfg.DrainTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		w.log.Warn("drain timeout passed: cancelling running triages", "running", w.active.Load())
		cancelRuns()
		<-done
	}
}

// Message ingests one MCP notification.
func (w *Watcher) Message(logger, level string, data []byte) {
	ev, se, err := fault.ParseMessage(logger, level, data)
	if ev != nil {
		w.identify(ev)
		if w.cfg.Parsed != nil {
			w.cfg.Parsed(ev)
		}
	}
	r, err := w.pipeline.IngestParsed(ev, se, err)
	w.logResult(r, err)
}

// Event ingests one event from the cluster source.
func (w *Watcher) Event(ev *fault.Event) {
	if ev != nil {
		w.identify(ev)
	}
	w.logResult(w.pipeline.IngestEvent(ev), nil)
}

// identify names the fault's cluster once, at intake, by the cluster it is
// triaged on (its queue's key): kubernetes-mcp-server run with a kubeconfig
// names the cluster by its context ("prod-eu-1"), a single-cluster one
// names none, the reconciling scan and the cluster source use the context.
// With one name for one cluster, what the server reported is what the scan
// finds (Parsed) and dedup's key is the same whichever source saw it.
func (w *Watcher) identify(ev *fault.Event) {
	ev.Cluster = w.clusterOf(ev)
}

func (w *Watcher) logResult(r watch.Result, err error) {
	switch r.Outcome {
	case watch.ParseError:
		w.log.Warn("skipping a notification that is not a fault event", "error", err)
	case watch.SubscriptionError:
		w.log.Debug("subscription error notification", "error", r.SubscriptionError.Error())
	case watch.Filtered:
		w.log.Debug("fault filtered: "+r.FilterReason.String(), w.eventAttrs(r.Event)...)
	case watch.Duplicate:
		w.log.Debug("duplicate within --dedup-window", w.eventAttrs(r.Event)...)
	case watch.Grouped:
		p := r.Group.Primary
		w.log.Info("fault grouped: it shares the cause of an earlier fault, whose incident stands for it",
			append(w.eventAttrs(r.Event), "group_event", p.EventID, "group_kind", p.ResourceKind(), "group_namespace", p.Namespace(), "group_name", p.ResourceName(), "group_fault", p.FaultType)...)
	case watch.Dropped:
		if w.stopping.Load() {
			w.log.Info("stopping: fault not triaged", w.eventAttrs(r.Event)...)
			return
		}
		w.log.Warn("queue full: fault dropped", w.eventAttrs(r.Event)...)
	case watch.Enqueued:
		if w.cfg.Following != nil && w.cfg.Following() {
			w.log.Info("fault remembered: a follower triages it only if it takes over and no incident covers it", w.eventAttrs(r.Event)...)
			return
		}
		w.log.Info("fault queued", w.eventAttrs(r.Event)...)
		if r.Lost != nil {
			w.log.Warn("queue full: oldest fault dropped", w.eventAttrs(r.Lost)...)
		}
	}
}

// handle triages one fault on its cluster's worker.
func (w *Watcher) handle(ev *fault.Event) {
	if max := int64(w.cfg.MaxIncidents); max > 0 && w.started.Add(1) > max {
		w.discarded.Add(1)
		w.log.Warn("fault not triaged: --max-incidents reached", w.eventAttrs(ev)...)
		return
	}
	cluster := w.clusterOf(ev)
	w.active.Add(1)
	if w.cfg.Started != nil {
		w.cfg.Started(cluster)
	}
	w.log.Info("triage started", w.eventAttrs(ev)...)
	start := w.cfg.Now()
	inc, err := w.cfg.Triage(w.runCtx, ev)
	w.active.Add(-1)
	o := Outcome{Event: ev, Cluster: cluster, Incident: inc, Err: err, Took: w.cfg.Now().Sub(start)}
	if inc == nil && err == nil {
		o.Err = errors.New("triage returned no incident")
	}
	if inc != nil {
		// Before the observers, so the summary, Slack and an upload see the
		// faults the incident stands for.
		o.Incident = w.recordMembers(ev, inc)
	} else {
		w.noIncidentForGroup(ev)
	}
	if o.Incident == nil || o.Incident.Status != incident.Resolved {
		w.failed.Add(1)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.runCtx), w.cfg.ObserverTimeout)
	for _, obs := range w.cfg.Observers {
		obs(ctx, o)
	}
	cancel()
	for _, ch := range w.async {
		select {
		case ch <- o:
		default:
			w.log.Warn("notifications are behind: skipping one", w.eventAttrs(ev)...)
		}
	}
	if o.Incident == nil {
		// No incident came of it (the cluster refused us): --max-incidents
		// counts incidents, so its slot goes back.
		w.started.Add(-1)
		return
	}
	if n := w.completed.Add(1); w.cfg.MaxIncidents > 0 && n >= int64(w.cfg.MaxIncidents) {
		w.log.Info("--max-incidents reached: stopping", "incidents", n)
		w.stopIntake()
	}
}

// retain removes finished incidents older than Retention, now and then
// every tenth of it (between a minute and an hour).
func (w *Watcher) retain(ctx context.Context) {
	every := min(max(w.cfg.Retention/10, time.Minute), time.Hour)
	for {
		w.gc()
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

func (w *Watcher) gc() {
	s, err := store.New(w.cfg.WorkspaceRoot)
	if err == nil {
		var res *store.GCResult
		if res, err = s.GC(store.GCOptions{OlderThan: w.cfg.Retention, Now: w.cfg.Now()}); err == nil {
			if len(res.Removed) > 0 {
				w.log.Info("retention: removed old incidents", "removed", len(res.Removed)-res.Failed(), "failed", res.Failed(), "freed_bytes", res.Freed(), "retention", w.cfg.Retention.String())
			}
			return
		}
	}
	w.log.Warn("retention: gc failed", "error", err)
}

// eventAttrs are an event's log attributes; cluster is the one it is
// triaged on, as in metrics and summaries.
func (w *Watcher) eventAttrs(ev *fault.Event) []any {
	if ev == nil {
		return nil
	}
	return EventAttrs(ev, w.clusterOf(ev))
}

// EventAttrs are an event's log attributes, for observers' logs.
func EventAttrs(ev *fault.Event, cluster string) []any {
	// Logs reach a terminal or a log pipeline: the fault's own text is
	// redacted like everything else that leaves the process.
	faultType, _ := redact.Text(ev.FaultType)
	severity, _ := redact.Text(ev.Severity)
	return []any{"event", ev.EventID, "cluster", cluster, "namespace", ev.Namespace(), "kind", ev.ResourceKind(), "name", ev.ResourceName(), "fault", faultType, "severity", severity}
}
