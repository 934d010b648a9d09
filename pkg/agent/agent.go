// Package agent runs an investigator over a prepared workspace. The builtin
// agent is in-process; exec agents (external AI CLIs) plug in behind the same
// interface.
package agent

import (
	"context"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Run is what an agent gets: the workspace (with context/ already written),
// a copy of the incident, and the bundle for in-process agents.
type Run struct {
	Workspace *workspace.Workspace
	Incident  incident.Incident
	Bundle    *bundle.Bundle
	// Progress reports a step to the user (stderr); never nil.
	Progress func(format string, a ...any)
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
	// Notes are lines for the report's footer: what the reader must know
	// about how the agent ran (its network, its failed tool calls).
	Notes []string
	// ToolCalls counts the agent's tool calls as its stream reported them.
	ToolCalls ToolCalls
}

// Agent investigates one incident and writes output/investigation.md.
type Agent interface {
	Name() string
	// Command is the command line for the incident record (nil in-process).
	Command() []string
	Model() string
	Run(ctx context.Context, r *Run) (*Outcome, error)
}

// Preparer is implemented by agents that need files in the workspace before
// it is committed (instructions where their CLI looks for them).
type Preparer interface {
	Prepare(tmp *workspace.Workspace) error
}

// Sandboxed is implemented by agents that run in (or without) a sandbox;
// the answer goes to incident.json (DESIGN.md §4).
type Sandboxed interface {
	Sandbox() string
}

// ClusterUser is implemented by agents that reach the cluster themselves
// (through the read-only gateway) rather than through the plugin's client.
type ClusterUser interface {
	UsesCluster()
}
