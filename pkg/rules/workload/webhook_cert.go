package workload

import (
	"fmt"
	"regexp"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// webhookX509 is Go's TLS verification refusing the certificate a webhook
// served: the call reached a backend that answered, so the backend is up
// and its certificate (or the caBundle the API server checks it with) is
// the fault (https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#contacting-the-webhook).
var webhookX509 = regexp.MustCompile(`x509: (certificate has expired or is not yet valid[^"]*|certificate signed by unknown authority[^"]*|certificate is valid for [^"]*|cannot validate certificate for [^"]*)`)

// webhookCertificate refines an unreachable webhook whose call failed on
// its certificate.
func webhookCertificate(f *rule.Finding, what, hook, why, backend string) {
	m := webhookX509.FindStringSubmatch(why)
	if m == nil {
		return
	}
	cert := "x509: " + m[1]
	f.Category = f.Category.Sub("Certificate")
	f.Title = fmt.Sprintf("%s cannot be created: admission webhook %q answers with a certificate the API server rejects (%s), and fails closed", what, hook, cert)
	f.Hypothesis = fmt.Sprintf("The serving certificate of admission webhook %s is not accepted by the API server (%s)", hook, cert)
	f.Culprit = fmt.Sprintf("serving certificate of admission webhook %s (%s): %s", hook, backend, cert)
	f.Contributing = append(f.Contributing, "The API server reached the webhook's backend: it is up. The TLS handshake failed on its certificate: an expired one (a self-signed certificate generated once at install), one signed by a CA other than the webhook configuration's caBundle, or one issued for another name.")
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Renew the serving certificate of webhook %s (its Secret, then restart its pods) and update the caBundle of its webhook configuration to the CA that signed it; cert-manager's CA injector keeps both current.", hook),
		Commands:    []string{"kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations -o custom-columns=NAME:.metadata.name,WEBHOOKS:.webhooks[*].name"},
		Risk:        "objects the webhook intercepts are refused until the new certificate is served"}}, f.Actions...)
}
