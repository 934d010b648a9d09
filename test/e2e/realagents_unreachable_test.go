package e2e

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// TestRealAgentsUnreachableModel: with its model endpoint unreachable (a
// loopback port nothing listens on), each real CLI retries on its own (codex
// 0.169 for ever); the run must end as failed with the egress proxy's
// reason long before --timeout.
func TestRealAgentsUnreachableModel(t *testing.T) {
	// A loopback port nothing listens on (one just closed; not port 1:
	// node's fetch, in gemini, refuses the Fetch standard's "bad ports"
	// without connecting, so the egress hub would never see a failure).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name  string
		setup func(r *realAgentRun)
	}{
		{"claude", func(r *realAgentRun) {
			r.env = append(r.env, "ANTHROPIC_API_KEY=sk-ant-test-key", "ANTHROPIC_BASE_URL="+dead)
		}},
		{"codex", func(r *realAgentRun) {
			r.homeFile(t, ".codex/config.toml", "openai_base_url = \""+dead+"/v1\"\n")
			r.env = append(r.env, "CODEX_API_KEY=test-codex-key")
		}},
		{"gemini", func(r *realAgentRun) {
			r.homeFile(t, ".gemini/settings.json", `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
			r.env = append(r.env, "GEMINI_API_KEY=test-gemini-key", "GOOGLE_GEMINI_BASE_URL="+dead)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRealAgent(t, "kubectl get pods -n NS")
			tc.setup(r)
			start := time.Now()
			r.code, r.stdout, r.stderr = runWith(t, r.env, "pod/api", "-n", r.ns, "--agent", tc.name, "--require-sandbox", "--timeout", "5m", "--wait-delay", "5s")
			took := time.Since(start)
			if r.code != 4 {
				t.Fatalf("exit %d after %v, want 4 (failed)\n%s", r.code, took, r.stderr)
			}
			inc := assertWorkspace(t, onlyWorkspace(t, r.root), incident.Failed)
			if !strings.Contains(inc.FailureReason, "could not reach "+strings.TrimPrefix(dead, "http://")) {
				t.Errorf("failure reason %q", inc.FailureReason)
			}
			if took > 2*time.Minute {
				t.Errorf("the run took %v to fail: not bounded by the unreachable model", took)
			}
			t.Logf("%s failed in %v: %s", tc.name, took.Round(time.Second), inc.FailureReason)
		})
	}
}
