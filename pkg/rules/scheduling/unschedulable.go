package scheduling

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Unschedulable is the rule scheduling/unschedulable.
var Unschedulable = &rule.Rule{
	Meta: rule.Meta{
		ID:    "scheduling/unschedulable",
		Layer: rule.PlacementLayer,
		Needs: []rule.Need{rule.Pods, rule.Events, rule.Nodes, rule.Claims, rule.Quotas},
		Doc:   "A pod the scheduler cannot place, and which of its constraints no node meets.",
	},
	Check: checkUnschedulable,
}

// checkUnschedulable: a pod the scheduler cannot place, split into the
// scheduler's reasons, each compared with the nodes, claims and pod spec it
// is about; a pod held by scheduling gates; a pod no scheduler looks at.
func checkUnschedulable(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		var cond *corev1.PodCondition
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.PodScheduled {
				cond = &p.Status.Conditions[i]
			}
		}
		if cond != nil && cond.Status != corev1.ConditionFalse {
			continue
		}
		if len(p.Spec.SchedulingGates) > 0 {
			out = append(out, gatedFinding(c, p, cond))
			continue
		}
		var evidence []string
		msg := ""
		if cond != nil {
			msg = cond.Message
			evidence = append(evidence, c.Evidence(
				fmt.Sprintf("PodScheduled=False (%s): %s", cond.Reason, cond.Message),
				kube.PodRef(p)+" .status.conditions[PodScheduled]",
				fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")]}'`, p.Name, kube.NSFlag(p))))
		}
		for _, e := range c.B.EventsFor(string(p.UID)) {
			if e.Reason == "FailedScheduling" {
				evidence = append(evidence, c.Evidence(
					fmt.Sprintf("Event FailedScheduling ×%d: %s", max(e.Count, 1), e.Message),
					"event on "+kube.PodRef(p),
					fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=FailedScheduling", kube.NSFlag(p), p.Name)))
				if msg == "" || cond == nil {
					msg = e.Message // the newest event: events are sorted oldest first
				}
			}
		}
		switch {
		case len(evidence) > 0:
			out = append(out, schedulingFinding(c, p, msg, evidence)...)
		case p.Status.Phase == corev1.PodPending:
			if f, ok := noSchedulerFinding(c, p); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

func schedulingFinding(c *rule.Pass, p *corev1.Pod, msg string, evidence []string) []rule.Finding {
	kind, owner := kube.OwnerName(c, p)
	e := &schedContext{c: c, p: p, kind: kind, owner: owner, reqs: podRequests(p)}
	total, parts := parseSchedulerMessage(msg)
	e.total = total
	e.pastAffinity = countPastAffinity(parts)
	e.preemptionTried = preemptionTried(msg)
	var causes []schedCause
	for _, part := range dropGenericAffinity(parts) {
		causes = append(causes, e.explain(part))
	}
	f := rule.Finding{
		Category: rule.Unschedulable, Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: p.Name,
		Mechanism: schedMechanism,
	}
	of := ""
	if total > 0 {
		of = fmt.Sprintf(" (0/%d nodes fit)", total)
	}
	if len(causes) == 0 {
		f.Category = f.Category.Sub("Other")
		f.Hypothesis = "The pod cannot be placed on any node: the scheduler gave no reason"
		f.Title = "pod cannot be scheduled: the scheduler gave no reason"
		f.Summary = fmt.Sprintf("Pod %s stays Pending and the scheduler's message names no reason.", p.Name)
		f.Culprit = kube.PodRef(p) + " scheduling constraints"
		f.Confidence = rule.Even
		f.Evidence = evidence
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the scheduler's full message and compare the pod's constraints with the nodes.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p)), "kubectl describe nodes"}}}
		return []rule.Finding{f}
	}
	sort.SliceStable(causes, func(i, j int) bool {
		a, b := causes[i], causes[j]
		if a.Definitive != b.Definitive {
			return a.Definitive
		}
		if a.Narrowing != b.Narrowing {
			return b.Narrowing
		}
		if a.blocked != b.blocked {
			return a.blocked > b.blocked
		}
		return a.strength > b.strength
	})
	top := causes[0]
	var texts []string
	for _, cz := range causes {
		texts = append(texts, cz.Text)
		evidence = kube.AppendUnique(evidence, cz.Evidence...)
	}
	f.Category = f.Category.Sub(string(top.Class))
	f.Hypothesis = "The pod cannot be placed on any node: " + strings.Join(texts, "; ")
	f.Title = fmt.Sprintf("pod cannot be scheduled%s: %s", of, top.Text)
	f.Summary = fmt.Sprintf("Pod %s stays Pending because no node can run it%s: %s.", p.Name, of, top.Text)
	if len(causes) > 1 {
		f.Title += fmt.Sprintf(" (and %d more reason(s))", len(causes)-1)
		f.Summary = fmt.Sprintf("Pod %s stays Pending because no node can run it%s. The scheduler gives %d reasons: %s. The decisive one is: %s.",
			p.Name, of, len(causes), strings.Join(texts, "; "), top.Text)
	}
	if top.Mechanism != "" {
		f.Mechanism += " " + top.Mechanism
	}
	f.Culprit = top.Culprit
	f.Confidence = top.Confidence
	f.Contributing = append(f.Contributing, top.Notes...)
	f.Contributing = append(f.Contributing, e.otherwiseFit(top, causes)...)
	for _, cz := range causes[1:] {
		f.Contributing = append(f.Contributing, "Also blocking: "+cz.Text+".")
	}
	f.Actions = append(f.Actions, top.Actions...)
	for _, cz := range causes[1:] {
		if len(cz.Actions) > 0 && !actionListed(f.Actions, cz.Actions[0]) {
			f.Actions = append(f.Actions, cz.Actions[0])
		}
	}
	if len(f.Actions) == 0 {
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the scheduler's full message and compare the pod's constraints with the nodes.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p)), "kubectl describe nodes"}}}
	}
	e.replacePendingPods(f.Actions)
	f.Evidence = evidence
	out := []rule.Finding{f}
	if r, ok := e.sizeRuledOut(causes); ok {
		out = append(out, r)
	}
	return out
}

func actionListed(list []report.Action, a report.Action) bool {
	for _, have := range list {
		if have.Description == a.Description {
			return true
		}
	}
	return false
}

// dropGenericAffinity removes the pre-1.22 catch-all "didn't match pod
// affinity/anti-affinity" when the specific reason is also listed: both are
// recorded for the same nodes.
func dropGenericAffinity(parts []schedReason) []schedReason {
	specific := false
	for _, p := range parts {
		if strings.Contains(p.Text, "affinity rules") {
			specific = true
		}
	}
	if !specific {
		return parts
	}
	var out []schedReason
	for _, p := range parts {
		if !strings.Contains(p.Text, "pod affinity/anti-affinity") {
			out = append(out, p)
		}
	}
	return out
}

func (e *schedContext) explain(part schedReason) schedCause {
	for i := range schedClasses {
		cl := &schedClasses[i]
		m, ok := submatch.Find(cl.re, part.Text)
		if !ok {
			continue
		}
		var cause schedCause
		if cl.explain != nil {
			cause = cl.explain(e, part, m)
		} else {
			cause = e.tableOnly(cl, part)
		}
		if cause.Class == "" {
			cause.Class = cl.Class
		}
		if cause.strength == 0 {
			cause.strength = cl.Strength
		}
		cause.capacity = cl.capacity
		if cause.Confidence == 0 {
			cause.Confidence = rule.Likely
		}
		if cause.Mechanism == "" {
			cause.Mechanism = cl.Mechanism
		}
		cause.blocked = part.Nodes
		if cause.blocked == 0 {
			cause.blocked = e.total // a pre-filter rejection blocks every node
		}
		return cause
	}
	return schedCause{
		Class: causeOther, Text: withCount(part), Confidence: rule.Plausible, blocked: part.Nodes,
		Culprit: kube.PodRef(e.p) + " scheduling constraints (" + part.Text + ")",
		Actions: []report.Action{{Kind: report.Check, Description: "Compare the pod's scheduling constraints with the nodes the scheduler rejected.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", e.p.Name, kube.NSFlag(e.p)), "kubectl describe nodes"}}},
	}
}

// tableOnly explains a reason from its table row alone.
func (e *schedContext) tableOnly(cl *schedClass, part schedReason) schedCause {
	claims := claimsOfPod(e.p)
	return schedCause{
		Text:       withCount(part) + " — " + cl.Why,
		Culprit:    fmt.Sprintf("%s volumes (claims %s)", e.spec("volumes"), strings.Join(claims, ", ")),
		Confidence: rule.Probable,
		Actions: []report.Action{{Kind: report.Immediate, Description: cl.Fix,
			Commands: []string{fmt.Sprintf("kubectl describe pvc %s", kube.NSFlag(e.p)), "kubectl get pv,storageclass"}}},
	}
}

// sizeRuledOut refutes "the pod is bigger than any node" when the scheduler
// names no resource shortage and every request fits the largest node: a
// resize would not help.
func (e *schedContext) sizeRuledOut(causes []schedCause) (rule.Finding, bool) {
	if len(e.c.B.Nodes) == 0 || len(e.reqs) == 0 {
		return rule.Finding{}, false
	}
	for _, cz := range causes {
		if cz.capacity {
			return rule.Finding{}, false
		}
	}
	var fits []string
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		q, ok := e.reqs[res]
		if !ok {
			continue
		}
		largest, largestQ := largestAllocatable(e.c.B.Nodes, res)
		if largest == nil || largestQ.Cmp(q) < 0 {
			return rule.Finding{}, false
		}
		fits = append(fits, fmt.Sprintf("%s %s ≤ %s on %s", res, q.String(), largestQ.String(), largest.Name))
	}
	if len(fits) == 0 {
		return rule.Finding{}, false
	}
	ev := e.c.Evidence(fmt.Sprintf("Pod requests fit the largest node: %s", strings.Join(fits, ", ")),
		kube.PodRef(e.p)+" .spec.containers[*].resources.requests vs node .status.allocatable",
		"kubectl get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.allocatable.cpu,MEMORY:.status.allocatable.memory")
	return rule.Finding{
		Category: rule.Unschedulable.Sub("Size"), Verdict: report.Refuted, Confidence: rule.Strong, Evidence: []string{ev},
		Hypothesis: "The pod requests more cpu or memory than any node can allocate",
		Subject:    e.p.Name,
	}, true
}
