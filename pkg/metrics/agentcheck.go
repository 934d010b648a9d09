package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
)

// What an external agent's runs cost and how their reports held up
// (DESIGN.md §6), by cluster and agent. The agent label is bounded: the
// builtin, the agent definitions, or "command".
const (
	TokensName         = "agent_runtime_tokens_total"
	TurnsName          = "agent_runtime_turns_total"
	ToolCallsName      = "agent_runtime_tool_calls_total"
	ClaimsName         = "agent_runtime_claims_total"
	SecondOpinionsName = "agent_runtime_second_opinions_total"
)

type agentCheck struct {
	tokens, turns, toolCalls, claims, opinions *prometheus.CounterVec
}

func newAgentCheck() *agentCheck {
	return &agentCheck{
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: TokensName,
			Help: "Model tokens of agent CLI runs as the CLIs reported them, by cluster, agent and direction (in, out)."}, []string{"cluster", "agent", "direction"}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: TurnsName,
			Help: "Model turns of agent CLI runs, by cluster and agent."}, []string{"cluster", "agent"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ToolCallsName,
			Help: "Tool calls of agent CLI runs, by cluster, agent and result: allowed (ran), failed (ran and failed), refused (the CLI's policy denied it)."}, []string{"cluster", "agent", "result"}),
		claims: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ClaimsName,
			Help: "Claims of agent CLI reports checked against what the agent read, by cluster, agent and result (verified, unverified)."}, []string{"cluster", "agent", "result"}),
		opinions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: SecondOpinionsName,
			Help: "Agent CLI root causes compared with the builtin investigator's, by cluster, agent and agreement."}, []string{"cluster", "agent", "agreement"}),
	}
}

func (a *agentCheck) collectors() []prometheus.Collector {
	return []prometheus.Collector{a.tokens, a.turns, a.toolCalls, a.claims, a.opinions}
}

// AgentChecked records what an external agent's finished run cost (e
// nil: not reported), its claims (verified, unverified) and its agreement
// with the builtin investigator ("" when there was no comparison).
func (m *Metrics) AgentChecked(cluster, agent string, e *effort.Effort, verified, unverified int, agreement string) {
	if m == nil {
		return
	}
	a := m.check
	if e != nil {
		a.tokens.WithLabelValues(cluster, agent, "in").Add(float64(e.TokensIn))
		a.tokens.WithLabelValues(cluster, agent, "out").Add(float64(e.TokensOut))
		a.turns.WithLabelValues(cluster, agent).Add(float64(e.Turns))
		a.toolCalls.WithLabelValues(cluster, agent, "allowed").Add(float64(e.ToolCalls.Allowed))
		a.toolCalls.WithLabelValues(cluster, agent, "failed").Add(float64(e.ToolCalls.Failed))
		a.toolCalls.WithLabelValues(cluster, agent, "refused").Add(float64(e.ToolCalls.Refused))
	}
	if verified+unverified > 0 {
		a.claims.WithLabelValues(cluster, agent, "verified").Add(float64(verified))
		a.claims.WithLabelValues(cluster, agent, "unverified").Add(float64(unverified))
	}
	if agreement != "" {
		a.opinions.WithLabelValues(cluster, agent, agreement).Inc()
	}
}
