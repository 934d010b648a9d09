package network

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// IngressControllerError is the rule network/ingress-controller-error.
var IngressControllerError = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/ingress-controller-error",
		Kinds: []string{"Ingress"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Events},
		Doc:   "The ingress controller reports, in a warning event on the Ingress, that it cannot build what the Ingress asks for, for a reason its message states (a cloud API's refusal, a certificate, an annotation).",
	},
	Check: checkIngressControllerError,
}

// checkIngressControllerError: a controller that reconciles an Ingress
// into something outside the cluster (a cloud load balancer, a proxy's
// configuration) reports each failure as a warning event on the Ingress:
// the AWS Load Balancer Controller's FailedDeployModel and
// FailedBuildModel, ingress-gce's Sync and TranslateIngress, Kong's
// KongConfigurationTranslationFailed. Its message is read like a log line
// (the log classes), so a cloud API's AccessDenied or a TLS error is
// named with its meaning and fix, and the message is quoted as the
// culprit.
func checkIngressControllerError(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	var last *corev1.Event
	for _, e := range kube.WarningEvents(c.B) {
		if e.InvolvedObject.Kind != "Ingress" || e.InvolvedObject.Name != ing.Name || c.Now.Sub(bundle.EventTime(&e)) > kube.RecentWarning {
			continue
		}
		if last == nil || bundle.EventTime(&e).After(bundle.EventTime(last)) {
			last = &e
		}
	}
	if last == nil {
		return nil
	}
	d := logs.FindDecisive(last.Message + "\n")
	if d == nil || d.Pattern.Priority <= 20 {
		return nil // no class says what the message means: the fallback quotes it
	}
	comp := ""
	if last.Source.Component != "" {
		comp = " (" + last.Source.Component + ")"
	}
	who := "the ingress controller" + comp
	msg := kube.FirstLine(last.Message)
	what := d.Pattern.Explains
	if d.Subject != "" {
		what += " (" + d.Subject + ")"
	}
	fix := d.Pattern.Fix
	if d.Pattern.Class == logs.AuthFailed || d.Pattern.Class == logs.Forbidden {
		fix += " The identity here is the ingress controller's own (its ServiceAccount's cloud role), not the application's."
	}
	f := rule.Finding{
		Category: rule.Ingress.Sub("ControllerError", d.Pattern.Class.String()), Verdict: report.Validated, Current: true,
		Strength: rule.Explained, Confidence: rule.High, Subject: ing.Name,
		Hypothesis: fmt.Sprintf("The controller of ingress %s cannot build what it asks for: %s", ing.Name, what),
		Title:      fmt.Sprintf("ingress %s: %s reports %s ×%d: %s", ing.Name, who, last.Reason, bundle.EventCount(last), what),
		Summary:    fmt.Sprintf("The ingress controller%s keeps failing to reconcile Ingress %s (%s, %d time(s), last %s): %s.", comp, ing.Name, last.Reason, bundle.EventCount(last), kube.Since(c, bundle.EventTime(last)), msg),
		Mechanism:  "An ingress controller turns the Ingress into a load balancer or a proxy configuration outside the Ingress object; when that step fails it reports the failure as a warning event on the Ingress and retries, and the Ingress gets no (or a stale) address until the cause is removed.",
		Culprit:    fmt.Sprintf("%s on ingress/%s: %s", last.Reason, ing.Name, kube.Shorten(msg, 400)),
		Evidence:   []string{kube.EventEvidence(c, *last)},
		Actions: []report.Action{{Kind: report.Immediate, Description: fix,
			Commands: []string{fmt.Sprintf("kubectl describe ingress %s -n %s", ing.Name, ing.Namespace)}}},
	}
	if len(ing.Status.LoadBalancer.Ingress) == 0 {
		f.Contributing = append(f.Contributing, "The Ingress has no address in status.loadBalancer yet.")
	}
	return []rule.Finding{f}
}
