package e2e

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRealGemini: Gemini CLI 0.61.0, sandboxed, with an API key and
// GOOGLE_GEMINI_BASE_URL at the scripted model on the user's loopback. With
// a base URL set, 0.61 needs the auth type selected in its settings (the
// environment alone selects "gateway", which it rejects): the user's
// ~/.gemini/settings.json, copied into the sandbox's home, says so.
func TestRealGemini(t *testing.T) {
	r := startRealAgent(t, "kubectl get pods -n NS", "kubectl logs api -n NS -c app --previous", "kubectl delete pod api -n NS")
	// The user's own settings allow every shell command; the triage
	// agent must not inherit that.
	r.homeFile(t, ".gemini/settings.json", `{"security":{"auth":{"selectedType":"gemini-api-key"}},"tools":{"allowed":["run_shell_command"]}}`)
	r.env = append(r.env, "GEMINI_API_KEY=test-gemini-key", "GOOGLE_GEMINI_BASE_URL="+r.srv.URL)
	r.run(t, "gemini", "--require-sandbox")
	r.assertResolvedWithQuotedResults(t, "NAME", "api", "FATAL config: required env DATABASE_URL is empty", "denied by policy")
	r.assertThroughGateway(t, "pods", "pods/log")
	// Nothing else was tried but its usage statistics (play.googleapis.com,
	// off only through privacy.usageStatisticsEnabled in the user's
	// settings), refused by the egress proxy and audited.
	for _, h := range r.deniedEgress(t) {
		if h != "play.googleapis.com:443" {
			t.Errorf("the CLI tried a host beyond its model API: %s", h)
		}
	}
	r.assertModelRequests(t)
	// The delete is outside the policy's read-only verbs: denied by the
	// CLI, shown as failed and counted.
	r.assertFooter(t, 2, 0, 1)
	for _, want := range []string{"agent: run_shell_command: kubectl get pods -n " + r.ns, "agent: failed: run_shell_command: kubectl delete pod api -n " + r.ns + " (denied by the CLI's policy)", "sandbox: namespaces"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
	if pod, err := r.c.Client.CoreV1().Pods(r.ns).Get(context.Background(), "api", metav1.GetOptions{}); err != nil || pod.DeletionTimestamp != nil {
		t.Errorf("the pod did not survive: %v", err)
	}
}
