package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// BuiltinName is the default agent.
const BuiltinName = "builtin"

// Builtin is the deterministic investigator. It runs in-process over the
// bundle the read-only client collected, so it needs no sandbox, no gateway
// and no credentials of its own.
type Builtin struct{}

func (*Builtin) Name() string      { return BuiltinName }
func (*Builtin) Command() []string { return nil }
func (*Builtin) Model() string     { return "" }

// Run investigates and writes output/investigation.md and .json.
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
	md := rep.Markdown()
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	if err := atomicfile.Write(r.Workspace.MustPath(workspace.ReportJSONFile), append(data, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	if err := atomicfile.Write(r.Workspace.MustPath(workspace.ReportFile), []byte(md), 0o600); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	return &Outcome{ExitCode: 0}, ctx.Err()
}
