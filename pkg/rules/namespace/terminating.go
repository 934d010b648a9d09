package namespace

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Terminating is the rule namespace/terminating.
var Terminating = &rule.Rule{
	Meta: rule.Meta{
		ID:    "namespace/terminating",
		Kinds: []string{"Namespace"},
		Layer: rule.InfrastructureLayer,
		// The deleter's conditions live on the target object itself; the
		// namespace's events are the only list it declares.
		Needs: []rule.Need{rule.Events},
		Doc: "A Namespace stuck in phase Terminating, explained by the namespace deleter's conditions: an API group whose discovery fails " +
			"(NamespaceDeletionDiscoveryFailure), content it cannot delete, resources left (NamespaceContentRemaining) or finalizers no controller removes (NamespaceFinalizersRemaining).",
	},
	Check: checkTerminating,
}

// deleterConditions are the namespace controller's conditions, in the order
// of their causes: discovery or parsing failures keep it from knowing what
// to delete; content failures and remaining finalizers from finishing.
var deleterConditions = []corev1.NamespaceConditionType{
	corev1.NamespaceDeletionDiscoveryFailure,
	corev1.NamespaceDeletionGVParsingFailure,
	corev1.NamespaceDeletionContentFailure,
	corev1.NamespaceFinalizersRemaining,
	corev1.NamespaceContentRemaining,
}

var (
	// "metrics.k8s.io/v1beta1: the server is currently unable…"
	failingGroup = regexp.MustCompile(`([a-z0-9.-]+\.[a-z0-9-]+/v[0-9][a-z0-9]*):`)
	// "gateway.kusk.io/srfinalizer in 2 resource instances"
	finalizerIn = regexp.MustCompile(`([A-Za-z0-9.-]+/[A-Za-z0-9._-]+) in [0-9]+ resource instances`)
	// "staticroutes.gateway.kusk.io has 2 resource instances"
	resourceHas = regexp.MustCompile(`([a-z0-9-]+(?:\.[a-z0-9-]+)+) has [0-9]+ resource instances`)
	// "conversion webhook for acme.cert-manager.io/v1alpha2, Kind=Challenge
	// failed: Post https://cert-manager-webhook.cert-manager.svc:443/convert…"
	conversionFailed = regexp.MustCompile(`conversion webhook for ([a-z0-9.-]+)/(v[0-9][a-z0-9]*), Kind=([A-Za-z0-9-]+) failed: (.*)`)
	webhookService   = regexp.MustCompile(`https://([a-z0-9-]+)\.([a-z0-9-]+)\.svc`)
)

// conversionBlock is a custom resource kind the namespace controller could
// not delete because the API server cannot call its CRD's conversion
// webhook.
type conversionBlock struct {
	Group, Version, Kind, Why string
	Service, ServiceNS        string // from the webhook's URL, when it names a Service
}

func conversionBlockOf(msg string) *conversionBlock {
	m := conversionFailed.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	b := &conversionBlock{Group: m[1], Version: m[2], Kind: m[3], Why: m[4]}
	if svc := webhookService.FindStringSubmatch(m[4]); svc != nil {
		b.Service, b.ServiceNS = svc[1], svc[2]
	}
	return b
}

func checkTerminating(c *rule.Pass) []rule.Finding {
	ns := kube.NamespaceTarget(c)
	if ns == nil || ns.Status.Phase != corev1.NamespaceTerminating {
		return nil
	}
	var evidence, blocks, groups, finalizers, resources []string
	var conversion *conversionBlock
	for _, typ := range deleterConditions {
		cond := namespaceCondition(ns, typ)
		if cond == nil || cond.Status != corev1.ConditionTrue {
			continue
		}
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Namespace %s condition %s=True (%s) since %s: %s", ns.Name, cond.Type, kube.OrDash(cond.Reason), kube.Clock(cond.LastTransitionTime.Time), cond.Message),
			fmt.Sprintf("namespace/%s .status.conditions[%s]", ns.Name, cond.Type),
			fmt.Sprintf(`kubectl get namespace %s -o jsonpath='{.status.conditions[?(@.type=="%s")]}'`, ns.Name, cond.Type)))
		blocks = append(blocks, fmt.Sprintf("%s: %s", cond.Type, cond.Message))
		switch typ {
		case corev1.NamespaceDeletionDiscoveryFailure, corev1.NamespaceDeletionGVParsingFailure:
			groups = appendMatches(groups, failingGroup, cond.Message)
		case corev1.NamespaceFinalizersRemaining:
			finalizers = appendMatches(finalizers, finalizerIn, cond.Message)
		case corev1.NamespaceContentRemaining:
			resources = appendMatches(resources, resourceHas, cond.Message)
		case corev1.NamespaceDeletionContentFailure:
			if conversion == nil {
				conversion = conversionBlockOf(cond.Message)
			}
		}
	}
	if len(blocks) == 0 {
		return nil // deletion just started, or the deleter has not reported: health says Terminating, no cause
	}
	f := rule.Finding{
		Category: rule.Namespace.Sub("Terminating"), Verdict: report.Validated, Confidence: rule.Definitive, Current: true, Strength: rule.Explained, Subject: ns.Name,
		Evidence:   evidence,
		Hypothesis: fmt.Sprintf("Namespace %s cannot finish deleting", ns.Name),
		Culprit:    fmt.Sprintf("namespace/%s (Terminating since %s): %s", ns.Name, kube.StampPtr(ns.DeletionTimestamp), strings.Join(blocks, "; ")),
		Mechanism: "Deleting a namespace sets phase Terminating; the namespace controller then lists every namespaced API (discovery), deletes their objects and waits for their finalizers; only an empty namespace loses its own kubernetes finalizer and goes away. " +
			"An API group whose discovery fails (an aggregated API whose Service is down) means it cannot know the namespace is empty; an object whose finalizer's controller is gone is never deleted.",
	}
	switch {
	case len(groups) > 0:
		f.Title = fmt.Sprintf("namespace %s is stuck Terminating: discovery of %s fails, so the namespace controller cannot delete its content", ns.Name, strings.Join(groups, ", "))
		f.Summary = fmt.Sprintf("Namespace %s has been Terminating since %s: the API group(s) %s cannot be discovered (an aggregated API that is not served), so its deletion cannot complete.", ns.Name, kube.StampPtr(ns.DeletionTimestamp), strings.Join(groups, ", "))
		f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Find the APIService that is not Available and restore the Service behind it (or remove the APIService if that API is gone for good).",
			Commands: []string{"kubectl get apiservices | grep -v True", fmt.Sprintf("kubectl get apiservice %s -o yaml", apiServiceName(groups[0]))}})
	case conversion != nil:
		cv := conversion
		svc := "its webhook"
		if cv.Service != "" {
			svc = fmt.Sprintf("Service %s/%s", cv.ServiceNS, cv.Service)
		}
		f.Title = fmt.Sprintf("namespace %s is stuck Terminating: the conversion webhook for %s/%s %s cannot be called (%s), so those objects cannot be deleted", ns.Name, cv.Group, cv.Version, cv.Kind, svc)
		f.Summary = fmt.Sprintf("Namespace %s has been Terminating since %s: deleting its %s objects needs the CRD's conversion webhook (%s), which fails: %s. Usually the operator that served it was uninstalled before its custom resources.", ns.Name, kube.StampPtr(ns.DeletionTimestamp), cv.Kind, svc, cv.Why)
		cmds := []string{fmt.Sprintf("kubectl get crd -o custom-columns=NAME:.metadata.name,STRATEGY:.spec.conversion.strategy,SERVICE_NS:.spec.conversion.webhook.clientConfig.service.namespace,SERVICE:.spec.conversion.webhook.clientConfig.service.name | grep -E '^NAME|\\.%s '", regexp.QuoteMeta(cv.Group))}
		if cv.Service != "" {
			cmds = append(cmds, fmt.Sprintf("kubectl get service %s -n %s", cv.Service, cv.ServiceNS),
				fmt.Sprintf("kubectl get endpointslices -n %s -l kubernetes.io/service-name=%s", cv.ServiceNS, cv.Service))
		}
		f.Actions = append(f.Actions, report.Action{Kind: report.Check,
			Description: fmt.Sprintf("Look at the conversion config of the %s CRD (spec.conversion) and at the webhook Service it names: reinstall the operator that serves it so the objects can be converted and deleted; only if the API is gone for good, set the CRD's spec.conversion.strategy to None (or delete the CRD) instead.", cv.Group),
			Commands:    cmds})
	case len(finalizers) > 0:
		f.Title = fmt.Sprintf("namespace %s is stuck Terminating: objects keep the finalizer(s) %s, which no controller removes", ns.Name, strings.Join(finalizers, ", "))
		f.Summary = fmt.Sprintf("Namespace %s has been Terminating since %s: objects in it carry finalizer(s) %s; the controller that should remove them (often an operator deleted before its custom resources) does not.", ns.Name, kube.StampPtr(ns.DeletionTimestamp), strings.Join(finalizers, ", "))
	default:
		f.Title = fmt.Sprintf("namespace %s is stuck Terminating: %s", ns.Name, blocks[0])
		f.Summary = fmt.Sprintf("Namespace %s has been Terminating since %s and its controller reports: %s.", ns.Name, kube.StampPtr(ns.DeletionTimestamp), strings.Join(blocks, "; "))
	}
	if len(resources) > 0 || len(finalizers) > 0 {
		cmd := fmt.Sprintf("kubectl api-resources --verbs=list --namespaced -o name | xargs -n1 kubectl get --show-kind --ignore-not-found -n %s", ns.Name)
		if len(resources) > 0 {
			cmd = fmt.Sprintf("kubectl get %s -n %s -o custom-columns=NAME:.metadata.name,FINALIZERS:.metadata.finalizers", strings.Join(resources, ","), ns.Name)
		}
		f.Actions = append(f.Actions, report.Action{Kind: report.Check,
			Description: "List the objects left and their finalizers; restore the controller that owns them (reinstall the operator) so it can finish, rather than removing the finalizers by hand.",
			Commands:    []string{cmd}})
	}
	return []rule.Finding{f}
}

func namespaceCondition(ns *corev1.Namespace, typ corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	for i := range ns.Status.Conditions {
		if ns.Status.Conditions[i].Type == typ {
			return &ns.Status.Conditions[i]
		}
	}
	return nil
}

func appendMatches(dst []string, re *regexp.Regexp, s string) []string {
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		dst = kube.AppendUnique(dst, m[1])
	}
	return dst
}

// apiServiceName is the APIService object serving a group version:
// "metrics.k8s.io/v1beta1" is served by "v1beta1.metrics.k8s.io".
func apiServiceName(gv string) string {
	g, v, _ := strings.Cut(gv, "/")
	return v + "." + g
}
