package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealClaude: Claude Code 2.1.328, sandboxed (the default), with an API
// key and ANTHROPIC_BASE_URL at the scripted model on the user's loopback.
func TestRealClaude(t *testing.T) {
	r := startRealAgent(t, "kubectl get pods -n NS", "kubectl logs api -n NS -c app --previous", "touch written-by-claude")
	// The user's own settings allow every command; the triage agent must
	// not inherit that.
	r.homeFile(t, ".claude/settings.json", `{"permissions":{"allow":["Bash"]}}`)
	r.env = append(r.env, "ANTHROPIC_API_KEY=sk-ant-test-key", "ANTHROPIC_BASE_URL="+r.srv.URL)
	r.run(t, "claude", "--require-sandbox")
	r.assertResolvedWithQuotedResults(t, "NAME", "api", "FATAL config: required env DATABASE_URL is empty")
	r.assertThroughGateway(t, "pods", "pods/log")
	// Nothing else was tried: no telemetry, update check or other host.
	if denied := r.deniedEgress(t); len(denied) > 0 {
		t.Errorf("the CLI tried hosts beyond its model API: %v", denied)
	}
	r.assertModelRequests(t)
	r.assertFooter(t, 2, 0, 1)
	if !strings.Contains(r.stderr, "agent: failed: Bash: touch written-by-claude (denied by the CLI's permission policy)") {
		t.Errorf("the touch was not denied:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "written-by-claude")); err == nil {
		t.Errorf("claude ran a command outside its allow-list")
	}
	for _, want := range []string{"agent: Bash: kubectl get pods -n " + r.ns, "agent: finished: success", "sandbox: namespaces"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
	// The key is the model server's, never logged by it.
	for _, e := range r.entries {
		if strings.Contains(string(e.Body), "sk-ant-test-key") {
			t.Errorf("the API key appears in a request body")
		}
	}
}
