// Package agent runs an investigator over a prepared workspace. The builtin
// agent is in-process; exec agents (external AI CLIs) plug in behind the same
// interface.
package agent

import (
	"context"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Run is what an agent gets: the workspace (with context/ already written),
// a copy of the incident, and the bundle for in-process agents.
type Run struct {
	Workspace *workspace.Workspace
	Incident  incident.Incident
	Bundle    *bundle.Bundle
	// Progress reports a step to the user (stderr); never nil.
	Progress progress.Func
	// Started is called once the agent is running, with its process ID (0
	// for in-process agents).
	Started func(pid int)
	// Gateway is the read-only gateway's loopback host:port when one
	// serves this run: a sandboxed agent's only way to the cluster.
	Gateway string
}

// Outcome is how the agent ended. A non-zero ExitCode means the agent
// failed; the report's validity is checked by the caller either way.
type Outcome struct {
	ExitCode int
	Signal   string
	// Report is the investigation as data, for agents that produce one
	// (the builtin agent). Nil means the agent wrote its report as
	// markdown in output/investigation.md (external agents): the engine
	// parses that file, once, in pkg/triage.
	Report *report.Report
	// Notes are lines for the report's footer: what the reader must know
	// about how the agent ran (its network, its failed tool calls).
	Notes []string
	// ToolCalls counts the agent's tool calls as its stream reported them.
	ToolCalls ToolCalls
	// Effort is what the run cost as the CLI's output reported it (nil for
	// the builtin agent).
	Effort *effort.Effort
}

// Capabilities are what the engine must arrange around an agent, declared
// by the agent rather than discovered by type assertions.
type Capabilities struct {
	// UsesCluster: the agent reaches the cluster itself, through the
	// read-only gateway the engine serves for the run (exec agents). The
	// builtin agent reads the bundle the plugin's own client collected.
	UsesCluster bool
	// Sandbox is how the agent is isolated from the user's credentials,
	// as incident.json records it (DESIGN.md §4): "namespaces", a weaker
	// helper with what it leaves open, or "none: <reason>". Empty for an
	// in-process agent, which no sandbox applies to.
	Sandbox string
}

// Agent investigates one incident and returns its report (as data, or
// written to output/investigation.md).
type Agent interface {
	Name() string
	// Command is the command line for the incident record (nil in-process).
	Command() []string
	Model() string
	Capabilities() Capabilities
	// Prepare writes what the agent needs in the workspace before it is
	// committed (instructions where its CLI looks for them); most agents
	// need nothing.
	Prepare(tmp *workspace.Workspace) error
	Run(ctx context.Context, r *Run) (*Outcome, error)
}
