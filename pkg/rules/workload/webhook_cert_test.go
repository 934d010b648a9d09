package workload

import (
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestWebhookCertificate: a webhook call refused by TLS verification is
// the webhook's certificate (expired: https://github.com/notmattlucas/auto-tracing-webhook/issues/1;
// unknown authority: a caBundle that does not match), not an outage; a
// refused connection is left as it is.
func TestWebhookCertificate(t *testing.T) {
	for _, tt := range []struct {
		name, why string
		want      string
	}{
		{"expired", `Post https://auto-tracing-mutating-webhook.default.svc:443/decorate?timeout=30s: x509: certificate has expired or is not yet valid`, "x509: certificate has expired or is not yet valid"},
		{"unknown authority", `Post "https://kyverno-svc.kyverno.svc:443/mutate?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`, "x509: certificate signed by unknown authority"},
		{"refused", `Post "https://kyverno-svc.kyverno.svc:443/mutate?timeout=10s": dial tcp 10.96.10.2:443: connect: connection refused`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := rule.Finding{Category: rule.FailedCreate.Sub("Webhook"), Culprit: "admission webhook x backend"}
			webhookCertificate(&f, "pods", "x", tt.why, "backend service default/x")
			got := strings.HasSuffix(string(f.Category), "/Certificate")
			if got != (tt.want != "") || tt.want != "" && !strings.Contains(f.Culprit, tt.want) {
				t.Errorf("category %s culprit %q, want certificate %q", f.Category, f.Culprit, tt.want)
			}
		})
	}
}
