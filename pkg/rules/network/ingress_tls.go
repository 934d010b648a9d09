package network

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// IngressTLS is the rule network/ingress-tls.
var IngressTLS = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/ingress-tls",
		Kinds: []string{"Ingress"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Events, rule.TLSSecrets},
		Doc:   "An Ingress whose spec.tls secretName does not exist in its namespace (a read of its table row found none, or a controller's event says so): the host is served with the controller's default certificate, or not over TLS at all.",
	},
	Check: checkIngressTLS,
}

// TLSSecret is one spec.tls entry of an Ingress that names a Secret.
type TLSSecret struct {
	Name  string
	Hosts []string
	Field string // ".spec.tls[0].secretName"
}

// TLSSecretsOf lists the Secrets an Ingress's TLS entries name (an entry
// without secretName asks for the controller's default certificate).
func TLSSecretsOf(ing *networkingv1.Ingress) []TLSSecret {
	var out []TLSSecret
	for i, t := range ing.Spec.TLS {
		if t.SecretName != "" {
			out = append(out, TLSSecret{Name: t.SecretName, Hosts: t.Hosts, Field: fmt.Sprintf(".spec.tls[%d].secretName", i)})
		}
	}
	return out
}

// secretAbsent is how controllers word a Secret they could not find, in
// the events they attach to the Ingress: NGINX Inc's "secret doesn't exist
// or of an unsupported type", ingress-gce's `secret "x" does not exist`,
// client-go's `secrets "x" not found`.
var secretAbsent = regexp.MustCompile(`(?i)(doesn't|does not|do not|don't) exist|not found|could not find|cannot find|no such secret|missing`)

// TLSSecretMissingEvent is the latest event about ing that names secret
// (bare or as namespace/name) as absent, or nil: the proof when the
// read of the Secret's table row was not made or refused (RBAC).
func TLSSecretMissingEvent(c *rule.Pass, ing *networkingv1.Ingress, secret string) *corev1.Event {
	name := regexp.MustCompile(`(^|[^A-Za-z0-9.-])(` + regexp.QuoteMeta(ing.Namespace) + `/)?` + regexp.QuoteMeta(secret) + `($|[^A-Za-z0-9.-])`)
	var found *corev1.Event
	for _, e := range c.B.EventsFor(string(ing.UID)) {
		if name.MatchString(e.Message) && secretAbsent.MatchString(e.Message) {
			e := e
			found = &e
		}
	}
	return found
}

// TLSSecretAbsent is how Secret s of ing is known not to exist: the
// read of its table row found none (byRead), or a controller's event says so.
func TLSSecretAbsent(c *rule.Pass, ing *networkingv1.Ingress, secret string) (byRead bool, e *corev1.Event) {
	if c.B.IsMissing("Secret", ing.Namespace, secret) {
		return true, nil
	}
	return false, TLSSecretMissingEvent(c, ing, secret)
}

func checkIngressTLS(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	ns := "-n " + ing.Namespace
	for _, s := range TLSSecretsOf(ing) {
		byRead, e := TLSSecretAbsent(c, ing, s.Name)
		if !byRead && e == nil {
			continue
		}
		hosts := kube.ValueOr(strings.Join(s.Hosts, ", "), "every host")
		spec := c.Evidence(fmt.Sprintf("Ingress %s has %s %q for %s", ing.Name, s.Field, s.Name, hosts), "ingress/"+ing.Name+" "+s.Field,
			fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{.spec.tls}'", ing.Name, ns))
		var proof, told, culprit string
		conf := rule.Strong
		if byRead {
			proof = c.Evidence(fmt.Sprintf("Secret %s not found in namespace %s (a read of its table row; the Secret itself is never read)", s.Name, ing.Namespace), "secret/"+s.Name,
				fmt.Sprintf("kubectl get secret %s %s", s.Name, ns))
			told, culprit, conf = fmt.Sprintf("no Secret of that name exists in namespace %s", ing.Namespace), "not found in namespace "+ing.Namespace, rule.Definitive
		} else {
			proof = kube.EventEvidence(c, *e)
			told, culprit = fmt.Sprintf("its controller reports that Secret does not exist (%s %s)", e.Reason, e.Source.Component), "not found in namespace "+ing.Namespace+", per the controller's event"
		}
		return []rule.Finding{{
			Category: rule.Ingress.Sub("TLS", "SecretMissing"), Verdict: report.Validated, Confidence: conf,
			Hypothesis: fmt.Sprintf("Ingress %s cannot terminate TLS for %s: its TLS Secret %s does not exist", ing.Name, hosts, s.Name),
			Evidence:   []string{spec, proof},
			Current:    true, Strength: rule.Explained, Subject: ing.Name,
			Title:     fmt.Sprintf("ingress %s names TLS secret %s, which does not exist", ing.Name, s.Name),
			Summary:   fmt.Sprintf("Ingress %s asks for the certificate in Secret %s for %s, and %s. Clients get the controller's default (self-signed) certificate, or no TLS server for the host.", ing.Name, s.Name, hosts, told),
			Mechanism: "An ingress controller loads each spec.tls secretName from the Ingress's own namespace; when the Secret is absent (or not of type kubernetes.io/tls) it falls back to its default certificate or skips TLS for those hosts, and only its event or log says so.",
			Culprit:   fmt.Sprintf("ingress/%s %s %q for %s (%s)", ing.Name, s.Field, s.Name, hosts, culprit),
			Actions: []report.Action{{Kind: report.Immediate,
				Description: "Create the TLS Secret in the Ingress's namespace (or point secretName at the one that exists); if cert-manager issues it, check its Certificate.",
				Commands: []string{
					fmt.Sprintf("kubectl get secret %s %s", s.Name, ns),
					fmt.Sprintf("kubectl get certificates.cert-manager.io %s -o wide", ns),
					fmt.Sprintf("kubectl create secret tls %s %s --cert=<cert.pem> --key=<key.pem>", s.Name, ns)},
				Risk: "the controller serves the new certificate at once"}},
		}}
	}
	if sp, ok := SplitTLSOf(ing); ok {
		return []rule.Finding{splitTLSFinding(c, ing, sp)}
	}
	return nil
}

// SplitTLS is a host that a spec.tls entry lists without a secretName
// while another entry names a Secret for no host: written as two entries
// where one was meant, the host gets the controller's default
// certificate and the Secret serves nothing.
type SplitTLS struct {
	Host, HostField     string
	Secret, SecretField string
}

// SplitTLSOf finds the first such pair.
func SplitTLSOf(ing *networkingv1.Ingress) (SplitTLS, bool) {
	for i, t := range ing.Spec.TLS {
		if t.SecretName != "" || len(t.Hosts) == 0 {
			continue
		}
		for j, u := range ing.Spec.TLS {
			if u.SecretName != "" && len(u.Hosts) == 0 {
				return SplitTLS{Host: t.Hosts[0], HostField: fmt.Sprintf(".spec.tls[%d]", i), Secret: u.SecretName, SecretField: fmt.Sprintf(".spec.tls[%d]", j)}, true
			}
		}
	}
	return SplitTLS{}, false
}

func splitTLSFinding(c *rule.Pass, ing *networkingv1.Ingress, sp SplitTLS) rule.Finding {
	ns := "-n " + ing.Namespace
	ev := c.Evidence(fmt.Sprintf("Ingress %s %s lists host %s without a secretName; %s names secret %s for no host", ing.Name, sp.HostField, sp.Host, sp.SecretField, sp.Secret),
		"ingress/"+ing.Name+" .spec.tls", fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{.spec.tls}'", ing.Name, ns))
	return rule.Finding{
		Category: rule.Ingress.Sub("TLS", "HostWithoutSecret"), Verdict: report.Validated, Confidence: rule.Strong, Evidence: []string{ev},
		Current: true, Strength: rule.Explained, Subject: ing.Name,
		Hypothesis: fmt.Sprintf("Host %s of Ingress %s has no certificate: its TLS entry names no secret, and secret %s is in an entry for no host", sp.Host, ing.Name, sp.Secret),
		Title:      fmt.Sprintf("ingress %s serves %s with the controller's default certificate: %s lists the host without a secretName and %s names secret %s for no host", ing.Name, sp.Host, sp.HostField, sp.SecretField, sp.Secret),
		Summary:    fmt.Sprintf("Each spec.tls entry pairs hosts with the Secret that holds their certificate. Ingress %s has host %s in an entry without a secretName and secret %s in an entry without hosts, so the controller gives %s its default (self-signed) certificate and uses %s for nothing.", ing.Name, sp.Host, sp.Secret, sp.Host, sp.Secret),
		Mechanism:  "A controller takes a TLS host's certificate from the secretName of the entry that lists it; an entry with no secretName means the default certificate, and an entry with no hosts is matched to none of the rules' hosts.",
		Culprit:    fmt.Sprintf("ingress/%s %s host %s has no secretName; secret %s sits in %s with no hosts", ing.Name, sp.HostField, sp.Host, sp.Secret, sp.SecretField),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Make it one entry: hosts [%s] with secretName %s.", sp.Host, sp.Secret),
			Commands:    []string{fmt.Sprintf(`kubectl patch ingress %s %s --type=json -p '[{"op":"replace","path":"/spec/tls","value":[{"hosts":["%s"],"secretName":"%s"}]}]'`, ing.Name, ns, sp.Host, sp.Secret)},
			Risk:        "replaces every spec.tls entry; add the Ingress's other TLS hosts to the value first"}},
	}
}
