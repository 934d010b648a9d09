package network

import (
	"fmt"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// IngressClass is the rule network/ingress-class.
var IngressClass = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/ingress-class",
		Kinds: []string{"Ingress"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.IngressClasses},
		Doc:   "An Ingress no controller serves: its class does not exist, or there is none and no default.",
	},
	Check: checkIngressClass,
}

// checkIngressClass: an Ingress no controller claims, because its class does
// not exist, or it names none and no class is the default.
func checkIngressClass(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	ns := "-n " + ing.Namespace
	var names, defaults []string
	for _, ic := range c.B.IngressClasses {
		names = append(names, fmt.Sprintf("%s (%s)", ic.Name, ic.Spec.Controller))
		if ic.Annotations[annIngressClassDefault] == "true" {
			defaults = append(defaults, ic.Name)
		}
	}
	have := "no IngressClass exists"
	if len(names) > 0 {
		have = "the cluster has " + strings.Join(names, ", ")
	}
	classesEv := func() string {
		return c.Evidence(fmt.Sprintf("IngressClasses: %s; default: %s", kube.ValueOr(strings.Join(names, ", "), "none"), kube.ValueOr(strings.Join(defaults, ", "), "none")),
			"ingressclasses (cluster-scoped)", ingressClassesCommand)
	}
	if classProblem(c) {
		return nil // could not list the classes: no verdict either way
	}
	addr := ""
	if len(ing.Status.LoadBalancer.Ingress) == 0 {
		addr = "The Ingress has no address in status.loadBalancer: no controller has admitted it."
	}
	hyp := fmt.Sprintf("No ingress controller serves ingress %s because of its class", ing.Name)
	if name := ing.Spec.IngressClassName; name != nil && *name != "" {
		for _, ic := range c.B.IngressClasses {
			if ic.Name == *name {
				return []rule.Finding{{Category: rule.Ingress.Sub("Class"), Verdict: report.Refuted, Confidence: rule.High, Subject: ing.Name,
					Hypothesis: hyp + fmt.Sprintf(" (class %s exists, controller %s)", ic.Name, ic.Spec.Controller), Evidence: []string{classesEv()}}}
			}
		}
		f := rule.Finding{
			Category: rule.Ingress.Sub("Class", "Missing"), Verdict: report.Validated, Confidence: rule.Strong,
			Hypothesis: hyp + fmt.Sprintf(": it names IngressClass %q, which does not exist", *name),
			Evidence: []string{c.Evidence(fmt.Sprintf("Ingress %s has spec.ingressClassName %q", ing.Name, *name), "ingress/"+ing.Name+" .spec.ingressClassName",
				fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{.spec.ingressClassName}'", ing.Name, ns)), classesEv()},
			Current: true, Strength: rule.Explained, Subject: ing.Name,
			Title:     fmt.Sprintf("ingress %s names IngressClass %q, which does not exist (%s)", ing.Name, *name, have),
			Summary:   fmt.Sprintf("Ingress %s asks for IngressClass %q, but %s. No ingress controller claims it, so none routes its traffic.", ing.Name, *name, have),
			Mechanism: "Each ingress controller only serves Ingresses whose class points at an IngressClass with its controller name; a class that does not exist is served by nobody.",
			Culprit:   fmt.Sprintf("ingress/%s .spec.ingressClassName %q (not found; %s)", ing.Name, *name, have),
			Actions: []report.Action{{Kind: report.Immediate, Description: "Set ingressClassName to a class that exists (or install the controller and its IngressClass).",
				Commands: []string{ingressClassesCommand, fmt.Sprintf(`kubectl patch ingress %s %s --type=merge -p '{"spec":{"ingressClassName":"<existing class>"}}'`, ing.Name, ns)},
				Risk:     "the chosen controller starts serving the Ingress's hosts at once"}},
		}
		if addr != "" {
			f.Contributing = append(f.Contributing, addr)
		}
		return []rule.Finding{f}
	}
	if legacy := ing.Annotations[annIngressClassLegacy]; legacy != "" {
		// The deprecated annotation is read by the controllers themselves,
		// not matched against IngressClass objects: nothing to check.
		return nil
	}
	if len(defaults) > 0 {
		return []rule.Finding{{Category: rule.Ingress.Sub("Class"), Verdict: report.Refuted, Confidence: rule.Moderate, Subject: ing.Name,
			Hypothesis: hyp + fmt.Sprintf(" (it names no class; %s is the default)", strings.Join(defaults, ", ")), Evidence: []string{classesEv()}}}
	}
	f := rule.Finding{
		Category: rule.Ingress.Sub("Class", "NoDefault"), Verdict: report.Validated, Confidence: rule.Likely,
		Hypothesis: hyp + ": it names no IngressClass and no class is marked default",
		Evidence: []string{c.Evidence(fmt.Sprintf("Ingress %s has no spec.ingressClassName and no kubernetes.io/ingress.class annotation", ing.Name),
			"ingress/"+ing.Name+" .spec.ingressClassName", fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{.spec.ingressClassName}'", ing.Name, ns)), classesEv()},
		Current: true, Strength: rule.Explained, Subject: ing.Name,
		Title:     fmt.Sprintf("ingress %s names no IngressClass and there is no default class (%s)", ing.Name, have),
		Summary:   fmt.Sprintf("Ingress %s has no ingressClassName, and no IngressClass carries %s=true; %s. Controllers ignore Ingresses without a class unless told otherwise, so nobody routes its traffic.", ing.Name, annIngressClassDefault, have),
		Mechanism: "An Ingress without a class is assigned the default IngressClass at creation; with no default, it stays classless and most controllers skip it.",
		Culprit:   fmt.Sprintf("ingress/%s .spec.ingressClassName (unset; no default IngressClass)", ing.Name),
		Actions: []report.Action{
			{Kind: report.Immediate, Description: "Name the class of the controller that should serve it.",
				Commands: []string{ingressClassesCommand, fmt.Sprintf(`kubectl patch ingress %s %s --type=merge -p '{"spec":{"ingressClassName":"<class>"}}'`, ing.Name, ns)},
				Risk:     "the chosen controller starts serving the Ingress's hosts at once"},
			{Kind: report.LongTerm, Description: "Mark one IngressClass as the cluster default so classless Ingresses get it.",
				Commands: []string{fmt.Sprintf(`kubectl annotate ingressclass <class> %s=true`, annIngressClassDefault)},
				Risk:     "every new Ingress without a class goes to that controller"},
		},
	}
	if addr != "" {
		f.Contributing = append(f.Contributing, addr)
	}
	return []rule.Finding{f}
}

// classProblem reports that the IngressClasses could not be read.
func classProblem(c *rule.Pass) bool {
	return kube.CollectionFailed(c, "ingressclass") || kube.CollectionFailed(c, "ingress class")
}
