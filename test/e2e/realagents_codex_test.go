package e2e

import (
	"strings"
	"testing"
)

// TestRealCodex: Codex CLI 0.169.0 with an API key; 0.169 reads its base
// URL only from ~/.codex/config.toml (openai_base_url), which the user's
// home holds and the sandbox's home copies. Its own read-only sandbox runs
// every command except the kubectl verbs its rules allow: the touch fails
// (read-only file system), the kubectl reads reach the cluster.
func TestRealCodex(t *testing.T) {
	r := startRealAgent(t, "kubectl get pods -n NS", "kubectl logs api -n NS -c app --previous", "touch written-by-codex")
	r.homeFile(t, ".codex/config.toml", "openai_base_url = \""+r.srv.URL+"/v1\"\n")
	r.env = append(r.env, "CODEX_API_KEY=test-codex-key")
	r.run(t, "codex", "--require-sandbox")
	r.assertResolvedWithQuotedResults(t, "NAME", "api", "FATAL config: required env DATABASE_URL is empty", "Read-only file system")
	r.assertThroughGateway(t, "pods", "pods/log")
	// codex's default model works in code mode: one exec tool whose
	// JavaScript calls nested tools, apply_patch among them; its read-only
	// sandbox refuses the write (the touch above shows it).
	// Nothing else was tried: no telemetry, update check or other host.
	if denied := r.deniedEgress(t); len(denied) > 0 {
		t.Errorf("the CLI tried hosts beyond its model API: %v", denied)
	}
	r.assertModelRequests(t, "apply_patch")
	for _, want := range []string{"agent: shell: /bin/bash -lc 'kubectl get pods -n " + r.ns + "'", "sandbox: namespaces"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
}
