package cmd

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// TestStatusExternalAgent: status says what an agent CLI's run cost, how
// its claims held up and how its root cause compares with the builtin's.
func TestStatusExternalAgent(t *testing.T) {
	root := fabricate(t, time.Now(), fab{id: idResolved, status: incident.Resolved, age: time.Hour, took: 40 * time.Second, rootCause: "the image tag is wrong", md: true})
	path := filepath.Join(root, idResolved, incident.FileName)
	inc, err := incident.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	inc.Agent.Name = "claude"
	inc.Effort = &effort.Effort{TokensIn: 60570, TokensOut: 40, Turns: 4, ToolCalls: effort.ToolCalls{Allowed: 2, Failed: 1, Refused: 1},
		WallTimeMS: 12300, Limits: effort.Limits{MaxTurns: 40}, Source: "claude"}
	inc.Claims = &incident.Claims{Verified: 3, Unverified: 1, Capped: true}
	inc.SecondOpinion = &incident.SecondOpinion{BuiltinRootCause: "env DATABASE_URL is empty", Agreement: incident.Differ, Basis: "the agent refuted the builtin investigator's findings", Hinted: true}
	if err := incident.Save(path, inc); err != nil {
		t.Fatal(err)
	}
	r := run(t, "status", "0f8fad5b", "--workspace-root", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := fields(r.stdout)
	for k, want := range map[string]string{
		"Effort":         "60570 tokens in, 40 out, 4 turns, 3 tool calls (2 allowed, 1 failed, 1 refused), 12.3s (limits: max 40 turns)",
		"Claims":         "3 verified, 1 unverified against what the agent read (the root cause rests only on unverified ones: capped at speculation)",
		"Second opinion": `differ: the builtin investigator's root cause is "env DATABASE_URL is empty" (the agent refuted the builtin investigator's findings)`,
	} {
		if got[k] != want {
			t.Errorf("status %s = %q, want %q\n%s", k, got[k], want, r.stdout)
		}
	}
}
