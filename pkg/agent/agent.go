// Package agent runs an investigator over a prepared workspace. The builtin
// agent is in-process; exec agents (external AI CLIs) plug in behind the same
// interface.
package agent

import (
	"context"
	"fmt"
	"sort"
	"strings"

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
}

// Outcome is how the agent ended. A non-zero ExitCode means the agent
// failed; the report's validity is checked by the caller either way.
type Outcome struct {
	ExitCode int
	Signal   string
}

// Agent investigates one incident and writes output/investigation.md.
type Agent interface {
	Name() string
	// Command is the command line for the incident record (nil in-process).
	Command() []string
	Model() string
	Run(ctx context.Context, r *Run) (*Outcome, error)
}

var registry = map[string]func() Agent{
	BuiltinName: func() Agent { return &Builtin{} },
}

// New returns the agent with this name.
func New(name string) (Agent, error) {
	if f, ok := registry[name]; ok {
		return f(), nil
	}
	return nil, fmt.Errorf("unknown agent %q: available agents are %s", name, strings.Join(Names(), ", "))
}

// Names lists the known agents.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
