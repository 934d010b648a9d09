package cmd

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

func TestExitCodeFor(t *testing.T) {
	tests := []struct {
		status incident.Status
		reason string
		want   int
	}{
		{incident.Resolved, "", 0},
		{incident.AgentFailed, "missing or invalid investigation report", 3},
		{incident.Failed, "agent exited with code 2", 4},
		{incident.Failed, incident.ReasonTimeout, 5},
		{incident.Failed, incident.ReasonCancelled, 130},
	}
	for _, tt := range tests {
		if got := exitCodeFor(&incident.Incident{Status: tt.status, FailureReason: tt.reason}); got != tt.want {
			t.Errorf("%s/%s: exit %d, want %d", tt.status, tt.reason, got, tt.want)
		}
	}
}

func TestCodeOf(t *testing.T) {
	if got := codeOf(errors.New("plain")); got != ExitError {
		t.Errorf("plain error: %d", got)
	}
	if got := codeOf(fmt.Errorf("wrapped: %w", &exitError{code: ExitTimeout})); got != ExitTimeout {
		t.Errorf("wrapped exitError: %d", got)
	}
}
