package metrics

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

type agentRun struct {
	cluster, status string
	duration        time.Duration
	workspaceBytes  int64
	errorType       string
}

func TestAgentMetrics(t *testing.T) {
	tests := []struct {
		name     string
		started  []string   // clusters whose agents started
		finished []agentRun // runs that then finished
		want     string
		names    []string
	}{
		{
			name:    "running agents per cluster",
			started: []string{"prod", "prod", "staging"},
			want: `
# HELP agent_runtime_active_agents Agents running now, by cluster.
# TYPE agent_runtime_active_agents gauge
agent_runtime_active_agents{cluster="prod"} 2
agent_runtime_active_agents{cluster="staging"} 1
`,
			names: []string{ActiveAgentsName, InvocationsName, ErrorsName, WorkspaceSizeName},
		},
		{
			name:    "success and failure",
			started: []string{"prod", "prod", "prod"},
			finished: []agentRun{
				{cluster: "prod", status: "success", duration: 90 * time.Second, workspaceBytes: 4096},
				{cluster: "prod", status: "timeout", duration: 30 * time.Minute, workspaceBytes: 1 << 20, errorType: "timeout"},
			},
			want: `
# HELP agent_runtime_active_agents Agents running now, by cluster.
# TYPE agent_runtime_active_agents gauge
agent_runtime_active_agents{cluster="prod"} 1
# HELP agent_runtime_errors_total Agent invocations that ended in an error, by cluster and error type.
# TYPE agent_runtime_errors_total counter
agent_runtime_errors_total{cluster="prod",error_type="timeout"} 1
# HELP agent_runtime_invocations_total Agent invocations that finished, by cluster and final agent status.
# TYPE agent_runtime_invocations_total counter
agent_runtime_invocations_total{cluster="prod",status="success"} 1
agent_runtime_invocations_total{cluster="prod",status="timeout"} 1
# HELP agent_runtime_workspace_size_bytes Size of the most recently finished investigation's workspace, by cluster.
# TYPE agent_runtime_workspace_size_bytes gauge
agent_runtime_workspace_size_bytes{cluster="prod"} 1.048576e+06
`,
			names: []string{ActiveAgentsName, InvocationsName, ErrorsName, WorkspaceSizeName},
		},
		{
			name:     "unknown workspace size leaves the gauge alone",
			started:  []string{"prod", "prod"},
			finished: []agentRun{{cluster: "prod", status: "success", workspaceBytes: 100}, {cluster: "prod", status: "failed", workspaceBytes: -1, errorType: "exit_code"}},
			want: `
# HELP agent_runtime_workspace_size_bytes Size of the most recently finished investigation's workspace, by cluster.
# TYPE agent_runtime_workspace_size_bytes gauge
agent_runtime_workspace_size_bytes{cluster="prod"} 100
`,
			names: []string{WorkspaceSizeName},
		},
		{
			name:     "duration histogram",
			started:  []string{"prod", "prod"},
			finished: []agentRun{{cluster: "prod", status: "success", duration: 3 * time.Second}, {cluster: "prod", status: "success", duration: 20 * time.Minute}},
			want: `
# HELP agent_runtime_duration_seconds Wall-clock duration of agent invocations, by cluster and final agent status.
# TYPE agent_runtime_duration_seconds histogram
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="1"} 0
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="2.5"} 0
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="5"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="10"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="30"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="60"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="120"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="300"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="600"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="900"} 1
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="1200"} 2
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="1800"} 2
agent_runtime_duration_seconds_bucket{cluster="prod",status="success",le="+Inf"} 2
agent_runtime_duration_seconds_sum{cluster="prod",status="success"} 1203
agent_runtime_duration_seconds_count{cluster="prod",status="success"} 2
`,
			names: []string{DurationName},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			for _, cluster := range tt.started {
				m.AgentStarted(cluster)
			}
			for _, r := range tt.finished {
				m.AgentFinished(r.cluster, r.status, r.duration, r.workspaceBytes, r.errorType)
			}
			if err := testutil.GatherAndCompare(m.registry, strings.NewReader(tt.want), tt.names...); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestAgentFinishedWithoutErrorTypeCountsNoError(t *testing.T) {
	m := New()
	m.AgentStarted("prod")
	m.AgentFinished("prod", "success", time.Second, 0, "")
	if n := testutil.CollectAndCount(m.agentErrors); n != 0 {
		t.Errorf("%s has %d series after a run without an error, want 0", ErrorsName, n)
	}
	if got := testutil.ToFloat64(m.activeAgents.WithLabelValues("prod")); got != 0 {
		t.Errorf("%s = %v after the only agent finished, want 0", ActiveAgentsName, got)
	}
}

func TestNilMetricsRecordNothing(t *testing.T) {
	var m *Metrics
	// Must not panic: callers use a nil *Metrics when --metrics-addr is unset.
	m.AgentStarted("prod")
	m.AgentFinished("prod", "success", time.Second, 1, "timeout")
	m.WatchSource("prod", &watch.Counters{}, nil, nil, nil)
}

func TestWatchSourceReadsLiveValues(t *testing.T) {
	m := New()
	counters := &watch.Counters{}
	depth := 0
	var reconnects, handoffDrops uint64
	m.WatchSource("prod", counters, func() int { return depth }, func() uint64 { return reconnects }, func() uint64 { return handoffDrops })

	scrape := func(received, parseErrors, subscriptionErrors, filtered, deduplicated, dropped, enqueued, depth, reconnects, handoffDrops string) string {
		return `
# HELP kubectl_triage_events_received_total Fault notifications received from the source.
# TYPE kubectl_triage_events_received_total counter
kubectl_triage_events_received_total{cluster="prod"} ` + received + `
# HELP kubectl_triage_events_parse_errors_total Notifications skipped because they were not a usable fault event.
# TYPE kubectl_triage_events_parse_errors_total counter
kubectl_triage_events_parse_errors_total{cluster="prod"} ` + parseErrors + `
# HELP kubectl_triage_subscription_errors_total subscription_error notifications received from the source.
# TYPE kubectl_triage_subscription_errors_total counter
kubectl_triage_subscription_errors_total{cluster="prod"} ` + subscriptionErrors + `
# HELP kubectl_triage_events_filtered_total Fault events skipped by the filter: below --min-severity, or outside the namespace of -n (the log line of each says which).
# TYPE kubectl_triage_events_filtered_total counter
kubectl_triage_events_filtered_total{cluster="prod"} ` + filtered + `
# HELP kubectl_triage_events_deduplicated_total Fault events skipped as repeats within --dedup-window.
# TYPE kubectl_triage_events_deduplicated_total counter
kubectl_triage_events_deduplicated_total{cluster="prod"} ` + deduplicated + `
# HELP kubectl_triage_events_dropped_total Fault events lost to a full queue.
# TYPE kubectl_triage_events_dropped_total counter
kubectl_triage_events_dropped_total{cluster="prod"} ` + dropped + `
# HELP kubectl_triage_events_enqueued_total Fault events queued for investigation.
# TYPE kubectl_triage_events_enqueued_total counter
kubectl_triage_events_enqueued_total{cluster="prod"} ` + enqueued + `
# HELP kubectl_triage_queue_depth Fault events waiting for an agent.
# TYPE kubectl_triage_queue_depth gauge
kubectl_triage_queue_depth{cluster="prod"} ` + depth + `
# HELP kubectl_triage_mcp_reconnects_total Reconnections to the MCP server after a lost subscription.
# TYPE kubectl_triage_mcp_reconnects_total counter
kubectl_triage_mcp_reconnects_total{cluster="prod"} ` + reconnects + `
# HELP kubectl_triage_handoff_dropped_total Fault events lost between the source and the pipeline.
# TYPE kubectl_triage_handoff_dropped_total counter
kubectl_triage_handoff_dropped_total{cluster="prod"} ` + handoffDrops + `
`
	}

	if err := testutil.GatherAndCompare(m.registry, strings.NewReader(scrape("0", "0", "0", "0", "0", "0", "0", "0", "0", "0")), watchMetricNames...); err != nil {
		t.Fatalf("first scrape: %v", err)
	}

	counters.Received.Add(10)
	counters.ParseErrors.Add(1)
	counters.SubscriptionErrors.Add(2)
	counters.Filtered.Add(3)
	counters.Deduplicated.Add(4)
	counters.Dropped.Add(5)
	counters.Enqueued.Add(6)
	depth, reconnects, handoffDrops = 7, 8, 9
	if err := testutil.GatherAndCompare(m.registry, strings.NewReader(scrape("10", "1", "2", "3", "4", "5", "6", "7", "8", "9")), watchMetricNames...); err != nil {
		t.Fatalf("after the counters moved: %v", err)
	}
}

var watchMetricNames = []string{
	"kubectl_triage_events_received_total", "kubectl_triage_events_parse_errors_total",
	"kubectl_triage_subscription_errors_total", "kubectl_triage_events_filtered_total",
	"kubectl_triage_events_deduplicated_total", "kubectl_triage_events_dropped_total",
	"kubectl_triage_events_enqueued_total", "kubectl_triage_queue_depth",
	"kubectl_triage_mcp_reconnects_total", "kubectl_triage_handoff_dropped_total",
}

func TestWatchSourceSeries(t *testing.T) {
	one := func() uint64 { return 1 }
	tests := []struct {
		name     string
		register func(m *Metrics)
		want     map[string]int // series per metric name; absent means 0
	}{
		{
			name:     "no sources",
			register: func(*Metrics) {},
			want:     map[string]int{},
		},
		{
			name: "cluster source without queue, reconnects or handoff",
			register: func(m *Metrics) {
				m.WatchSource("prod", &watch.Counters{}, nil, nil, nil)
			},
			want: map[string]int{
				"kubectl_triage_events_received_total": 1, "kubectl_triage_events_parse_errors_total": 1,
				"kubectl_triage_subscription_errors_total": 1, "kubectl_triage_events_filtered_total": 1,
				"kubectl_triage_events_deduplicated_total": 1, "kubectl_triage_events_dropped_total": 1,
				"kubectl_triage_events_enqueued_total": 1,
			},
		},
		{
			name: "funcs without counters",
			register: func(m *Metrics) {
				m.WatchSource("prod", nil, func() int { return 0 }, one, nil)
			},
			want: map[string]int{"kubectl_triage_queue_depth": 1, "kubectl_triage_mcp_reconnects_total": 1},
		},
		{
			name: "two clusters",
			register: func(m *Metrics) {
				m.WatchSource("prod", nil, nil, one, nil)
				m.WatchSource("staging", nil, nil, one, one)
			},
			want: map[string]int{"kubectl_triage_mcp_reconnects_total": 2, "kubectl_triage_handoff_dropped_total": 1},
		},
		{
			name: "same cluster again replaces the source",
			register: func(m *Metrics) {
				m.WatchSource("prod", nil, nil, one, one)
				m.WatchSource("prod", nil, nil, one, nil)
			},
			want: map[string]int{"kubectl_triage_mcp_reconnects_total": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			tt.register(m)
			for _, name := range watchMetricNames {
				n, err := testutil.GatherAndCount(m.registry, name)
				if err != nil {
					t.Fatalf("gather: %v", err)
				}
				if n != tt.want[name] {
					t.Errorf("%s has %d series, want %d", name, n, tt.want[name])
				}
			}
		})
	}
}

func TestExpositionLint(t *testing.T) {
	m := New()
	m.AgentStarted("prod")
	m.AgentFinished("prod", "failed", time.Minute, 10, "exit_code")
	m.AgentStarted("prod")
	one := func() uint64 { return 1 }
	m.WatchSource("prod", &watch.Counters{}, func() int { return 1 }, one, one)

	problems, err := testutil.GatherAndLint(m.registry)
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

func TestNotifications(t *testing.T) {
	m := New()
	var sent, failed atomic.Uint64
	m.Notifications(sent.Load, failed.Load)
	sent.Add(3)
	failed.Add(1)
	want := `
# HELP kubectl_triage_notifications_total Slack notifications, by result: sent, or failed after every retry.
# TYPE kubectl_triage_notifications_total counter
kubectl_triage_notifications_total{result="failed"} 1
kubectl_triage_notifications_total{result="sent"} 3
`
	if err := testutil.GatherAndCompare(m.registry, strings.NewReader(want), NotificationsName); err != nil {
		t.Error(err)
	}
	var nilMetrics *Metrics
	nilMetrics.Notifications(sent.Load, failed.Load) // no panic
}

// TestAgentChecked: an agent CLI's effort, claims and second opinion add
// up per cluster and agent.
func TestAgentChecked(t *testing.T) {
	m := New()
	e := &effort.Effort{TokensIn: 1000, TokensOut: 40, Turns: 4, ToolCalls: effort.ToolCalls{Allowed: 2, Failed: 1, Refused: 1}}
	m.AgentChecked("prod", "claude", e, 3, 1, "differ")
	m.AgentChecked("prod", "claude", e, 0, 0, "agree")
	m.AgentChecked("prod", "codex", nil, 0, 2, "")
	var nilMetrics *Metrics
	nilMetrics.AgentChecked("prod", "claude", e, 1, 1, "agree") // records nothing, does not panic
	want := `
# HELP agent_runtime_claims_total Claims of agent CLI reports checked against what the agent read, by cluster, agent and result (verified, unverified).
# TYPE agent_runtime_claims_total counter
agent_runtime_claims_total{agent="claude",cluster="prod",result="unverified"} 1
agent_runtime_claims_total{agent="claude",cluster="prod",result="verified"} 3
agent_runtime_claims_total{agent="codex",cluster="prod",result="unverified"} 2
agent_runtime_claims_total{agent="codex",cluster="prod",result="verified"} 0
# HELP agent_runtime_second_opinions_total Agent CLI root causes compared with the builtin investigator's, by cluster, agent and agreement.
# TYPE agent_runtime_second_opinions_total counter
agent_runtime_second_opinions_total{agent="claude",agreement="agree",cluster="prod"} 1
agent_runtime_second_opinions_total{agent="claude",agreement="differ",cluster="prod"} 1
# HELP agent_runtime_tokens_total Model tokens of agent CLI runs as the CLIs reported them, by cluster, agent and direction (in, out).
# TYPE agent_runtime_tokens_total counter
agent_runtime_tokens_total{agent="claude",cluster="prod",direction="in"} 2000
agent_runtime_tokens_total{agent="claude",cluster="prod",direction="out"} 80
# HELP agent_runtime_tool_calls_total Tool calls of agent CLI runs, by cluster, agent and result: allowed (ran), failed (ran and failed), refused (the CLI's policy denied it).
# TYPE agent_runtime_tool_calls_total counter
agent_runtime_tool_calls_total{agent="claude",cluster="prod",result="allowed"} 4
agent_runtime_tool_calls_total{agent="claude",cluster="prod",result="failed"} 2
agent_runtime_tool_calls_total{agent="claude",cluster="prod",result="refused"} 2
# HELP agent_runtime_turns_total Model turns of agent CLI runs, by cluster and agent.
# TYPE agent_runtime_turns_total counter
agent_runtime_turns_total{agent="claude",cluster="prod"} 8
`
	if err := testutil.GatherAndCompare(m.registry, strings.NewReader(want), TokensName, TurnsName, ToolCallsName, ClaimsName, SecondOpinionsName); err != nil {
		t.Error(err)
	}
}
