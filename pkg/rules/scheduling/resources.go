package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// requestCulprit names the request field(s) behind a resource total.
func (e *schedContext) requestCulprit(res corev1.ResourceName, total resource.Quantity) string {
	var names []string
	for _, ctr := range containersWithInit(e.p) {
		if _, ok := ctr.Resources.Requests[res]; ok {
			names = append(names, ctr.Name)
		}
	}
	parts := containerRequests(e.p, res)
	switch len(names) {
	case 0:
		return fmt.Sprintf("%s resources.requests.%s (%s)", e.spec("containers[*]"), res, total.String())
	case 1:
		return fmt.Sprintf("%s.resources.requests.%s (%s)", e.spec("containers["+names[0]+"]"), res, total.String())
	}
	return fmt.Sprintf("%s.resources.requests.%s (%s in total: %s)", e.spec("containers["+strings.Join(names, ",")+"]"), res, total.String(), strings.Join(parts, ", "))
}

// allContainers lists init containers (sidecars included) then containers.
func containersWithInit(p *corev1.Pod) []corev1.Container {
	return append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...)
}

// containerRequests is "name amount" for each container requesting res.
func containerRequests(p *corev1.Pod, res corev1.ResourceName) []string {
	var out []string
	for _, ctr := range containersWithInit(p) {
		if q, ok := ctr.Resources.Requests[res]; ok {
			out = append(out, ctr.Name+" "+q.String())
		}
	}
	return out
}

// biggestRequester is the container asking for the most of res.
func biggestRequester(p *corev1.Pod, res corev1.ResourceName) string {
	best, name := resource.Quantity{}, p.Spec.Containers[0].Name
	for _, ctr := range containersWithInit(p) {
		if q, ok := ctr.Resources.Requests[res]; ok && q.Cmp(best) > 0 {
			best, name = q, ctr.Name
		}
	}
	return name
}

func (e *schedContext) lowerRequest(res corev1.ResourceName) report.Action {
	ctr := biggestRequester(e.p, res)
	a := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Lower the %s request of container %s to what the workload needs and a node can offer.", res, ctr),
		Commands:    []string{fmt.Sprintf("kubectl set resources %s %s -c %s --requests=%s=<amount that fits>", e.workload(), kube.NSFlag(e.p), ctr, res)},
		Risk:        "a request below real usage lets the node overcommit; " + e.templateRisk("the change starts a rollout")}
	a.Commands = e.templateCommands(a.Commands, fmt.Sprintf("lower resources.requests.%s of container %s to an amount that fits", res, ctr))
	if e.kind == "pod" {
		a.Description += " A bare pod's requests cannot be changed while it is pending: edit the manifest and recreate it."
		a.Commands = e.recreate(fmt.Sprintf("lower resources.requests.%s of container %s", res, ctr))
		a.Risk = kube.RecreateRisk + "; a request below real usage lets the node overcommit"
	}
	return a
}

func largestAllocatable(nodes []*corev1.Node, res corev1.ResourceName) (*corev1.Node, resource.Quantity) {
	var best *corev1.Node
	var bestQ resource.Quantity
	for _, n := range nodes {
		if q, ok := n.Status.Allocatable[res]; ok && !q.IsZero() && (best == nil || q.Cmp(bestQ) > 0) {
			best, bestQ = n, q
		}
	}
	return best, bestQ
}

func (e *schedContext) allocatableEvidence(n *corev1.Node, res corev1.ResourceName, q resource.Quantity, note string) string {
	return e.c.Evidence(fmt.Sprintf("Node %s has allocatable %s %s%s", n.Name, res, q.String(), note),
		"node/"+n.Name+" .status.allocatable",
		fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.allocatable}'", n.Name))
}

// insufficient compares the pod's request with what the known nodes can
// allocate. Other pods' requests on those nodes are not in the bundle, so a
// node that is big enough when empty is "full", not measured.
func (e *schedContext) insufficient(part schedReason, m submatch.Match) schedCause {
	res := corev1.ResourceName(m.Get("resource"))
	cause := schedCause{Class: causeInsufficient + causeClass(resourceWord(string(res)))}
	if strings.Contains(string(res), "/") {
		cause.Class = causeInsufficientExtendedResource
	}
	q, ok := e.reqs[res]
	if !ok {
		cause.Text = withCount(part)
		cause.Culprit = fmt.Sprintf("%s resources.requests.%s", e.spec("containers[*]"), res)
		cause.Confidence = rule.Plausible
		cause.Actions = []report.Action{{Kind: report.Check, Description: fmt.Sprintf("Compare the %s requested by the pod with what the nodes have left.", res),
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", e.p.Name, kube.NSFlag(e.p)), "kubectl describe nodes"}}}
		return cause
	}
	breakdown := ""
	if parts := containerRequests(e.p, res); len(parts) > 1 {
		breakdown = " (" + strings.Join(parts, ", ") + ")"
	}
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requests %s %s in total%s", res, q.String(), breakdown),
		kube.PodRef(e.p)+" .spec.containers[*].resources.requests",
		fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].resources.requests}'`, e.p.Name, kube.NSFlag(e.p))))
	nodes := e.c.B.Nodes
	largest, largestQ := largestAllocatable(nodes, res)
	// The scheduler checks resources only on nodes that passed its
	// earlier filters: those are the ones worth quoting.
	eligible := e.eligibleNodes()
	var fits []*corev1.Node
	for _, n := range eligible {
		if a, has := n.Status.Allocatable[res]; has && a.Cmp(q) >= 0 {
			fits = append(fits, n)
		}
	}
	req := fmt.Sprintf("%s %s", res, q.String())
	addNodes := report.Action{Kind: report.LongTerm,
		Description: fmt.Sprintf("Add capacity: nodes with more allocatable %s (a larger node type, or a cluster-autoscaler node group that can fit the pod).", res),
		Commands:    []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.allocatable.cpu,MEMORY:.status.allocatable.memory,PODS:.status.allocatable.pods"}}
	switch {
	case len(nodes) == 0:
		cause.Text = fmt.Sprintf("%s — the pod requests %s; the nodes could not be read to compare", withCount(part), req)
		cause.Culprit = e.requestCulprit(res, q)
		cause.Actions = []report.Action{e.lowerRequest(res), addNodes}
	case largest == nil:
		cause.Text = fmt.Sprintf("%s — the pod requests %s and none of the %d node(s) offers %s at all", withCount(part), req, len(nodes), res)
		cause.Culprit = fmt.Sprintf("%s: no node advertises %s", e.requestCulprit(res, q), res)
		cause.Definitive, cause.Confidence = true, rule.Strong
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("None of the %d node(s) has %s in its allocatable resources", len(nodes), res),
			"nodes .status.allocatable", "kubectl get nodes -o custom-columns=NAME:.metadata.name,ALLOCATABLE:.status.allocatable"))
		cause.Notes = append(cause.Notes, fmt.Sprintf("Extended resources such as %s appear in a node's allocatable only while their device plugin runs on it.", res))
		cause.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Make sure nodes with the device exist and run its device plugin (the DaemonSet that advertises %s), or drop the request if the workload does not need it.", res),
				Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,ALLOCATABLE:.status.allocatable", "kubectl get daemonsets -A"}},
			e.lowerRequest(res),
		}
	case largestQ.Cmp(q) < 0:
		cause.Evidence = append(cause.Evidence, e.allocatableEvidence(largest, res, largestQ, fmt.Sprintf(" (the largest of %d node(s) seen)", len(nodes))))
		cause.Text = fmt.Sprintf("%s — the pod requests %s, more than the largest node (%s) can allocate (%s)", withCount(part), req, largest.Name, largestQ.String())
		cause.Culprit = e.requestCulprit(res, q)
		cause.Definitive, cause.Confidence = true, rule.Definitive
		cause.Actions = []report.Action{e.lowerRequest(res), addNodes}
	case len(fits) == 0:
		// Big nodes exist, but not among those the pod may use.
		bigEligible, bigQ := largestAllocatable(eligible, res)
		cause.Evidence = append(cause.Evidence, e.allocatableEvidence(largest, res, largestQ, " (a node the pod's taints/selector rule out)"))
		cause.Text = fmt.Sprintf("%s — the pod requests %s; only nodes it may not use (taints, selector, cordon) are that big, such as %s (%s)", withCount(part), req, largest.Name, largestQ.String())
		if bigEligible != nil {
			cause.Evidence = append(cause.Evidence, e.allocatableEvidence(bigEligible, res, bigQ, " (the largest node the pod may use)"))
			cause.Text += fmt.Sprintf("; the largest node it may use, %s, allocates %s", bigEligible.Name, bigQ.String())
		}
		cause.Culprit = fmt.Sprintf("%s, more than any node the pod may use can allocate", e.requestCulprit(res, q))
		cause.Confidence = rule.High
		cause.Actions = []report.Action{e.lowerRequest(res), addNodes}
	default:
		for _, n := range fits[:min(len(fits), 3)] {
			a := n.Status.Allocatable[res]
			cause.Evidence = append(cause.Evidence, e.allocatableEvidence(n, res, a, fmt.Sprintf(", enough for the request of %s when empty", q.String())))
		}
		cause.Text = fmt.Sprintf("%s — the pod requests %s; %s could hold that much when empty (%s allocates %s) but the pods already placed there reserve too much of it",
			withCount(part), req, nodesCount(len(fits)), fits[0].Name, allocatableOf(fits[0], res))
		cause.Culprit = fmt.Sprintf("free %s on %s (already reserved by the pods running there) is less than %s", res, kube.NamesUpTo(namesOfNodes(fits), 3), e.requestCulprit(res, q))
		cause.Confidence = rule.High
		cause.Notes = append(cause.Notes, e.ownRequests(fits, res)...)
		cause.Notes = append(cause.Notes, "The requests of the other pods on those nodes were not collected; `kubectl describe node` shows them under \"Allocated resources\".")
		cause.Actions = []report.Action{
			{Kind: report.Check, Description: fmt.Sprintf("See how much %s the pods on the nodes already request.", res),
				Commands: []string{fmt.Sprintf("kubectl describe node %s | grep -A 12 'Allocated resources'", fits[0].Name),
					fmt.Sprintf("kubectl get pods -A --field-selector spec.nodeName=%s,status.phase=Running -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,REQUESTS:.spec.containers[*].resources.requests", fits[0].Name)}},
			e.lowerRequest(res),
			addNodes,
		}
	}
	return cause
}

// ownRequests states what the workload's own pods seen in the bundle already
// reserve on the nodes that are big enough: a lower bound, said as such.
func (e *schedContext) ownRequests(nodes []*corev1.Node, res corev1.ResourceName) []string {
	var out []string
	for _, n := range nodes {
		sum := resource.Quantity{}
		var names []string
		for _, p := range e.c.B.Pods {
			if p.Spec.NodeName != n.Name {
				continue
			}
			if q, ok := podRequests(p)[res]; ok {
				sum.Add(q)
				names = append(names, p.Name)
			}
		}
		if len(names) > 0 {
			out = append(out, fmt.Sprintf("At least %s of %s's %s %s is requested by %d pod(s) of this workload seen here (%s).",
				sum.String(), n.Name, allocatableOf(n, res), res, len(names), strings.Join(names, ", ")))
		}
	}
	return out
}

// wantedNodes are the nodes matching the pod's nodeSelector and required
// node affinity.
func (e *schedContext) wantedNodes() map[string]bool {
	sel, terms := podNodeTerms(e.p)
	out := map[string]bool{}
	for _, n := range NodesMatching(e.c.B.Nodes, sel.Reqs) {
		ok := len(terms) == 0
		for _, t := range terms {
			ok = ok || len(NodesMatching([]*corev1.Node{n}, t.Reqs)) > 0
		}
		if ok {
			out[n.Name] = true
		}
	}
	return out
}

func countIn(nodes []*corev1.Node, set map[string]bool) int {
	n := 0
	for _, node := range nodes {
		if set[node.Name] {
			n++
		}
	}
	return n
}

// eligibleNodes are the nodes that pass the filters kube-scheduler runs
// before NodeResourcesFit and that the bundle can evaluate: cordon, taints,
// nodeSelector and required node affinity. All nodes when none passes (the
// bundle and the scheduler disagree: better quote every node than none).
func (e *schedContext) eligibleNodes() []*corev1.Node {
	sel, terms := podNodeTerms(e.p)
	unschedulable := corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}
	var out []*corev1.Node
	for _, n := range e.c.B.Nodes {
		if n.Spec.Unschedulable && !PodToleratesTaint(e.p.Spec.Tolerations, &unschedulable) {
			continue
		}
		if len(untoleratedTaints(e.p, []*corev1.Node{n})) > 0 || len(NodesMatching([]*corev1.Node{n}, sel.Reqs)) == 0 {
			continue
		}
		ok := len(terms) == 0
		for _, t := range terms {
			if len(NodesMatching([]*corev1.Node{n}, t.Reqs)) > 0 {
				ok = true
			}
		}
		if ok {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return e.c.B.Nodes
	}
	return out
}

func allocatableOf(n *corev1.Node, res corev1.ResourceName) string {
	q := n.Status.Allocatable[res]
	return q.String()
}

func (e *schedContext) tooManyPods(part schedReason, _ submatch.Match) schedCause {
	caps := map[string][]string{}
	var order []string
	eligible := e.eligibleNodes()
	for _, n := range eligible {
		q := n.Status.Allocatable[corev1.ResourcePods]
		if _, ok := caps[q.String()]; !ok {
			order = append(order, q.String())
		}
		caps[q.String()] = append(caps[q.String()], n.Name)
	}
	var desc []string
	for _, v := range order {
		desc = append(desc, fmt.Sprintf("%s on %s", v, kube.NamesUpTo(caps[v], 2)))
	}
	cause := schedCause{Confidence: rule.Strong}
	cause.Text = withCount(part) + " — those nodes already run as many pods as their allocatable pods allow"
	cause.Culprit = "node pod capacity (allocatable pods)"
	if len(desc) > 0 {
		cause.Text += " (" + strings.Join(desc, "; ") + ")"
		cause.Culprit += ": " + strings.Join(desc, "; ")
		n := eligible[0]
		q := n.Status.Allocatable[corev1.ResourcePods]
		cause.Evidence = append(cause.Evidence, e.allocatableEvidence(n, corev1.ResourcePods, q, ""))
	}
	node := "<node>"
	if len(eligible) > 0 {
		node = eligible[0].Name
	}
	cause.Actions = []report.Action{
		{Kind: report.Check, Description: "Count the pods on a node against its allocatable pods.",
			Commands: []string{fmt.Sprintf("kubectl get pods -A --field-selector spec.nodeName=%s --no-headers | wc -l", node),
				"kubectl get nodes -o custom-columns=NAME:.metadata.name,PODS:.status.allocatable.pods"}},
		{Kind: report.LongTerm, Description: "Add nodes, or raise the kubelet's maxPods where the pod network has addresses for more pods (on EKS the ENI/IP limits of the instance type bound it).",
			Commands: []string{"kubectl get nodes -o wide"},
			Risk:     "more pods per node means more pods lost when one node fails"},
	}
	return cause
}

// camelCase turns a resource name into a category word: "ephemeral-storage"
// → "EphemeralStorage".
func resourceWord(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '-' || r == '.' || r == '/' || r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func nodesCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

func namesOfNodes(nodes []*corev1.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}
