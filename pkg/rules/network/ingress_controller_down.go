package network

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// IngressControllerDown is the rule network/ingress-controller-down.
var IngressControllerDown = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/ingress-controller-down",
		Kinds: []string{"Ingress"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Dependencies, rule.Logs},
		Doc:   "The controller that serves the Ingress's class (the workload whose container sets --ingress-class, --controller-class, or runs the class's controller image) is down or logs an error: nothing routes the Ingress, however right the object is.",
	},
	Check: checkIngressControllerDown,
}

// checkIngressControllerDown reads the collector's search for the
// controller of the Ingress's class (bundle RoleIngressController): every
// pod of it down, or its log's decisive line an error, is the cause, with
// the resources its ServiceAccount may not read (docs/DESIGN.md,
// "Correlations").
func checkIngressControllerDown(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	k := kube.ControllerOf(c, bundle.RoleIngressController, "ingress/"+ing.Name, IngressTerms(ing)...)
	if k == nil || k.Pod == nil {
		return nil
	}
	if kube.IsPodReady(k.Pod) {
		if k.About && k.Line != "" {
			return []rule.Finding{controllerErrorFinding(c, ing, k)}
		}
		if d, ok := k.Denied(c); ok {
			return []rule.Finding{controllerForbiddenFinding(ing, k, d)}
		}
		return nil
	}
	class := k.Actor.Name
	said := ""
	if k.Line != "" {
		said = fmt.Sprintf("; its log says %q", k.Line)
	}
	f := rule.Finding{Category: rule.Ingress.Sub("ControllerDown"), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Traced, Subject: ing.Name,
		Evidence:   k.Evidence,
		Hypothesis: fmt.Sprintf("The controller of IngressClass %s (%s) is not running, so nothing serves Ingress %s", class, k.Ref, ing.Name),
		Title:      fmt.Sprintf("Ingress %s is not served: the controller of its class %s, %s (%s), is %s%s", ing.Name, class, k.Ref, k.Actor.Workload, k.State, said),
		Summary:    fmt.Sprintf("Ingress %s names class %s, served by %s (image %s); that controller is %s%s, so no route for the Ingress exists.", ing.Name, class, k.Actor.Workload, k.Image, k.State, said),
		Mechanism:  "An Ingress is only a request: the controller of its class watches it and programs its proxy or a cloud load balancer. A controller that exits at start (its RBAC, its flags, a class it cannot read) serves none of its class's Ingresses, and nothing on them says so.",
		Culprit:    fmt.Sprintf("ingress controller %s (%s, image %s) is %s%s", k.Actor.Workload, k.Ref, k.Image, k.State, said),
	}
	fix := report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Fix what the controller's log says, then let it restart; Ingress %s is served once it runs.", ing.Name),
		Commands: []string{fmt.Sprintf("kubectl logs %s -n %s --previous --tail=50", k.Pod.Name, k.Pod.Namespace)}}
	if d, ok := k.Denied(c); ok {
		f.Culprit += d.Clause()
		f.Contributing = append(f.Contributing, "A controller's release reads what its RBAC must grant: an upgrade that reads a new resource (IngressClasses since Kubernetes 1.18) exits at start until its ClusterRole is the release's.")
		fix.Description = fmt.Sprintf("Grant ServiceAccount %s/%s get, list and watch on %s (apply the ClusterRole of the controller's release), then restart it.", d.Namespace, d.Account, d.List())
		fix.Commands = append(fix.Commands, d.Checks()...)
	}
	f.Actions = []report.Action{fix}
	return []rule.Finding{f}
}

// IngressTerms are what a controller's log names an Ingress by: its
// namespace/name and its hosts (a proxy's error lines carry the host).
func IngressTerms(ing *networkingv1.Ingress) []string {
	terms := []string{ing.Namespace + "/" + ing.Name}
	for _, r := range ing.Spec.Rules {
		if r.Host != "" {
			terms = append(terms, `"`+r.Host+`"`, "server: "+r.Host)
		}
	}
	return terms
}

// bufferAnnotations are the annotations that size the proxy's buffer for
// an upstream's response headers, by the controller the class names.
var bufferAnnotations = map[string]string{
	"k8s.io/ingress-nginx":         "nginx.ingress.kubernetes.io/proxy-buffer-size",
	"nginx.org/ingress-controller": "nginx.org/proxy-buffer-size",
}

// controllerErrorFinding: the controller serving the Ingress runs, and
// its log's decisive line about the Ingress's host is an error: what the
// clients of that host get (a 502 when nginx cannot take the upstream's
// headers).
func controllerErrorFinding(c *rule.Pass, ing *networkingv1.Ingress, k *kube.Controller) rule.Finding {
	class := k.Actor.Name
	f := rule.Finding{Category: rule.Ingress.Sub("ControllerError"), Verdict: report.Validated, Confidence: rule.Likely, Current: true, Strength: rule.Traced, Subject: ing.Name,
		Evidence:   k.Evidence,
		Hypothesis: fmt.Sprintf("The controller of IngressClass %s fails requests for Ingress %s: %s", class, ing.Name, k.Line),
		Title:      fmt.Sprintf("Ingress %s: its controller %s logs, for its host: %q", ing.Name, k.Ref, k.Line),
		Summary:    fmt.Sprintf("Ingress %s is served by %s (%s), which is ready, and whose log's decisive line about the Ingress's host is %q: its clients get the error, while the backends may be healthy.", ing.Name, k.Actor.Workload, k.Ref, k.Line),
		Mechanism:  "The controller proxies each request of the Ingress's hosts to its backends; an error it logs for that host (a response it cannot pass on, an upstream it cannot reach) is what the client receives, whatever the backend pods' health.",
		Culprit:    fmt.Sprintf("ingress controller %s for the host of Ingress %s: %s", k.Ref, ing.Name, k.Line),
		Actions: []report.Action{{Kind: report.Check, Description: "Read the controller's log for the Ingress's host.",
			Commands: []string{fmt.Sprintf("kubectl logs %s -n %s --tail=200 | grep -F %q", k.Pod.Name, k.Pod.Namespace, strings.Trim(IngressTerms(ing)[len(IngressTerms(ing))-1], `"`))}}},
	}
	controller := ""
	for _, ic := range c.B.IngressClasses {
		if ic.Name == class {
			controller = ic.Spec.Controller
		}
	}
	if strings.Contains(k.Line, "upstream sent too big header") {
		f.Confidence = rule.Strong
		ann := bufferAnnotations[controller]
		if ann == "" {
			ann = "the controller's proxy buffer size setting (nginx proxy_buffer_size)"
		}
		f.Culprit += fmt.Sprintf("; the upstream's response headers exceed the proxy buffer: raise %s", ann)
		f.Contributing = append(f.Contributing, "nginx reads an upstream's response headers into one buffer (proxy_buffer_size, 4k or 8k by default); larger headers — big cookies or tokens, as identity providers set — make it drop the response and answer 502.")
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Give Ingress %s a larger proxy buffer (16k is usual for identity providers).", ing.Name),
			Commands: []string{fmt.Sprintf("kubectl annotate ingress %s -n %s %s=16k", ing.Name, ing.Namespace, ann)},
			Risk:     "the controller reloads its configuration"}}, f.Actions...)
	}
	return f
}

// controllerForbiddenFinding: the controller serving the Ingress is ready,
// but the API server refuses it reads its release needs (the leader
// Lease, EndpointSlices): a controller that cannot lead writes no address
// on its Ingresses, and one that cannot list the backends' endpoints has
// no upstream to send to (a 503), while its readiness probe passes.
func controllerForbiddenFinding(ing *networkingv1.Ingress, k *kube.Controller, d kube.Denial) rule.Finding {
	class := k.Actor.Name
	f := rule.Finding{Category: rule.Ingress.Sub("ControllerForbidden"), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Traced, Subject: ing.Name,
		Evidence:     k.Evidence,
		Hypothesis:   fmt.Sprintf("The controller of IngressClass %s runs but may not read %s, so it does not serve Ingress %s correctly", class, d.List(), ing.Name),
		Title:        fmt.Sprintf("Ingress %s: its controller %s (%s) is ready, but its ServiceAccount %s may not read %s", ing.Name, k.Actor.Workload, k.Ref, d.Account, d.List()),
		Summary:      fmt.Sprintf("Ingress %s is served by %s (image %s), which is ready, and whose log shows the API server refusing ServiceAccount %s/%s %s: the controller's RBAC predates what its release reads.", ing.Name, k.Actor.Workload, k.Image, d.Namespace, d.Account, d.List()),
		Mechanism:    "A ready controller is only as good as what it may read: without the leader Lease it never leads and writes no address on its Ingresses; without EndpointSlices it has no upstream for the backends and answers 503. The readiness probe checks neither.",
		Culprit:      fmt.Sprintf("ingress controller %s (%s, image %s)%s", k.Actor.Workload, k.Ref, k.Image, d.Clause()),
		Contributing: []string{"A controller's release reads what its RBAC must grant: an upgrade that reads a new resource (leases for leader election, EndpointSlices instead of Endpoints) fails those reads until its ClusterRole and Role are the release's."},
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Grant ServiceAccount %s/%s what it is refused (%s: apply the ClusterRole and Role of the controller's release), then restart its pods.", d.Namespace, d.Account, d.List()),
			Commands:    append([]string{fmt.Sprintf("kubectl logs %s -n %s --tail=50", k.Pod.Name, k.Pod.Namespace)}, d.Checks()...)}},
	}
	if k.Line != "" {
		f.Summary += fmt.Sprintf(" Its log says %q.", k.Line)
	}
	return f
}
