package scheduling

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// nodeReq is one requirement on a node: a nodeSelector pair, or an
// expression of a node affinity term.
type nodeReq struct {
	Key      string
	Op       corev1.NodeSelectorOperator
	Values   []string
	Field    bool // matchFields (metadata.name)
	Selector bool // from spec.nodeSelector: printed key=value
}

func (r nodeReq) String() string {
	switch {
	case r.Selector:
		return r.Key + "=" + r.Values[0]
	case r.Op == corev1.NodeSelectorOpExists || r.Op == corev1.NodeSelectorOpDoesNotExist:
		return r.Key + " " + string(r.Op)
	}
	return fmt.Sprintf("%s %s [%s]", r.Key, r.Op, strings.Join(r.Values, ", "))
}

func (r nodeReq) value(n *corev1.Node) (string, bool) {
	if r.Field {
		return n.Name, r.Key == "metadata.name"
	}
	v, ok := n.Labels[r.Key]
	return v, ok
}

// matches follows the scheduler's semantics: NotIn and DoesNotExist hold for
// a node without the label.
func (r nodeReq) matches(n *corev1.Node) bool {
	v, ok := r.value(n)
	switch r.Op {
	case corev1.NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return ok
	case corev1.NodeSelectorOpDoesNotExist:
		return !ok
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Op == corev1.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// nodeTerm is a set of requirements that must all hold, and where it is in
// the spec.
type nodeTerm struct {
	Where string
	Reqs  []nodeReq
}

func SelectorTermReqs(t corev1.NodeSelectorTerm) []nodeReq {
	var out []nodeReq
	for _, x := range t.MatchExpressions {
		out = append(out, nodeReq{Key: x.Key, Op: x.Operator, Values: x.Values})
	}
	for _, x := range t.MatchFields {
		out = append(out, nodeReq{Key: x.Key, Op: x.Operator, Values: x.Values, Field: true})
	}
	return out
}

// podNodeTerms returns the nodeSelector (one term, may be empty) and the
// required node affinity terms (any one must hold).
func podNodeTerms(p *corev1.Pod) (nodeTerm, []nodeTerm) {
	sel := nodeTerm{Where: "nodeSelector"}
	keys := make([]string, 0, len(p.Spec.NodeSelector))
	for k := range p.Spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sel.Reqs = append(sel.Reqs, nodeReq{Key: k, Op: corev1.NodeSelectorOpIn, Values: []string{p.Spec.NodeSelector[k]}, Selector: true})
	}
	var terms []nodeTerm
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			terms = append(terms, nodeTerm{
				Where: fmt.Sprintf("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", i),
				Reqs:  SelectorTermReqs(t),
			})
		}
	}
	return sel, terms
}

func NodesMatching(nodes []*corev1.Node, reqs []nodeReq) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range nodes {
		ok := true
		for _, r := range reqs {
			if !r.matches(n) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, n)
		}
	}
	return out
}

// labelValues describes the values a label key takes on the nodes.
func nodeLabelValues(nodes []*corev1.Node, key string) string {
	counts := map[string]int{}
	var order []string
	for _, n := range nodes {
		if v, ok := n.Labels[key]; ok {
			if counts[v] == 0 {
				order = append(order, v)
			}
			counts[v]++
		}
	}
	if len(order) == 0 {
		return fmt.Sprintf("no node has a label %s", key)
	}
	sort.SliceStable(order, func(i, j int) bool { return counts[order[i]] > counts[order[j]] })
	var parts []string
	for _, v := range order[:min(len(order), 5)] {
		parts = append(parts, fmt.Sprintf("%s=%s (%s)", key, v, nodesCount(counts[v])))
	}
	return "nodes have " + strings.Join(parts, ", ")
}

// closestNode is the node satisfying most of reqs, and what it has for the
// requirements it fails. Ties go to a node that carries the keys asked for,
// then to a Ready one: the likeliest intended target.
func closestNode(nodes []*corev1.Node, reqs []nodeReq) (*corev1.Node, string) {
	var best *corev1.Node
	bestScore, bestTie := -1, -1
	for _, n := range nodes {
		score, tie := 0, 0
		for _, r := range reqs {
			if r.matches(n) {
				score++
			}
			if _, ok := r.value(n); ok {
				tie += 2
			}
		}
		if cond := kube.NodeCondition(n, corev1.NodeReady); cond != nil && cond.Status == corev1.ConditionTrue {
			tie++
		}
		if score > bestScore || (score == bestScore && tie > bestTie) {
			best, bestScore, bestTie = n, score, tie
		}
	}
	if best == nil {
		return nil, ""
	}
	var has []string
	for _, r := range reqs {
		if r.matches(best) {
			continue
		}
		if v, ok := r.value(best); ok {
			has = append(has, fmt.Sprintf("%s=%s", r.Key, v))
		} else {
			has = append(has, "no label "+r.Key)
		}
	}
	return best, fmt.Sprintf("has %s (matches %d of %d)", strings.Join(has, ", "), bestScore, len(reqs))
}

func (e *schedContext) nodeAffinity(part schedReason, _ submatch.Match) schedCause {
	nodes := e.c.B.Nodes
	sel, terms := podNodeTerms(e.p)
	cause := schedCause{Confidence: rule.Strong}
	checkCmd := "kubectl get nodes --show-labels"
	if keys := termKeys(sel, terms); len(keys) > 0 {
		checkCmd = "kubectl get nodes -L " + strings.Join(keys, ",")
	}
	check := report.Action{Kind: report.Check, Description: "Compare the labels the pod asks for with the nodes' labels.",
		Commands: []string{checkCmd, fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.nodeSelector}{"\n"}{.spec.affinity.nodeAffinity}'`, e.p.Name, kube.NSFlag(e.p))}}
	if len(sel.Reqs) > 0 {
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod nodeSelector: %s", nodeReqsString(sel.Reqs)),
			kube.PodRef(e.p)+" .spec.nodeSelector", fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.nodeSelector}'", e.p.Name, kube.NSFlag(e.p))))
	}
	for _, t := range terms {
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requires node affinity %s: %s", termLabel(t.Where), nodeReqsString(t.Reqs)),
			kube.PodRef(e.p)+" .spec."+t.Where, fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity.nodeAffinity}'", e.p.Name, kube.NSFlag(e.p))))
	}
	if e.pastAffinity > 0 && (len(sel.Reqs) > 0 || len(terms) > 0) && len(nodes) == 0 {
		// The nodes could not be read, but the scheduler's own counts say
		// some nodes matched the selector and failed a later filter: the
		// selector narrows the choice (as meant), those later reasons
		// block it. (Nodes that are read and contradict the message are
		// newer than it: they decide, below.)
		where, reqs := "nodeSelector", sel.Reqs
		if len(terms) > 0 {
			where, reqs = "affinity.nodeAffinity", append(append([]nodeReq(nil), sel.Reqs...), terms[0].Reqs...)
		}
		cause.Class = causeNodeSelector
		if len(sel.Reqs) == 0 {
			cause.Class = causeNodeAffinity
		}
		left := e.pastAffinity // a node can fail one filter for several reasons
		if e.total > 0 && left > e.total-part.Nodes {
			left = e.total - part.Nodes
		}
		cause.Text = fmt.Sprintf("%s — %s %s leaves %s, which the other reasons rule out", withCount(part), where, nodeReqsString(reqs), nodesCount(left))
		cause.Culprit = fmt.Sprintf("%s %s limits the pod to %s, which the other reasons exclude", e.spec(where), nodeReqsString(reqs), nodesCount(left))
		cause.Confidence, cause.Narrowing = rule.Likely, true
		cause.Actions = []report.Action{check}
		return cause
	}
	if len(nodes) == 0 || (len(sel.Reqs) == 0 && len(terms) == 0) {
		cause.Text = withCount(part)
		cause.Culprit = e.spec("nodeSelector/.affinity.nodeAffinity")
		cause.Confidence = rule.Probable
		// The scheduler's counts still say other nodes matched and failed
		// a later filter: those decide.
		cause.Narrowing = e.pastAffinity > 0
		cause.Actions = []report.Action{check}
		return cause
	}
	// The nodeSelector first: a pair no node carries is the whole story.
	for _, r := range sel.Reqs {
		if len(NodesMatching(nodes, []nodeReq{r})) == 0 {
			return e.affinityMiss(cause, part, causeNodeSelector, "nodeSelector", r, sel.Reqs, check)
		}
	}
	allowed := NodesMatching(nodes, sel.Reqs)
	if len(allowed) == 0 {
		closest, has := closestNode(nodes, sel.Reqs)
		cause.Class, cause.Definitive = causeNodeSelector, true
		cause.Text = fmt.Sprintf("%s — no node carries all of nodeSelector %s together; closest node %s %s", withCount(part), nodeReqsString(sel.Reqs), closest.Name, has)
		cause.Culprit = fmt.Sprintf("%s %s: no node has all these labels (closest: %s %s)", e.spec("nodeSelector"), nodeReqsString(sel.Reqs), closest.Name, has)
		cause.Actions = []report.Action{e.labelNodeAction(closest, sel.Reqs), check}
		return cause
	}
	if len(terms) > 0 {
		var misses []string
		var firstMiss *nodeReq
		var firstTerm nodeTerm
		var satisfiable []*corev1.Node
		for _, t := range terms {
			if ok := NodesMatching(allowed, t.Reqs); len(ok) > 0 {
				satisfiable = append(satisfiable, ok...)
				continue
			}
			for i, r := range t.Reqs {
				if len(NodesMatching(allowed, []nodeReq{r})) == 0 {
					misses = append(misses, fmt.Sprintf("%s: %s", termLabel(t.Where), r.String()))
					if firstMiss == nil {
						firstMiss, firstTerm = &t.Reqs[i], t
					}
					break
				}
			}
		}
		if len(satisfiable) == 0 {
			if len(terms) == 1 && firstMiss != nil {
				return e.affinityMiss(cause, part, causeNodeAffinity, terms[0].Where, *firstMiss, append(append([]nodeReq(nil), sel.Reqs...), terms[0].Reqs...), check)
			}
			closest, has := closestNode(allowed, append(append([]nodeReq(nil), sel.Reqs...), terms[0].Reqs...))
			cause.Class, cause.Definitive = causeNodeAffinity, true
			detail := "no node satisfies any required node affinity term"
			if len(misses) > 0 {
				detail += " (" + strings.Join(misses, "; ") + " match no node)"
			}
			cause.Text = fmt.Sprintf("%s — %s; closest node %s %s", withCount(part), detail, closest.Name, has)
			cause.Culprit = fmt.Sprintf("%s: %s", e.spec("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"), detail)
			if firstMiss != nil {
				cause.Culprit = fmt.Sprintf("%s %s: %s", e.spec(firstTerm.Where), firstMiss.String(), detail)
			}
			cause.Actions = []report.Action{e.editAffinityAction(), check}
			return cause
		}
		allowed = uniqueNodes(satisfiable)
	}
	// Some nodes satisfy the selector and affinity: the constraint narrows
	// the choice, the other reasons rule out what is left.
	where := "nodeSelector"
	reqs := sel.Reqs
	if len(terms) > 0 {
		where = "affinity.nodeAffinity"
		reqs = append(append([]nodeReq(nil), sel.Reqs...), terms[0].Reqs...)
	}
	cause.Class = causeNodeSelector
	if len(sel.Reqs) == 0 {
		cause.Class = causeNodeAffinity
	}
	cause.Text = fmt.Sprintf("%s — %s %s allows only %s, which the other reasons rule out", withCount(part), where, nodeReqsString(reqs), kube.NamesUpTo(namesOfNodes(allowed), 3))
	cause.Culprit = fmt.Sprintf("%s %s limits the pod to %s, which the other reasons exclude", e.spec(where), nodeReqsString(reqs), kube.NamesUpTo(namesOfNodes(allowed), 3))
	cause.Confidence = rule.Likely
	cause.Narrowing = true
	cause.Actions = []report.Action{check}
	return cause
}

func uniqueNodes(nodes []*corev1.Node) []*corev1.Node {
	seen := map[string]bool{}
	var out []*corev1.Node
	for _, n := range nodes {
		if !seen[n.Name] {
			seen[n.Name] = true
			out = append(out, n)
		}
	}
	return out
}

// affinityMiss explains one requirement that no known node satisfies.
func (e *schedContext) affinityMiss(cause schedCause, part schedReason, class causeClass, where string, miss nodeReq, all []nodeReq, check report.Action) schedCause {
	nodes := e.c.B.Nodes
	closest, has := closestNode(nodes, all)
	values := nodeLabelValues(nodes, miss.Key)
	if miss.Field {
		values = "node names are " + kube.NamesUpTo(namesOfNodes(nodes), 3)
	}
	cause.Class, cause.Definitive = class, true
	what := "nodeSelector " + miss.String()
	if class == causeNodeAffinity {
		what = termLabel(where) + " " + miss.String()
	}
	cause.Text = fmt.Sprintf("%s — %s matches no node (%s); closest node %s %s", withCount(part), what, values, closest.Name, has)
	cause.Culprit = fmt.Sprintf("%s %s: no node matches (%s; closest node %s %s)", e.spec(where), miss.String(), values, closest.Name, has)
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Node labels for %s: %s", miss.Key, values),
		"nodes .metadata.labels", "kubectl get nodes -L "+miss.Key))
	fix := e.editAffinityAction()
	if class == causeNodeSelector {
		fix = e.fixSelectorAction(miss, closest)
	}
	cause.Actions = []report.Action{fix, e.labelNodeAction(closest, all), check}
	return cause
}

func (e *schedContext) fixSelectorAction(miss nodeReq, closest *corev1.Node) report.Action {
	value := "<a value the nodes carry>"
	if v, ok := closest.Labels[miss.Key]; ok {
		value = v
	}
	a := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Correct nodeSelector %s to a label the intended nodes carry.", miss.String()),
		Commands: []string{fmt.Sprintf(`kubectl patch %s %s -p '{"spec":{"template":{"spec":{"nodeSelector":{"%s":"%s"}}}}}'`,
			e.workload(), kube.NSFlag(e.p), miss.Key, value)},
		Risk: e.templateRisk("starts a rollout") + "; the pods then run on the nodes that carry the label"}
	switch e.kind {
	case "pod":
		a.Description += " A pod's nodeSelector cannot change: edit the manifest and recreate it."
		a.Commands = e.recreate(fmt.Sprintf("set spec.nodeSelector.%s: %s", miss.Key, value))
		a.Risk = kube.RecreateRisk
	case "cronjob":
		a.Commands = []string{fmt.Sprintf(`kubectl patch %s %s -p '{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"nodeSelector":{"%s":"%s"}}}}}}}'`,
			e.workload(), kube.NSFlag(e.p), miss.Key, value)}
	}
	if e.kind != "pod" {
		a.Commands = e.templateCommands(a.Commands, fmt.Sprintf("set spec.template.spec.nodeSelector.%s: %s", miss.Key, value))
	}
	return a
}

func (e *schedContext) editAffinityAction() report.Action {
	a := report.Action{Kind: report.Immediate,
		Description: "Correct the required node affinity so that it matches the labels of the intended nodes.",
		Commands:    []string{fmt.Sprintf("kubectl edit %s %s   # %s.affinity.nodeAffinity", e.workload(), kube.NSFlag(e.p), podTemplatePath(e.kind))},
		Risk:        e.templateRisk("starts a rollout")}
	a.Commands = e.templateCommands(a.Commands, "fix spec.template.spec.affinity.nodeAffinity")
	if e.kind == "pod" {
		a.Commands = e.recreate("fix spec.affinity.nodeAffinity")
		a.Risk = kube.RecreateRisk
	}
	return a
}

// labelNodeAction proposes labelling the closest node so that it satisfies
// the label requirements that can be met by adding a label.
func (e *schedContext) labelNodeAction(n *corev1.Node, reqs []nodeReq) report.Action {
	var pairs []string
	for _, r := range reqs {
		if r.Field || r.matches(n) {
			continue
		}
		switch r.Op {
		case corev1.NodeSelectorOpIn:
			pairs = append(pairs, r.Key+"="+r.Values[0])
		case corev1.NodeSelectorOpExists:
			pairs = append(pairs, r.Key+"=")
		}
	}
	cmd := fmt.Sprintf("kubectl label node %s %s --overwrite", n.Name, strings.Join(pairs, " "))
	if len(pairs) == 0 {
		cmd = fmt.Sprintf("kubectl label node %s <key>=<value>", n.Name)
	}
	return report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Or, if %s is meant to run the pod, give it the labels the pod asks for.", n.Name),
		Commands:    []string{cmd},
		Risk:        "other workloads selecting on these labels may start landing on that node"}
}

func nodeReqsString(reqs []nodeReq) string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.String())
	}
	return strings.Join(out, ", ")
}

func termLabel(where string) string {
	if i := strings.LastIndex(where, "nodeSelectorTerms"); i >= 0 {
		return "node affinity term " + strings.TrimSuffix(strings.TrimPrefix(where[i:], "nodeSelectorTerms["), "]")
	}
	return where
}

func termKeys(sel nodeTerm, terms []nodeTerm) []string {
	var keys []string
	for _, t := range append([]nodeTerm{sel}, terms...) {
		for _, r := range t.Reqs {
			if !r.Field && !slices.Contains(keys, r.Key) {
				keys = append(keys, r.Key)
			}
		}
	}
	return keys
}
