package triage

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// TestFooterSaysWhatTheSandboxDidNotContain: an agent run in a weaker
// sandbox (bwrap, sandbox-exec: no network namespace) has its report say
// plainly what was not contained, and incident.json records it.
func TestFooterSaysWhatTheSandboxDidNotContain(t *testing.T) {
	const sb = "bwrap (not contained: the network (bwrap shares the host's) and files outside the masked credential paths)"
	got := triageWith(t, setup{caps: agent.Capabilities{Sandbox: sb}},
		func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
			writeFile(t, r, workspace.ReportFile, externalMarkdown)
			return &agent.Outcome{}, nil
		})
	if got.res.Incident.Status != incident.Resolved {
		t.Fatalf("status %s: %s", got.res.Incident.Status, got.res.Incident.FailureReason)
	}
	if got.onDisk.Sandbox != sb {
		t.Errorf("incident.json sandbox %q", got.onDisk.Sandbox)
	}
	want := "sandbox did not contain the network (bwrap shares the host's) and files outside the masked credential paths"
	if !strings.Contains(got.markdown, want) {
		t.Errorf("the report's footer lacks %q:\n%s", want, got.markdown)
	}
}
