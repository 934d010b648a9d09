package workload

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/scheduling"
)

// DaemonSetCoverage is the rule workload/daemonset-coverage.
var DaemonSetCoverage = &rule.Rule{
	Meta: rule.Meta{
		ID:       "workload/daemonset-coverage",
		Kinds:    []string{"DaemonSet"},
		Layer:    rule.WorkloadLayer,
		Requires: PodLevel,
		Needs:    append([]rule.Need{rule.Nodes}, Needs...),
		Doc:      "A DaemonSet missing from nodes it should run on, unavailable, or misscheduled.",
	},
	Check: checkDaemonSet,
}

// daemonTolerations are added to every DaemonSet pod by its controller, so
// these taints never keep a DaemonSet off a node.
var daemonTolerations = []corev1.Toleration{
	{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/disk-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/pid-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

// NodeExclusion says why a DaemonSet's pod template does not belong on a
// node ("" when it does), the way its controller decides.
func NodeExclusion(spec *corev1.PodSpec, n *corev1.Node) string {
	if why := selectionExclusion(spec, n); why != "" {
		return why
	}
	if t := UntoleratedTaint(spec, n); t != nil {
		return "untolerated taint " + kube.TaintSpec(*t)
	}
	return ""
}

// TaintExclusion is the taint that alone keeps a DaemonSet's pod template
// off a node its labels and affinity select; selected is false when the
// node is not selected at all.
func TaintExclusion(spec *corev1.PodSpec, n *corev1.Node) (taint *corev1.Taint, selected bool) {
	if selectionExclusion(spec, n) != "" {
		return nil, false
	}
	return UntoleratedTaint(spec, n), true
}

// selectionExclusion says why the node's labels do not match the template's
// nodeSelector or required node affinity ("" when they do).
func selectionExclusion(spec *corev1.PodSpec, n *corev1.Node) string {
	for _, k := range kube.SortedKeys(spec.NodeSelector) {
		if v, ok := n.Labels[k]; !ok || v != spec.NodeSelector[k] {
			got := "no such label"
			if ok {
				got = k + "=" + v
			}
			return fmt.Sprintf("nodeSelector %s=%s does not match (%s)", k, spec.NodeSelector[k], got)
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if !nodeSelectorMatches(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, n) {
			return "required node affinity does not match its labels"
		}
	}
	return ""
}

// UntoleratedTaint is the first NoSchedule or NoExecute taint of the node
// that the template, with the tolerations its controller adds, does not
// tolerate.
func UntoleratedTaint(spec *corev1.PodSpec, n *corev1.Node) *corev1.Taint {
	tolerations := append(append([]corev1.Toleration(nil), spec.Tolerations...), daemonTolerations...)
	if spec.HostNetwork {
		tolerations = append(tolerations, corev1.Toleration{Key: "node.kubernetes.io/network-unavailable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !scheduling.PodToleratesTaint(tolerations, t) {
			return t
		}
	}
	return nil
}

// nodeSelectorMatches evaluates required node affinity: terms are ORed,
// the expressions of a term ANDed.
func nodeSelectorMatches(sel *corev1.NodeSelector, n *corev1.Node) bool {
	for _, term := range sel.NodeSelectorTerms {
		reqs := scheduling.SelectorTermReqs(term)
		if len(reqs) > 0 && len(scheduling.NodesMatching([]*corev1.Node{n}, reqs)) == 1 {
			return true
		}
	}
	return false
}

// DaemonPodNode is the node a DaemonSet pod is for: bound, or still named
// by the node affinity its controller sets.
func DaemonPodNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}

func checkDaemonSet(c *rule.Pass) []rule.Finding {
	ds := kube.TargetOf(c, "DaemonSet", c.B.DaemonSets)
	if ds == nil {
		return nil
	}
	var out []rule.Finding
	st := ds.Status
	evidence := []string{c.Evidence(
		fmt.Sprintf("DaemonSet %s: %d desired, %d current, %d ready, %d available, %d unavailable, %d misscheduled", ds.Name, st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.NumberAvailable, st.NumberUnavailable, st.NumberMisscheduled),
		fmt.Sprintf("daemonset/%s .status", ds.Name), fmt.Sprintf("kubectl get daemonset %s -n %s -o wide", ds.Name, ds.Namespace))}
	excluded := map[string]string{}
	for _, n := range c.B.Nodes {
		if why := NodeExclusion(&ds.Spec.Template.Spec, n); why != "" {
			excluded[n.Name] = why
		}
	}
	pods := kube.PodsOf(c, ds.UID)
	if st.DesiredNumberScheduled == 0 {
		out = append(out, daemonNoNodes(c, ds, excluded, evidence))
	}
	if st.DesiredNumberScheduled > 0 && (st.CurrentNumberScheduled < st.DesiredNumberScheduled || st.NumberUnavailable > 0 || st.NumberReady < st.DesiredNumberScheduled) {
		out = append(out, daemonUnavailable(c, ds, pods, excluded, evidence))
	}
	if st.NumberMisscheduled > 0 {
		out = append(out, daemonMisscheduled(c, ds, pods, excluded, evidence))
	}
	if st.DesiredNumberScheduled > 0 {
		withPod := map[string]bool{}
		for _, p := range pods {
			withPod[DaemonPodNode(p)] = true
		}
		var faults []SkippedNode
		for _, s := range TaintSkipped(ds, c.B.Nodes, withPod) {
			if s.Fault {
				faults = append(faults, s)
			}
		}
		if len(faults) > 0 {
			out = append(out, daemonTaintSkipped(c, ds, faults, evidence))
		}
	}
	return out
}

func daemonNoNodes(c *rule.Pass, ds *appsv1.DaemonSet, excluded map[string]string, evidence []string) rule.Finding {
	spec := &ds.Spec.Template.Spec
	f := rule.Finding{Category: rule.DaemonSet.Sub("NoEligibleNodes"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: ds.Name}
	constraints := []string{}
	if len(spec.NodeSelector) > 0 {
		constraints = append(constraints, "nodeSelector "+labelString(spec.NodeSelector))
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		constraints = append(constraints, "required node affinity")
	}
	f.Mechanism = "The DaemonSet controller runs one pod on each node that matches the pod template's nodeSelector and node affinity and whose NoSchedule/NoExecute taints the template tolerates; when no node qualifies it wants 0 pods and creates none."
	f.Actions = []report.Action{
		{Kind: report.Check, Description: "Compare the DaemonSet's nodeSelector and tolerations with the nodes' labels and taints.",
			Commands: []string{fmt.Sprintf(`kubectl get daemonset %s -n %s -o jsonpath='{.spec.template.spec.nodeSelector}{"\n"}{.spec.template.spec.tolerations}'`, ds.Name, ds.Namespace),
				"kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints --show-labels"}},
	}
	if len(c.B.Nodes) > 0 && len(excluded) == len(c.B.Nodes) {
		reasons := map[string][]string{}
		for _, n := range kube.SortedKeys(excluded) {
			reasons[excluded[n]] = append(reasons[excluded[n]], n)
		}
		var parts, taints []string
		for _, why := range kube.SortedKeys(reasons) {
			if t, ok := strings.CutPrefix(why, "untolerated taint "); ok {
				taints = append(taints, t)
			}
			parts = append(parts, fmt.Sprintf("%s on %s", why, strings.Join(reasons[why], ", ")))
			evidence = append(evidence, c.Evidence(fmt.Sprintf("DaemonSet %s does not fit node(s) %s: %s", ds.Name, strings.Join(reasons[why], ", "), why),
				"node/"+reasons[why][0]+" .metadata.labels/.spec.taints", "kubectl get nodes --show-labels -o wide"))
		}
		f.Confidence = rule.Strong
		f.Strength = rule.Explained
		f.Hypothesis = fmt.Sprintf("No node qualifies for DaemonSet %s", ds.Name)
		f.Title = fmt.Sprintf("daemonset %s runs nowhere: none of the %d nodes qualifies (%s)", ds.Name, len(c.B.Nodes), strings.Join(parts, "; "))
		f.Summary = fmt.Sprintf("DaemonSet %s wants 0 pods because every node is excluded: %s.", ds.Name, strings.Join(parts, "; "))
		f.Culprit = fmt.Sprintf("daemonset/%s %s", ds.Name, kube.ValueOr(strings.Join(constraints, " and "), "tolerations"))
		// Nodes excluded by a taint passed the selector: the missing
		// toleration is what keeps the DaemonSet off the nodes it selects.
		if len(taints) > 0 {
			f.Category = f.Category.Sub("Taint")
			f.Culprit = fmt.Sprintf("daemonset/%s tolerations (no toleration for %s)", ds.Name, strings.Join(taints, ", "))
		} else {
			f.Category = f.Category.Sub("NodeSelector")
		}
	} else if len(constraints) > 0 {
		f.Confidence = rule.Plausible
		f.Hypothesis = fmt.Sprintf("The %s of DaemonSet %s matches no node", strings.Join(constraints, " and "), ds.Name)
		f.Title = fmt.Sprintf("daemonset %s runs nowhere: its %s matches no node (desiredNumberScheduled is 0)", ds.Name, strings.Join(constraints, " and "))
		f.Summary = fmt.Sprintf("DaemonSet %s wants 0 pods: no node carries the labels its %s asks for, or the nodes that do carry taints it does not tolerate.", ds.Name, strings.Join(constraints, " and "))
		f.Culprit = fmt.Sprintf("daemonset/%s %s", ds.Name, strings.Join(constraints, " and "))
		f.Category = f.Category.Sub("NodeSelector")
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Label the nodes the DaemonSet is meant for, or fix its nodeSelector.",
			Commands: []string{fmt.Sprintf("kubectl get nodes -l %s", strings.ReplaceAll(strings.Trim(labelString(spec.NodeSelector), "{}"), " ", "")),
				"kubectl label node <node> " + strings.ReplaceAll(strings.Trim(labelString(spec.NodeSelector), "{}"), ",", " ")},
			Risk: "other workloads selecting those labels may move onto the newly labelled nodes"}}, f.Actions...)
	} else {
		f.Verdict = report.Inconclusive
		f.Confidence = rule.Weak
		f.Hypothesis = fmt.Sprintf("Every node carries a taint DaemonSet %s does not tolerate", ds.Name)
		f.Title = fmt.Sprintf("daemonset %s wants 0 pods", ds.Name)
		f.Culprit = "daemonset/" + ds.Name + " tolerations"
	}
	f.Evidence = evidence
	return f
}

func daemonUnavailable(c *rule.Pass, ds *appsv1.DaemonSet, pods []*corev1.Pod, excluded map[string]string, evidence []string) rule.Finding {
	st := ds.Status
	f := rule.Finding{Category: rule.DaemonSet.Sub("Unavailable"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: ds.Name, Confidence: rule.Plausible}
	causes := kube.PodCauses(c, pods)
	var problems, failing []string
	var culprit string
	withPod := map[string]bool{}
	for _, p := range pods {
		node := DaemonPodNode(p)
		withPod[node] = true
		if kube.IsPodReady(p) {
			continue
		}
		failing = append(failing, fmt.Sprintf("%s (node %s)", p.Name, kube.OrDash(node)))
		state, ev := kube.DescribePod(c, p)
		evidence = append(evidence, ev...)
		if cause := causes[p.Name]; cause != nil {
			state = cause.Title
			f.Confidence = rule.Even
			f.Context = true
			culprit = kube.ValueOr(culprit, cause.Culprit)
		}
		problems = append(problems, fmt.Sprintf("node %s: pod %s %s", kube.OrDash(node), p.Name, state))
		culprit = kube.ValueOr(culprit, fmt.Sprintf("pod/%s on node %s: %s", p.Name, kube.OrDash(node), state))
	}
	var noPod []string
	for _, n := range c.B.Nodes {
		if excluded[n.Name] == "" && !withPod[n.Name] {
			noPod = append(noPod, n.Name)
		}
	}
	if len(noPod) > 0 {
		problems = append(problems, fmt.Sprintf("no pod on node(s) %s", strings.Join(noPod, ", ")))
	}
	missing := st.DesiredNumberScheduled - st.CurrentNumberScheduled
	if missing > 0 {
		if len(kube.EventsWith(c, ds.UID, "FailedCreate")) > 0 {
			f.Confidence = rule.Even
			f.Contributing = append(f.Contributing, "The DaemonSet reports FailedCreate: see the creation refusal.")
		}
		if len(noPod) == 0 {
			problems = append(problems, fmt.Sprintf("%d node(s) have no pod", missing))
		}
	}
	if len(problems) == 0 {
		problems = append(problems, fmt.Sprintf("%d pod(s) unavailable", st.NumberUnavailable))
	}
	unavailable := st.DesiredNumberScheduled - st.NumberAvailable
	if unavailable <= 0 {
		unavailable = st.NumberUnavailable
	}
	if f.Context {
		f.Contributing = append([]string{fmt.Sprintf("DaemonSet %s is available on %d of its %d nodes; its failing pods: %s.", ds.Name, st.NumberAvailable, st.DesiredNumberScheduled, strings.Join(failing, ", "))}, f.Contributing...)
	}
	f.Hypothesis = fmt.Sprintf("DaemonSet %s is missing or unready on %d of its %d nodes", ds.Name, unavailable, st.DesiredNumberScheduled)
	f.Title = fmt.Sprintf("daemonset %s is unavailable on %d of %d nodes: %s", ds.Name, unavailable, st.DesiredNumberScheduled, strings.Join(problems, "; "))
	f.Summary = fmt.Sprintf("DaemonSet %s should run on %d node(s) but only %d pod(s) are available: %s.", ds.Name, st.DesiredNumberScheduled, st.NumberAvailable, strings.Join(problems, "; "))
	f.Culprit = kube.ValueOr(culprit, "daemonset/"+ds.Name)
	f.Mechanism = "A DaemonSet is available on a node once its pod there is Ready for minReadySeconds; a node without a pod, or with a failing one, counts as unavailable. Whatever keeps that pod from running (its container, its node, admission) is the cause."
	if len(excluded) > 0 {
		var names []string
		for _, n := range kube.SortedKeys(excluded) {
			names = append(names, fmt.Sprintf("%s (%s)", n, excluded[n]))
		}
		f.Contributing = append(f.Contributing, fmt.Sprintf("Not counted, by design of its selector and tolerations: %s.", strings.Join(names, ", ")))
	}
	f.Actions = []report.Action{{Kind: report.Check, Description: "List the DaemonSet's pods per node and describe the failing ones.",
		Commands: []string{fmt.Sprintf("kubectl get pods -n %s -l %s -o wide", ds.Namespace, selectorString(ds.Spec.Selector)), fmt.Sprintf("kubectl describe daemonset %s -n %s", ds.Name, ds.Namespace)}}}
	f.Evidence = evidence
	return f
}

func daemonMisscheduled(c *rule.Pass, ds *appsv1.DaemonSet, pods []*corev1.Pod, excluded map[string]string, evidence []string) rule.Finding {
	f := rule.Finding{Category: rule.DaemonSet.Sub("Misscheduled"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: ds.Name, Confidence: rule.Moderate}
	var where []string
	var taint bool
	for _, p := range pods {
		node := DaemonPodNode(p)
		if why := excluded[node]; why != "" {
			where = append(where, fmt.Sprintf("pod %s on node %s (%s)", p.Name, node, why))
			taint = taint || strings.Contains(why, "taint")
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Node %s no longer qualifies for DaemonSet %s: %s", node, ds.Name, why),
				"node/"+node+" .metadata.labels/.spec.taints", fmt.Sprintf("kubectl get node %s -o jsonpath='{.metadata.labels}{\"\\n\"}{.spec.taints}'", node)))
		}
	}
	f.Hypothesis = fmt.Sprintf("DaemonSet %s runs pods on nodes it no longer selects", ds.Name)
	f.Mechanism = "The DaemonSet controller counts a pod as misscheduled when it runs on a node the pod template no longer selects or tolerates: a NoSchedule taint added after the pod started, or a nodeSelector/toleration removed from the template. The pod keeps running, but once it is deleted or updated it is not recreated there."
	if len(where) > 0 {
		f.Confidence = rule.High
		if taint {
			f.Category = f.Category.Sub("Taint")
		} else {
			f.Category = f.Category.Sub("NodeSelector")
		}
		f.Title = fmt.Sprintf("daemonset %s has %d misscheduled pod(s): %s", ds.Name, ds.Status.NumberMisscheduled, strings.Join(where, "; "))
		f.Summary = fmt.Sprintf("DaemonSet %s still runs on nodes it no longer qualifies for: %s. These pods will not come back once they are deleted or the DaemonSet is updated.", ds.Name, strings.Join(where, "; "))
		f.Culprit = fmt.Sprintf("daemonset/%s tolerations/nodeSelector vs %s", ds.Name, where[0])
	} else {
		f.Title = fmt.Sprintf("daemonset %s has %d misscheduled pod(s) on nodes it no longer selects", ds.Name, ds.Status.NumberMisscheduled)
		f.Summary = f.Title + "; the nodes were not collected, so which label or taint changed is not known."
		f.Culprit = fmt.Sprintf("daemonset/%s tolerations/nodeSelector", ds.Name)
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "If the DaemonSet belongs on those nodes, add the toleration (or label) back to its template; otherwise delete the leftover pods.",
			Commands: []string{fmt.Sprintf(`kubectl get daemonset %s -n %s -o jsonpath='{.spec.template.spec.tolerations}'`, ds.Name, ds.Namespace), "kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints"},
			Risk:     "a toleration lets the pod onto nodes reserved for other work"},
	}
	f.Evidence = evidence
	return f
}
