package cmd

import (
	"errors"

	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
)

// Exit codes (DESIGN.md §4): the engine's (pkg/triage), where the state
// machine they end is tested.
const (
	ExitResolved    = triage.ExitResolved
	ExitError       = triage.ExitError
	ExitAgentFailed = triage.ExitAgentFailed
	ExitFailed      = triage.ExitFailed
	ExitTimeout     = triage.ExitTimeout
	ExitCancelled   = triage.ExitCancelled
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

func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}
