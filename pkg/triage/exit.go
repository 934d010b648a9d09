package triage

import "github.com/kubectl-triage/kubectl-triage/pkg/incident"

// Exit codes of the CLI (DESIGN.md §4). They are the engine's because they
// are how its state machine ends: every final incident maps to exactly one.
const (
	ExitResolved    = 0
	ExitError       = 1 // usage, configuration or cluster error before an incident exists
	ExitAgentFailed = 3
	ExitFailed      = 4
	ExitTimeout     = 5
	ExitCancelled   = 130
)

// ExitCode maps an incident's outcome to the exit code: resolved 0,
// agent_failed 3, failed 4 (timeout 5, cancelled 130). An interrupted
// incident (its process died, see incident.MarkInterrupted) is failed; one
// still investigating has no outcome yet and counts as failed too, since a
// command that ends with it did not finish it.
func ExitCode(inc *incident.Incident) int {
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
