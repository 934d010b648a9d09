package agent

import (
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
)

// meter adds up a run's effort from its stream: the usage lines the CLI
// prints and, for a CLI that reports no turn count, the assistant steps
// the stream shows (a run of tool calls or text, up to the next tool
// result).
type meter struct {
	in, out, cachedIn int64
	turns             int // as the CLI reported them; 0: not reported
	steps             int // inferred from the stream
	inStep            bool
	costUSD           float64
	stopped           string
}

func (m *meter) observe(ev streamEvent) {
	if u := ev.Usage; u != nil {
		if u.Total {
			m.in, m.out, m.cachedIn = u.In, u.Out, u.CachedIn
		} else {
			m.in, m.out, m.cachedIn = m.in+u.In, m.out+u.Out, m.cachedIn+u.CachedIn
		}
		if u.Turns > 0 {
			m.turns = u.Turns
		}
		if u.CostUSD > 0 {
			m.costUSD = u.CostUSD
		}
		if u.Stopped != "" {
			m.stopped = u.Stopped
		}
	}
	step := func() {
		if !m.inStep {
			m.steps++
			m.inStep = true
		}
	}
	if ev.Text != "" {
		step()
	}
	for _, te := range ev.Tools {
		if te.Done {
			m.inStep = false
		} else {
			step()
		}
	}
}

// effort is the run's Effort: the meter's figures, the tool calls as
// followed to their results, the wall time and the limits given.
func (m *meter) effort(tc ToolCalls, source string, wall time.Duration, limits effort.Limits) *effort.Effort {
	e := &effort.Effort{
		TokensIn: m.in, TokensOut: m.out, CachedTokensIn: m.cachedIn, Turns: m.turns,
		ToolCalls: effort.ToolCalls{Allowed: tc.Calls - tc.Refused, Failed: tc.Failed - tc.Refused, Refused: tc.Refused},
		CostUSD:   m.costUSD, WallTimeMS: wall.Milliseconds(), Limits: limits, Stopped: m.stopped, Source: source,
	}
	if e.Turns == 0 {
		e.Turns = m.steps
	}
	return e
}
