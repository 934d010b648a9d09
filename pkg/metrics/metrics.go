// Package metrics is kubectl-triage's Prometheus instrumentation (DESIGN.md
// §9): the agent_runtime_* metrics existing dashboards read, watch mode's ingest
// counters as kubectl_triage_*, and the HTTP endpoint that serves them with
// /healthz on --metrics-addr.
//
// Everything lives in a private Registry so that nothing else linked into the
// binary (client-go, the MCP SDK) can add to or collide with it.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metric names; the agent_runtime_* ones are fixed so that existing
// dashboards and alerts keep working.
const (
	InvocationsName   = "agent_runtime_invocations_total"
	DurationName      = "agent_runtime_duration_seconds"
	ActiveAgentsName  = "agent_runtime_active_agents"
	WorkspaceSizeName = "agent_runtime_workspace_size_bytes"
	ErrorsName        = "agent_runtime_errors_total"
)

// durationBuckets span a quick failure (about a second) to a run stopped by
// a generous --agent-timeout (30 minutes).
var durationBuckets = []float64{1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900, 1200, 1800}

// Metrics records what kubectl-triage does. The zero value is not usable;
// call New. A nil *Metrics records nothing, so callers need not check whether
// metrics are enabled.
type Metrics struct {
	registry *prometheus.Registry

	invocations   *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	activeAgents  *prometheus.GaugeVec
	workspaceSize *prometheus.GaugeVec
	agentErrors   *prometheus.CounterVec

	watchSources *watchCollector
	check        *agentCheck   // agentcheck.go
	role         func() string // see SetRole
}

// New returns Metrics with their own registry, including the Go runtime and
// process collectors.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		invocations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: InvocationsName,
			Help: "Agent invocations that finished, by cluster and final agent status.",
		}, []string{"cluster", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    DurationName,
			Help:    "Wall-clock duration of agent invocations, by cluster and final agent status.",
			Buckets: durationBuckets,
		}, []string{"cluster", "status"}),
		activeAgents: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: ActiveAgentsName,
			Help: "Agents running now, by cluster.",
		}, []string{"cluster"}),
		workspaceSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: WorkspaceSizeName,
			Help: "Size of the most recently finished investigation's workspace, by cluster.",
		}, []string{"cluster"}),
		agentErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: ErrorsName,
			Help: "Agent invocations that ended in an error, by cluster and error type.",
		}, []string{"cluster", "error_type"}),
		watchSources: newWatchCollector(),
		check:        newAgentCheck(),
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.invocations,
		m.duration,
		m.activeAgents,
		m.workspaceSize,
		m.agentErrors,
		m.watchSources,
	)
	m.registry.MustRegister(m.check.collectors()...)
	return m
}

// AgentStarted counts an agent as running on cluster. Pair every call with
// one AgentFinished.
func (m *Metrics) AgentStarted(cluster string) {
	if m == nil {
		return
	}
	m.activeAgents.WithLabelValues(cluster).Inc()
}

// AgentFinished records an agent run that AgentStarted counted: status is the
// final incident.AgentState (success, failed, timeout, cancelled), d how long
// it ran, workspaceBytes the workspace's size (negative when unknown, which
// leaves the gauge alone) and errorType a short, bounded classification of
// the failure ("" when there was none; never an error message, whose
// cardinality is unbounded).
func (m *Metrics) AgentFinished(cluster, status string, d time.Duration, workspaceBytes int64, errorType string) {
	if m == nil {
		return
	}
	m.activeAgents.WithLabelValues(cluster).Dec()
	m.invocations.WithLabelValues(cluster, status).Inc()
	m.duration.WithLabelValues(cluster, status).Observe(d.Seconds())
	if workspaceBytes >= 0 {
		m.workspaceSize.WithLabelValues(cluster).Set(float64(workspaceBytes))
	}
	if errorType != "" {
		m.agentErrors.WithLabelValues(cluster, errorType).Inc()
	}
}

// Handler serves the registry in the Prometheus exposition formats, and
// counts its own scrapes.
func (m *Metrics) Handler() http.Handler {
	return m.handler(nil)
}

func (m *Metrics) handler(errorLog promhttp.Logger) http.Handler {
	return promhttp.InstrumentMetricHandler(m.registry, promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog: errorLog,
		// A collector that fails should cost its own series, not the scrape.
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.registry,
	}))
}

// NotificationsName counts Slack notifications by result (sent, failed).
const NotificationsName = "kubectl_triage_notifications_total"

// Notifications reports a notifier's delivery counts, read when scraped.
// Call it once, and only when notifications are on.
func (m *Metrics) Notifications(sent, failed func() uint64) {
	if m == nil {
		return
	}
	for result, n := range map[string]func() uint64{"sent": sent, "failed": failed} {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        NotificationsName,
			Help:        "Slack notifications, by result: sent, or failed after every retry.",
			ConstLabels: prometheus.Labels{"result": result},
		}, func() float64 { return float64(n()) }))
	}
}

// Register adds collectors of other packages (leader election's) to the
// private registry.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	if m == nil {
		return nil
	}
	for _, c := range cs {
		if err := m.registry.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// SetRole makes /healthz say which role this replica plays ("leader" or
// "follower") after its "ok"; call it before Serve.
func (m *Metrics) SetRole(role func() string) {
	if m != nil {
		m.role = role
	}
}
