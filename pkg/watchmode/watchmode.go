// Package watchmode is `kubectl triage watch` as a running process
// (DESIGN.md §9): it wires a fault source (kubernetes-mcp-server or the
// cluster itself), the watcher's pipeline and lifecycle (pkg/watcher), the
// triage engine every command shares (pkg/triage), leader election
// (pkg/leader), the object store, Slack and metrics into one Run. The
// command only turns flags into a Config and renders each outcome.
package watchmode

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/metrics"
	"github.com/kubectl-triage/kubectl-triage/pkg/notify"
	"github.com/kubectl-triage/kubectl-triage/pkg/objectstore"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
	"github.com/kubectl-triage/kubectl-triage/pkg/watcher"
)

// Source is where faults come from.
type Source string

const (
	// SourceMCP subscribes to kubernetes-mcp-server's events (pkg/mcpsource).
	SourceMCP Source = "mcp"
	// SourceCluster watches the API server itself (pkg/clusterwatch).
	SourceCluster Source = "cluster"
)

// MCP is the kubernetes-mcp-server subscription of SourceMCP.
type MCP struct {
	Endpoint    string
	Mode        string // faults, resource-faults or events
	EventType   string // events mode: only this type
	Reason      string // events mode: only this reason
	BearerToken string
}

// Leader is the leader election of several replicas of one watch.
type Leader struct {
	Enabled bool
	// Namespace and LeaseName of the Lease; "" picks the defaults
	// (leader.Namespace, leader.LeaseName).
	Namespace, LeaseName                      string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Store is where finished incidents are uploaded.
type Store struct {
	URL       string // "" keeps incidents on disk only
	KeepLocal bool   // keep the local workspace once uploaded
}

// Config is one watch.
type Config struct {
	// Flags are the user's connection flags (their WrapConfigFn makes
	// every client read-only); Prepare completes each cluster's client.
	Flags   *kubeflags.ConfigFlags
	Prepare func(ctx context.Context, c *clusters.Client) error

	Agent          agent.Agent
	Timeout        time.Duration // per triage
	NoBuiltinHints bool
	WorkspaceRoot  string
	Retention      time.Duration // 0 keeps every finished incident

	Source Source
	MCP    MCP
	// Namespaces narrow the watch (nil: the whole cluster).
	Namespaces      []string
	IncludeExisting bool // SourceCluster: also the faults that exist at start

	Filter       watch.Filter
	MinSeverity  string // as given, for the log
	DedupWindow  time.Duration
	GroupWindow  time.Duration
	MaxQueue     int
	Overflow     watch.Overflow
	MaxIncidents int
	DrainTimeout time.Duration

	SlackWebhook string
	MetricsAddr  string // "" serves no metrics
	Store        Store
	Leader       Leader

	// Observers render each outcome (the command's summary line); they
	// run first, before the log line and the metrics.
	Observers []watcher.Observer
	Logger    *slog.Logger
}

// run is one watch's state.
type run struct {
	cfg      Config
	log      *slog.Logger
	clusters *clusters.Cache
	engine   *triage.Engine
	objects  *objectstore.Store
}

// Run watches until ctx is done (draining the running triage) or
// MaxIncidents incidents are made.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	r := &run{cfg: cfg, log: cfg.Logger}
	r.clusters = clusters.New(clusters.Options{Flags: cfg.Flags, Prepare: cfg.Prepare, Logger: r.log})
	r.engine = triage.New(triage.Config{WorkspaceRoot: cfg.WorkspaceRoot, Agent: cfg.Agent, Timeout: cfg.Timeout, Logger: r.log, NoBuiltinHints: cfg.NoBuiltinHints})
	def, err := r.clusters.Get(ctx, "")
	if err != nil {
		return err
	}
	// The store is checked (and a missing container created) before any
	// fault is taken, so a wrong URL or credential stops the watch now.
	if err := r.openStore(ctx); err != nil {
		return err
	}
	defer r.closeStore()
	filter := cfg.Filter
	if cfg.Source == SourceMCP && cfg.MCP.Mode != "events" {
		// The faults subscription takes no namespace: narrow it here.
		filter = filter.InNamespaces(cfg.Namespaces...)
	}

	m := metrics.New()
	var slack *notify.Slack
	if cfg.SlackWebhook != "" {
		if slack, err = notify.NewSlack(cfg.SlackWebhook, notify.SlackOptions{Logger: r.log}); err != nil {
			return err
		}
	}
	notifier := notify.NewNotifier(slack, r.log)
	if notifier.Enabled() {
		m.Notifications(notifier.Sent.Load, notifier.Failed.Load)
	}

	src, err := r.source(def)
	if err != nil {
		return err
	}

	rep, err := r.newReplica(ctx, m)
	if err != nil {
		return err
	}
	// Losing the Lease stops the watch as a signal does (another replica
	// may lead already); the Lease is released once the watch has drained.
	ctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	rep.start(stopWatch)
	defer rep.finish(nil)
	observers := append(append([]watcher.Observer{}, cfg.Observers...),
		r.logOutcome,
		func(_ context.Context, out watcher.Outcome) { recordMetrics(m, out) },
	)
	w, err := watcher.New(watcher.Config{
		Filter: filter, DedupWindow: cfg.DedupWindow, GroupWindow: cfg.GroupWindow, WrapSink: rep.wrap(), Following: rep.following(),
		MaxQueue: cfg.MaxQueue, Overflow: cfg.Overflow,
		MaxIncidents: cfg.MaxIncidents, DrainTimeout: cfg.DrainTimeout,
		Triage:    r.triage,
		Started:   m.AgentStarted,
		Observers: observers,
		AsyncObservers: []watcher.Observer{func(ctx context.Context, out watcher.Outcome) {
			if notifier.Enabled() {
				notifier.Incident(ctx, r.notifiable(out), out.Took)
			}
		}},
		WorkspaceRoot: cfg.WorkspaceRoot, Retention: cfg.Retention,
		DefaultCluster: def.Name,
		ClusterOf:      func(ev *fault.Event) string { return r.clusters.ClusterOf(ev.Cluster) },
		Parsed:         src.parsed,
		Logger:         r.log,
	})
	if err != nil {
		return err
	}
	m.WatchSource(def.Name, w.Counters(), w.QueueDepth, src.reconnects, src.drops)
	if cfg.MetricsAddr != "" {
		addr, err := metrics.Serve(ctx, cfg.MetricsAddr, m, src.health, r.log)
		if err != nil {
			return err
		}
		r.log.Info("serving metrics", "addr", addr, "paths", "/metrics /healthz")
	}
	r.log.Info("watching for faults", "source", string(cfg.Source), "cluster", def.Name, "endpoint", cfg.MCP.Endpoint, "namespaces", strings.Join(cfg.Namespaces, ","),
		"min_severity", cfg.MinSeverity, "dedup_window", cfg.DedupWindow.String(), "agent", cfg.Agent.Name(), "workspace_root", cfg.WorkspaceRoot)
	err = w.Run(ctx, src.run)
	err = rep.finish(err)
	st := w.Stats()
	r.log.Info("watch stopped", "received", st.Received, "filtered", st.Filtered, "deduplicated", st.Deduplicated, "grouped", st.Grouped, "dropped", st.Dropped,
		"parse_errors", st.ParseErrors, "triaged", st.Triaged, "failed", st.Failed, "not_triaged", st.Discarded)
	return err
}

// namespace is the one namespace the watch is narrowed to, "" for all.
func (r *run) namespace() string {
	if len(r.cfg.Namespaces) > 0 {
		return r.cfg.Namespaces[0]
	}
	return ""
}

// openStore opens Store.URL, creating a missing container or bucket where
// the credentials allow.
func (r *run) openStore(ctx context.Context) error {
	if r.cfg.Store.URL == "" {
		return nil
	}
	st, err := objectstore.Open(ctx, r.cfg.Store.URL, objectstore.Options{Create: true, Log: r.log})
	if err != nil {
		return err
	}
	r.objects = st
	r.log.Info("storing incidents", "store", st.String(), "keep_local", r.cfg.Store.KeepLocal)
	return nil
}

func (r *run) closeStore() {
	if r.objects != nil {
		_ = r.objects.Close()
	}
}
