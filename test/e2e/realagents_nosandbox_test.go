package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealAgentsNoSandbox: the same definitions work unsandboxed (where
// no sandbox can be made, or with --no-sandbox): HOME is then the workspace
// and each CLI finds its settings and login through its config-dir
// variable.
func TestRealAgentsNoSandbox(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(r *realAgentRun)
	}{
		{"claude", func(r *realAgentRun) {
			r.env = append(r.env, "ANTHROPIC_API_KEY=sk-ant-test-key", "ANTHROPIC_BASE_URL="+r.srv.URL)
		}},
		{"codex", func(r *realAgentRun) {
			r.homeFile(t, ".codex/config.toml", "openai_base_url = \""+r.srv.URL+"/v1\"\n")
			r.env = append(r.env, "CODEX_API_KEY=test-codex-key")
		}},
		{"gemini", func(r *realAgentRun) {
			r.homeFile(t, ".gemini/settings.json", `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
			r.env = append(r.env, "GEMINI_API_KEY=test-gemini-key", "GOOGLE_GEMINI_BASE_URL="+r.srv.URL)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRealAgent(t, "kubectl get pods -n NS")
			tc.setup(r)
			r.run(t, tc.name, "--no-sandbox")
			r.assertResolvedWithQuotedResults(t, "NAME", "CrashLoopBackOff")
			r.assertThroughGateway(t, "pods")
			if !strings.Contains(r.stdout, "without a sandbox") {
				t.Errorf("the report does not say the agent ran unsandboxed:\n%s", r.stdout)
			}
		})
	}
}

// TestRealClaudeIgnoresUserSettings: even where the user's ~/.claude is
// visible (unsandboxed), its settings (which may allow every command, or
// run hooks) do not widen the triage agent's allow-list.
func TestRealClaudeIgnoresUserSettings(t *testing.T) {
	r := startRealAgent(t, "kubectl get pods -n NS", "touch written-by-claude")
	r.homeFile(t, ".claude/settings.json", `{"permissions":{"allow":["Bash"]}}`)
	r.env = append(r.env, "ANTHROPIC_API_KEY=sk-ant-test-key", "ANTHROPIC_BASE_URL="+r.srv.URL)
	r.run(t, "claude", "--no-sandbox")
	r.assertResolvedWithQuotedResults(t, "CrashLoopBackOff")
	r.assertFooter(t, 1, 0, 1)
	if _, err := os.Stat(filepath.Join(r.dir, "written-by-claude")); err == nil {
		t.Errorf("claude ran a command outside its allow-list, allowed by the user's settings")
	}
}
