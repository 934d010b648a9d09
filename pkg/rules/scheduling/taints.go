package scheduling

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// tolerates reports whether any toleration of the pod tolerates the taint,
// with the API's own matching rules.
func PodToleratesTaint(tols []corev1.Toleration, t *corev1.Taint) bool {
	for i := range tols {
		if tols[i].ToleratesTaint(logr.Discard(), t, true) {
			return true
		}
	}
	return false
}

// taintGroup is one untolerated taint and the nodes it keeps the pod off.
type taintGroup struct {
	Taint corev1.Taint
	Nodes []*corev1.Node
}

// untoleratedTaints groups the nodes by the taint the scheduler reports for
// them: the first NoSchedule/NoExecute taint the pod does not tolerate.
// Largest group first.
func untoleratedTaints(p *corev1.Pod, nodes []*corev1.Node) []*taintGroup {
	index := map[string]*taintGroup{}
	var out []*taintGroup
	for _, n := range nodes {
		for _, t := range n.Spec.Taints {
			if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
				continue
			}
			if PodToleratesTaint(p.Spec.Tolerations, &t) {
				continue
			}
			key := kube.TaintSpec(t)
			g, ok := index[key]
			if !ok {
				g = &taintGroup{Taint: t}
				index[key] = g
				out = append(out, g)
			}
			g.Nodes = append(g.Nodes, n)
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Nodes) > len(out[j].Nodes) })
	return out
}

var taintInMessageRe = regexp.MustCompile(`\{(?P<key>[^:{}]+):\s?(?P<value>[^{}]*)\}`)

func (e *schedContext) taint(part schedReason, _ submatch.Match) schedCause {
	groups := untoleratedTaints(e.p, e.c.B.Nodes)
	var chosen *taintGroup
	if m, ok := submatch.Find(taintInMessageRe, part.Text); ok {
		key, value := strings.TrimSpace(m.Get("key")), strings.TrimSpace(m.Get("value"))
		for _, g := range groups {
			if g.Taint.Key == key && g.Taint.Value == value {
				chosen = g
				break
			}
		}
		if chosen == nil {
			return schedCause{
				Narrowing:  e.reservesPool(corev1.Taint{Key: key, Value: value}),
				Text:       withCount(part) + " — no node seen now carries that taint (it may have been removed since the scheduler's last attempt)",
				Culprit:    fmt.Sprintf("taint {%s: %s} named by the scheduler, not tolerated by %s", key, value, e.spec("tolerations")),
				Confidence: rule.Probable,
				Actions:    []report.Action{e.listTaintsAction()},
			}
		}
	} else {
		// Since 1.34 the message no longer names the taint: the nodes do.
		// The taint on the nodes the pod asks for (selector, affinity) is
		// the one in its way; the control-plane taint only if nothing else.
		wanted := e.wantedNodes()
		best := -1
		for _, g := range groups {
			if kube.KnownTaints[g.Taint.Key].Expected {
				continue
			}
			if score := len(g.Nodes) + 1000*countIn(g.Nodes, wanted); score > best {
				chosen, best = g, score
			}
		}
		if chosen == nil && len(groups) > 0 {
			chosen = groups[0]
		}
		if chosen == nil {
			return schedCause{
				Text:       withCount(part),
				Culprit:    fmt.Sprintf("%s vs the taints of the nodes", e.spec("tolerations")),
				Confidence: rule.Plausible,
				Actions:    []report.Action{e.listTaintsAction()},
			}
		}
	}
	t := chosen.Taint
	names := namesOfNodes(chosen.Nodes)
	cause := schedCause{Confidence: rule.Strong, Narrowing: e.reservesPool(t)}
	cause.Text = fmt.Sprintf("%s — %s on %s", withCount(part), kube.TaintSpec(t), kube.NamesUpTo(names, 3))
	cause.Culprit = fmt.Sprintf("taint %s on node(s) %s, not tolerated by %s", kube.TaintSpec(t), kube.NamesUpTo(names, 3), e.spec("tolerations"))
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Node %s has taint %s", names[0], kube.TaintSpec(t)),
		"node/"+names[0]+" .spec.taints", fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.taints}'", names[0])))
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod tolerations: %s", tolerationsText(e.p.Spec.Tolerations)),
		kube.PodRef(e.p)+" .spec.tolerations", fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.tolerations}'", e.p.Name, kube.NSFlag(e.p))))
	known, isKnown := kube.KnownTaints[t.Key]
	switch {
	case known.Expected:
		cause.strength = 10
		cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s.", t.Key, known.Why))
		cause.Actions = []report.Action{{Kind: report.Immediate,
			Description: "Only the control plane can run the pod: on a single-node or lab cluster, let workloads run there by removing the taint; on a production cluster add worker nodes instead.",
			Commands:    []string{fmt.Sprintf("kubectl taint nodes %s %s-", names[0], kube.TaintSpec(t))},
			Risk:        "workloads then compete with the control plane's components for the node"}}
	case known.NodeProblem:
		cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s; it goes away when the node recovers.", t.Key, known.Why))
		cause.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Repair node %s: the taint reflects its condition, not a choice.", names[0]),
			Commands: []string{fmt.Sprintf("kubectl describe node %s", names[0]), fmt.Sprintf("kubectl triage node/%s", names[0])}}}
	case t.Key == "node.kubernetes.io/unschedulable":
		cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s.", t.Key, known.Why))
		cause.Actions = []report.Action{kube.UncordonAction(names)}
	default:
		if isKnown {
			cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s.", t.Key, known.Why))
		} else {
			cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s reserves %s for pods that tolerate it; the pod has no matching toleration.", kube.TaintSpec(t), kube.NamesUpTo(names, 3)))
		}
		var untaint []string
		for _, n := range names[:min(len(names), 3)] {
			untaint = append(untaint, fmt.Sprintf("kubectl taint nodes %s %s-", n, kube.TaintSpec(t)))
		}
		cause.Actions = []report.Action{
			e.tolerationAction(t),
			{Kind: report.Immediate, Description: fmt.Sprintf("Or, if the taint was left by mistake, remove it from %s.", kube.NamesUpTo(names, 3)),
				Commands: untaint, Risk: "other pods may then land on nodes that were reserved"},
		}
	}
	return cause
}

func tolerationsText(tols []corev1.Toleration) string {
	if len(tols) == 0 {
		return "none"
	}
	var out []string
	for _, t := range tols {
		s := t.Key
		if s == "" {
			s = "*"
		}
		switch t.Operator {
		case corev1.TolerationOpExists:
			s += " Exists"
		default:
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + string(t.Effect)
		}
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf(" for %ds", *t.TolerationSeconds)
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func (e *schedContext) listTaintsAction() report.Action {
	return report.Action{Kind: report.Check, Description: "List the nodes' taints and compare them with the pod's tolerations.",
		Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints",
			fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.tolerations}'", e.p.Name, kube.NSFlag(e.p))}}
}

// tolerationAction appends a toleration with a JSON patch: a strategic merge
// would replace the whole list. Pods may gain tolerations in place.
func (e *schedContext) tolerationAction(t corev1.Taint) report.Action {
	tol := fmt.Sprintf(`{"key":"%s","operator":"Equal","value":"%s","effect":"%s"}`, t.Key, t.Value, t.Effect)
	if t.Value == "" {
		tol = fmt.Sprintf(`{"key":"%s","operator":"Exists","effect":"%s"}`, t.Key, t.Effect)
	}
	path, existing := "/spec/tolerations", e.p.Spec.Tolerations
	if tpl := e.template(); tpl != nil {
		path, existing = strings.ReplaceAll(podTemplatePath(e.kind), ".", "/")+"/tolerations", tpl.Spec.Tolerations
	}
	patch := fmt.Sprintf(`[{"op":"add","path":"%s","value":[%s]}]`, path, tol)
	if len(existing) > 0 {
		patch = fmt.Sprintf(`[{"op":"add","path":"%s/-","value":%s}]`, path, tol)
	}
	risk := "the pod may then run on nodes that were reserved for other work"
	if e.kind != "pod" {
		risk += "; " + e.templateRisk("the change starts a rollout")
	}
	return report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("If the pod belongs on the tainted nodes, add a toleration for %s.", kube.TaintSpec(t)),
		Commands: e.templateCommands([]string{fmt.Sprintf("kubectl patch %s %s --type=json -p '%s'", e.workload(), kube.NSFlag(e.p), patch)},
			fmt.Sprintf("add %s to %s.tolerations", tol, strings.TrimPrefix(podTemplatePath(e.kind), "."))),
		Risk: risk}
}

func (e *schedContext) cordoned(part schedReason, _ submatch.Match) schedCause {
	var names []string
	for _, n := range e.c.B.Nodes {
		if n.Spec.Unschedulable {
			names = append(names, n.Name)
		}
	}
	cause := schedCause{Confidence: rule.Strong}
	if len(names) == 0 {
		cause.Text = withCount(part)
		cause.Culprit = "cordoned nodes (none is cordoned now)"
		cause.Confidence = rule.Plausible
		cause.Actions = []report.Action{{Kind: report.Check, Description: "List the cordoned nodes.",
			Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,UNSCHEDULABLE:.spec.unschedulable"}}}
		return cause
	}
	cause.Text = fmt.Sprintf("%s — cordoned: %s", withCount(part), kube.NamesUpTo(names, 3))
	cause.Culprit = fmt.Sprintf("cordoned node(s) %s (spec.unschedulable=true)", kube.NamesUpTo(names, 3))
	cause.Definitive = len(names) == len(e.c.B.Nodes)
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Node %s is cordoned (spec.unschedulable=true)", names[0]),
		"node/"+names[0]+" .spec.unschedulable", fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.unschedulable}'", names[0])))
	cause.Actions = []report.Action{kube.UncordonAction(names)}
	return cause
}

// reservesPool: the taint keeps the pod off nodes reserved for other pods
// (a pool or role, the control plane) while the scheduler's counts show
// other nodes that passed TaintToleration and NodeAffinity and failed a
// later filter. Those other nodes are the ones the pod would otherwise
// fit; the taint only narrows the choice (docs/DESIGN.md, "Scheduling:
// the nodes that otherwise fit"). A taint from a node condition or a
// cordon is not a reservation: that node would take the pod once repaired.
//
// The control plane's taint reserves by design; another taint only when
// the scheduler's preemption commentary confirms nodes where preemption
// was tried (its victims search runs only on nodes that failed a
// resolvable filter, so they passed the taints and the selector).
func (e *schedContext) reservesPool(t corev1.Taint) bool {
	known := kube.KnownTaints[t.Key]
	if e.pastAffinity == 0 || known.NodeProblem || t.Key == "node.kubernetes.io/unschedulable" || t.Key == "node.kubernetes.io/out-of-service" {
		return false
	}
	return known.Expected || e.preemptionTried > 0
}
