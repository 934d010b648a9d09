package agent

import (
	"context"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// BuiltinName is the default agent.
const BuiltinName = report.BuiltinAgent

// Builtin is the deterministic investigator. It runs in-process over the
// bundle the read-only client collected, so it needs no sandbox, no gateway
// and no credentials of its own.
type Builtin struct{}

func (*Builtin) Name() string      { return BuiltinName }
func (*Builtin) Command() []string { return nil }
func (*Builtin) Model() string     { return "" }

// Capabilities: in-process, reading only the bundle; no gateway, no sandbox.
func (*Builtin) Capabilities() Capabilities { return Capabilities{} }

// Prepare needs nothing in the workspace.
func (*Builtin) Prepare(*workspace.Workspace) error { return nil }

// Run investigates and returns the report as data; the engine renders and
// writes output/investigation.md and .json.
func (b *Builtin) Run(ctx context.Context, r *Run) (*Outcome, error) {
	if r.Started != nil {
		r.Started(0)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	rep := investigate.Investigate(r.Bundle, investigate.Options{
		IncidentID: r.Incident.IncidentID,
		Agent:      BuiltinName,
		Severity:   r.Incident.Severity,
		Now:        start,
	})
	rep.Duration = time.Since(r.Incident.CreatedAt)
	if rep.Duration < 0 {
		rep.Duration = time.Since(start)
	}
	return &Outcome{ExitCode: 0, Report: rep}, ctx.Err()
}
