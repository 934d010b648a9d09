// Package effort is what an agent run cost: tokens in and out, model
// turns, tool calls and wall time, as the agent CLI's own output reported
// them (DESIGN.md §6). The agent runner fills it from the stream, the
// incident records it, and the report footer, `kubectl triage status` and
// the Prometheus metrics show it.
package effort

import (
	"fmt"
	"strings"
	"time"
)

// Effort is one agent run's cost. A zero field is "not reported": a CLI
// that reports no tokens leaves them at zero and Known says so.
type Effort struct {
	// TokensIn counts every input token the model read, cached ones
	// included; CachedTokensIn is the part served from the provider's
	// prompt cache.
	TokensIn       int64 `json:"tokensIn"`
	TokensOut      int64 `json:"tokensOut"`
	CachedTokensIn int64 `json:"cachedTokensIn,omitempty"`
	// Turns are model responses: claude's num_turns; for codex and gemini,
	// which report none, the assistant steps their stream shows (a run of
	// tool calls or a message, up to the next tool result).
	Turns int `json:"turns"`
	// ToolCalls are the calls the model asked for.
	ToolCalls ToolCalls `json:"toolCalls"`
	// CostUSD is the CLI's own estimate of the run's price (claude's
	// total_cost_usd), 0 when it gives none.
	CostUSD float64 `json:"costUsd,omitempty"`
	// WallTimeMS is how long the agent process ran, measured by the runner.
	WallTimeMS int64 `json:"wallTimeMs"`
	// Limits are the turn and budget limits the CLI was given.
	Limits Limits `json:"limits,omitempty"`
	// Stopped says why the CLI stopped early on a limit of its own
	// ("max turns reached"), empty otherwise.
	Stopped string `json:"stopped,omitempty"`
	// Source names the stream dialect the figures were read from.
	Source string `json:"source,omitempty"`
}

// ToolCalls splits the calls: Allowed ran (Failed of them failed: a
// non-zero exit, a request the gateway refused), Refused never ran (the
// CLI's own permission policy denied them). Allowed+Refused is every call.
type ToolCalls struct {
	Allowed int `json:"allowed"`
	Failed  int `json:"failed"`
	Refused int `json:"refused"`
}

// Total is every call the model asked for.
func (t ToolCalls) Total() int { return t.Allowed + t.Refused }

// Limits are a CLI's own limits for the run; zero is "none given".
type Limits struct {
	MaxTurns     int     `json:"maxTurns,omitempty"`
	MaxBudgetUSD float64 `json:"maxBudgetUsd,omitempty"`
}

// WallTime is WallTimeMS as a duration.
func (e *Effort) WallTime() time.Duration { return time.Duration(e.WallTimeMS) * time.Millisecond }

// Known reports whether the CLI reported any figure of its own (tokens or
// turns): a text agent reports none.
func (e *Effort) Known() bool {
	return e != nil && (e.TokensIn > 0 || e.TokensOut > 0 || e.Turns > 0)
}

// String is the one line the report footer and status print, e.g.
// "60570 tokens in, 40 out, 4 turns, 3 tool calls (2 allowed, 0 failed,
// 1 refused), 12.3s".
func (e *Effort) String() string {
	if e == nil {
		return ""
	}
	var parts []string
	if e.Known() {
		tokens := fmt.Sprintf("%d tokens in", e.TokensIn)
		if e.CachedTokensIn > 0 {
			tokens += fmt.Sprintf(" (%d cached)", e.CachedTokensIn)
		}
		parts = append(parts, tokens, fmt.Sprintf("%d out", e.TokensOut), plural(e.Turns, "turn"))
	} else {
		parts = append(parts, "no token or turn figures reported by the CLI")
	}
	t := e.ToolCalls
	parts = append(parts, fmt.Sprintf("%s (%d allowed, %d failed, %d refused)", plural(t.Total(), "tool call"), t.Allowed, t.Failed, t.Refused))
	if e.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("about $%.4f by the CLI's estimate", e.CostUSD))
	}
	parts = append(parts, e.WallTime().Round(100*time.Millisecond).String())
	s := strings.Join(parts, ", ")
	if lim := e.Limits.String(); lim != "" {
		s += " (limits: " + lim + ")"
	}
	if e.Stopped != "" {
		s += "; stopped: " + e.Stopped
	}
	return s
}

// Footer is the report footer's line.
func (e *Effort) Footer() string {
	whose := "the agent CLI's own figures"
	if e.Source != "" {
		whose = "the " + e.Source + " CLI's own figures"
	}
	return "kubectl-triage: effort (" + whose + "): " + e.String() + "."
}

// String is "max 40 turns, max $2.00", "" without limits.
func (l Limits) String() string {
	var parts []string
	if l.MaxTurns > 0 {
		parts = append(parts, fmt.Sprintf("max %d turns", l.MaxTurns))
	}
	if l.MaxBudgetUSD > 0 {
		parts = append(parts, fmt.Sprintf("max $%.2f", l.MaxBudgetUSD))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
