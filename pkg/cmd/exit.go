package cmd

import (
	"errors"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// Exit codes (DESIGN.md §4).
const (
	ExitResolved    = 0
	ExitError       = 1 // usage, configuration or cluster error before an incident exists
	ExitAgentFailed = 3
	ExitFailed      = 4
	ExitTimeout     = 5
	ExitCancelled   = 130
)

// exitError carries a process exit code up to Execute.
type exitError struct {
	code int
	err  error // nil when the report or status already said it all
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitCodeFor maps a finished incident to the CLI's exit code.
func exitCodeFor(inc *incident.Incident) int {
	switch inc.Status {
	case incident.Resolved:
		return ExitResolved
	case incident.AgentFailed:
		return ExitAgentFailed
	}
	switch inc.FailureReason {
	case incident.ReasonTimeout:
		return ExitTimeout
	case incident.ReasonCancelled:
		return ExitCancelled
	}
	return ExitFailed
}

func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}
