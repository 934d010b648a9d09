package scheduling

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

func describePodTerm(t corev1.PodAffinityTerm) string {
	sel := "all pods"
	if t.LabelSelector != nil {
		sel = "pods with " + metav1.FormatLabelSelector(t.LabelSelector)
	}
	ns := ""
	if len(t.Namespaces) > 0 {
		ns = " in namespace(s) " + strings.Join(t.Namespaces, ", ")
	}
	if t.NamespaceSelector != nil {
		ns = " in namespaces with " + metav1.FormatLabelSelector(t.NamespaceSelector)
	}
	return fmt.Sprintf("%s%s per %s", sel, ns, topologyKeyText(t.TopologyKey))
}

// topologyKeyText names a topology key; the bundle's redaction may have
// masked it (its name ends in "Key").
func topologyKeyText(key string) string {
	if key == redact.Mask {
		return "a topologyKey masked in the bundle"
	}
	return key
}

const maskedKeyNote = "The topologyKey was masked by the bundle's redaction, so its domains could not be counted; `kubectl get nodes -L <topologyKey>` shows them."

// selectsSelf reports whether a term's selector matches the pod's own labels
// in its own namespace: the one-replica-per-domain pattern.
func selectsSelf(p *corev1.Pod, t corev1.PodAffinityTerm) bool {
	if t.LabelSelector == nil || t.NamespaceSelector != nil || (len(t.Namespaces) > 0 && !slices.Contains(t.Namespaces, p.Namespace)) {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	return err == nil && sel.Matches(labels.Set(p.Labels))
}

// topologyDomains counts nodes per value of a topology label, and the nodes
// without it.
func topologyDomains(nodes []*corev1.Node, key string) (domains map[string][]string, order []string, missing []string) {
	domains = map[string][]string{}
	for _, n := range nodes {
		v, ok := n.Labels[key]
		if !ok {
			missing = append(missing, n.Name)
			continue
		}
		if _, seen := domains[v]; !seen {
			order = append(order, v)
		}
		domains[v] = append(domains[v], n.Name)
	}
	return domains, order, missing
}

func (e *schedContext) podAntiAffinity(part schedReason, _ submatch.Match) schedCause {
	var terms []corev1.PodAffinityTerm
	if a := e.p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		terms = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(terms) == 0 {
		return e.podAffinity(part, submatch.Match{})
	}
	t := terms[0]
	cause := schedCause{Confidence: rule.Probable}
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requires anti-affinity: at most one of %s", describePodTerm(t)),
		kube.PodRef(e.p)+" .spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity.podAntiAffinity}'", e.p.Name, kube.NSFlag(e.p))))
	domains, _, _ := topologyDomains(e.c.B.Nodes, t.TopologyKey)
	replicas := e.replicas()
	check := report.Action{Kind: report.Check, Description: "See where the pods the term selects run, and the nodes' topology labels.",
		Commands: []string{fmt.Sprintf("kubectl get pods %s -l '%s' -o wide", kube.NSFlag(e.p), metav1.FormatLabelSelector(t.LabelSelector)), "kubectl get nodes -L " + t.TopologyKey}}
	if selectsSelf(e.p, t) && replicas > 0 && len(domains) > 0 && int(replicas) > len(domains) {
		cause.Definitive, cause.Confidence = true, rule.Strong
		cause.Text = fmt.Sprintf("%s — required anti-affinity allows one of %s, and %s wants %d replicas for only %d %s domain(s)",
			withCount(part), describePodTerm(t), e.workload(), replicas, len(domains), t.TopologyKey)
		cause.Culprit = fmt.Sprintf("%s (required, one of %s): %d replicas for %d domain(s)",
			e.spec("affinity.podAntiAffinity"), describePodTerm(t), replicas, len(domains))
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("%s wants %d replicas; the nodes form %d %s domain(s)", e.workload(), replicas, len(domains), t.TopologyKey),
			e.workload()+" .spec.replicas", fmt.Sprintf("kubectl get %s %s -o jsonpath='{.spec.replicas}'", e.workload(), kube.NSFlag(e.p))))
		cause.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Run no more replicas than there are %s domains, or add nodes.", t.TopologyKey),
				Commands: []string{fmt.Sprintf("kubectl scale %s %s --replicas=%d", e.workload(), kube.NSFlag(e.p), len(domains))},
				Risk:     "fewer replicas means less capacity and redundancy"},
			{Kind: report.LongTerm, Description: "If spreading is a wish rather than a rule, move the term to preferredDuringSchedulingIgnoredDuringExecution.",
				Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.affinity.podAntiAffinity", e.workload(), kube.NSFlag(e.p), podTemplatePath(e.kind))},
					"fix "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".affinity.podAntiAffinity"),
				Risk: e.templateRisk("starts a rollout") + "; two replicas may then share a node or zone"},
			check,
		}
		return cause
	}
	if t.TopologyKey == redact.Mask {
		cause.Notes = append(cause.Notes, maskedKeyNote)
	}
	cause.Text = fmt.Sprintf("%s — required anti-affinity allows at most one of %s, and the allowed domains already run one", withCount(part), describePodTerm(t))
	cause.Culprit = fmt.Sprintf("%s (required, one of %s)", e.spec("affinity.podAntiAffinity"), describePodTerm(t))
	cause.Actions = []report.Action{check}
	return cause
}

func (e *schedContext) podAffinity(part schedReason, _ submatch.Match) schedCause {
	var terms []corev1.PodAffinityTerm
	if a := e.p.Spec.Affinity; a != nil && a.PodAffinity != nil {
		terms = a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	cause := schedCause{Confidence: rule.Probable}
	if len(terms) == 0 {
		cause.Text = withCount(part)
		cause.Culprit = e.spec("affinity") + " (pod affinity/anti-affinity)"
		cause.Confidence = rule.Moderate
		cause.Actions = []report.Action{{Kind: report.Check, Description: "Read the pod's affinity terms and find the pods they select.",
			Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity}'", e.p.Name, kube.NSFlag(e.p))}}}
		return cause
	}
	t := terms[0]
	sel := metav1.FormatLabelSelector(t.LabelSelector)
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requires affinity: to run next to %s", describePodTerm(t)),
		kube.PodRef(e.p)+" .spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity.podAffinity}'", e.p.Name, kube.NSFlag(e.p))))
	cause.Text = fmt.Sprintf("%s — the pod must share its %s with %s, and no such domain has a node that can take it", withCount(part), topologyKeyText(t.TopologyKey), strings.TrimSuffix(describePodTerm(t), " per "+topologyKeyText(t.TopologyKey)))
	cause.Culprit = fmt.Sprintf("%s (required: next to %s)", e.spec("affinity.podAffinity"), describePodTerm(t))
	nsArg := kube.NSFlag(e.p)
	if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
		nsArg = "-A"
	}
	cause.Actions = []report.Action{
		{Kind: report.Check, Description: "Find the pods the affinity term points at: none running, or running only where the pod cannot go, explains it.",
			Commands: []string{fmt.Sprintf("kubectl get pods %s -l '%s' -o wide", nsArg, sel), "kubectl get nodes -L " + t.TopologyKey}},
		{Kind: report.Immediate, Description: "Start the pods the term needs first, or relax the term to preferredDuringSchedulingIgnoredDuringExecution.",
			Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.affinity.podAffinity", e.workload(), kube.NSFlag(e.p), podTemplatePath(e.kind))},
				"fix "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".affinity.podAffinity"),
			Risk: e.templateRisk("starts a rollout")},
	}
	return cause
}

func (e *schedContext) existingAntiAffinity(part schedReason, _ submatch.Match) schedCause {
	own := labels.Set(e.p.Labels).String()
	if own == "" {
		own = "(no labels)"
	}
	return schedCause{
		Confidence: rule.Plausible,
		Text:       fmt.Sprintf("%s — pods already running there carry required anti-affinity that matches this pod's labels (%s)", withCount(part), own),
		Culprit:    fmt.Sprintf("required podAntiAffinity of other pods, matching %s labels %s", kube.PodRef(e.p), own),
		Notes:      []string{"The pods whose anti-affinity repels this one are not in the bundle; the command below lists the pods with required anti-affinity and their nodes."},
		Actions: []report.Action{{Kind: report.Check, Description: "List the pods with required anti-affinity and the nodes they occupy; the ones whose selector matches this pod's labels keep it away.",
			Commands: []string{`kubectl get pods -A -o jsonpath='{range .items[?(@.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution)]}{.metadata.namespace}/{.metadata.name}{"\t"}{.spec.nodeName}{"\t"}{.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].labelSelector}{"\n"}{end}'`}}},
	}
}

func (e *schedContext) topologySpread(part schedReason, _ submatch.Match) schedCause {
	var cons []corev1.TopologySpreadConstraint
	var idx []int
	for i, t := range e.p.Spec.TopologySpreadConstraints {
		if t.WhenUnsatisfiable == corev1.DoNotSchedule {
			cons, idx = append(cons, t), append(idx, i)
		}
	}
	cause := schedCause{Confidence: rule.Likely}
	if len(cons) == 0 {
		// Cluster-level default constraints apply to pods without their own.
		cause.Text = withCount(part) + " — the pod has no DoNotSchedule constraint of its own: the scheduler's default constraints apply"
		cause.Culprit = "kube-scheduler default topology spread constraints"
		cause.Confidence = rule.Moderate
		cause.Actions = []report.Action{{Kind: report.Check, Description: "Read the scheduler configuration's PodTopologySpread defaults.",
			Commands: []string{"kubectl get nodes -L topology.kubernetes.io/zone,kubernetes.io/hostname"}}}
		return cause
	}
	t := cons[0]
	sel := "all pods"
	if t.LabelSelector != nil {
		sel = metav1.FormatLabelSelector(t.LabelSelector)
	}
	domains, order, missing := topologyDomains(e.c.B.Nodes, t.TopologyKey)
	seen := e.podsPerDomain(t)
	var ds []string
	for _, v := range order[:min(len(order), 6)] {
		ds = append(ds, fmt.Sprintf("%s: %s, %d pod(s) seen", v, nodesCount(len(domains[v])), seen[v]))
	}
	desc := fmt.Sprintf("maxSkew %d on %s for %s", t.MaxSkew, topologyKeyText(t.TopologyKey), sel)
	if t.TopologyKey == redact.Mask {
		cause.Notes = append(cause.Notes, maskedKeyNote)
	}
	where := e.spec(fmt.Sprintf("topologySpreadConstraints[%d]", idx[0]))
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod topology spread constraint: %s, whenUnsatisfiable DoNotSchedule", desc),
		kube.PodRef(e.p)+fmt.Sprintf(" .spec.topologySpreadConstraints[%d]", idx[0]),
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.topologySpreadConstraints}'", e.p.Name, kube.NSFlag(e.p))))
	domainInfo := ""
	if len(ds) > 0 {
		domainInfo = "; domains: " + strings.Join(ds, "; ")
	}
	switch {
	case strings.Contains(part.Text, "missing required label"):
		cause.Text = fmt.Sprintf("%s — %s: %s lack the label %s", withCount(part), desc, kube.NamesUpTo(missing, 3), topologyKeyText(t.TopologyKey))
		cause.Culprit = fmt.Sprintf("%s (%s): nodes without label %s: %s", where, desc, t.TopologyKey, kube.NamesUpTo(missing, 3))
		cause.Confidence = rule.Strong
	case t.MinDomains != nil && len(domains) < int(*t.MinDomains):
		cause.Definitive, cause.Confidence = true, rule.Strong
		cause.Text = fmt.Sprintf("%s — %s with minDomains %d, but the nodes form only %d domain(s)%s", withCount(part), desc, *t.MinDomains, len(domains), domainInfo)
		cause.Culprit = fmt.Sprintf("%s (%s, minDomains %d): only %d %s domain(s) exist", where, desc, *t.MinDomains, len(domains), t.TopologyKey)
	default:
		cause.Text = fmt.Sprintf("%s — %s: placing the pod there would exceed the skew%s", withCount(part), desc, domainInfo)
		cause.Culprit = fmt.Sprintf("%s (%s, whenUnsatisfiable DoNotSchedule)", where, desc)
		cause.Notes = append(cause.Notes, "Pod counts per domain are those of the pods seen in this bundle (at most a few per workload); the scheduler counts every matching pod. The domain with the fewest pods is usually the one whose nodes are full, tainted or cordoned: see the other reasons.")
	}
	cause.Actions = []report.Action{
		{Kind: report.Check, Description: "See how the matching pods spread over the domains, and which nodes form each domain.",
			Commands: []string{fmt.Sprintf("kubectl get pods %s -l '%s' -o wide", kube.NSFlag(e.p), sel), "kubectl get nodes -L " + t.TopologyKey}},
		{Kind: report.Immediate, Description: "Give the domain with the fewest pods room for one more (capacity, taints, cordons), or relax the constraint: whenUnsatisfiable ScheduleAnyway or a larger maxSkew.",
			Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.topologySpreadConstraints", e.workload(), kube.NSFlag(e.p), podTemplatePath(e.kind))},
				"fix "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".topologySpreadConstraints"),
			Risk: e.templateRisk("starts a rollout") + "; ScheduleAnyway lets pods pile up in one domain"},
	}
	return cause
}

// podsPerDomain counts the bundle's scheduled pods matching a constraint per
// topology value: a lower bound of what the scheduler counts.
func (e *schedContext) podsPerDomain(t corev1.TopologySpreadConstraint) map[string]int {
	out := map[string]int{}
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return out
	}
	for _, p := range e.c.B.Pods {
		if p.Spec.NodeName == "" || p.Namespace != e.p.Namespace || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if n := e.c.B.Node(p.Spec.NodeName); n != nil {
			if v, ok := n.Labels[t.TopologyKey]; ok {
				out[v]++
			}
		}
	}
	return out
}
