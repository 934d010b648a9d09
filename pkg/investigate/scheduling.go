package investigate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// schedReason is one part of a scheduler message: "2 Insufficient cpu".
type schedReason struct {
	Nodes int
	Text  string
}

var schedCountRe = regexp.MustCompile(`^(\d+)\s+(.+)$`)

// parseSchedulerMessage splits "0/3 nodes are available: 1 Insufficient cpu,
// 2 node(s) had untolerated taint {a: b}. preemption: …" into its parts.
func parseSchedulerMessage(msg string) (total int, parts []schedReason) {
	head, rest, ok := strings.Cut(msg, " nodes are available: ")
	if !ok {
		if strings.TrimSpace(msg) != "" {
			return 0, []schedReason{{Text: strings.TrimSuffix(strings.TrimSpace(msg), ".")}}
		}
		return 0, nil
	}
	if _, after, ok := strings.Cut(head, "/"); ok {
		total, _ = strconv.Atoi(strings.TrimSpace(after))
	}
	if i := strings.Index(rest, " preemption:"); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ".")
	// Split on ", " outside braces: taints print as {key: value}.
	depth, start := 0, 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, schedPart(rest[start:i]))
				start = i + 1
			}
		}
	}
	parts = append(parts, schedPart(rest[start:]))
	return total, parts
}

func schedPart(s string) schedReason {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if m := schedCountRe.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return schedReason{Nodes: n, Text: m[2]}
	}
	return schedReason{Text: s}
}

// podRequests sums what the scheduler reserves: containers add up, init
// containers run one at a time so their maximum counts.
func podRequests(p *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		for name, q := range c.Resources.Requests {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	for _, c := range p.Spec.InitContainers {
		for name, q := range c.Resources.Requests {
			if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
				out[name] = q.DeepCopy()
			}
		}
	}
	return out
}

// checkUnschedulable: a pod the scheduler cannot place, split into the
// scheduler's reasons, with requests compared to what nodes offer.
func checkUnschedulable(c *Context) []Finding {
	var out []Finding
	for _, p := range c.B.Pods {
		var cond *corev1.PodCondition
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.PodScheduled && p.Status.Conditions[i].Status == corev1.ConditionFalse {
				cond = &p.Status.Conditions[i]
			}
		}
		if cond == nil || p.Spec.NodeName != "" {
			continue
		}
		msg := cond.Message
		evidence := []string{c.Evidence(
			fmt.Sprintf("PodScheduled=False (%s): %s", cond.Reason, cond.Message),
			podRef(p)+" .status.conditions[PodScheduled]",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")]}'`, p.Name, nsFlag(p)))}
		for _, e := range c.B.EventsFor(string(p.UID)) {
			if e.Reason == "FailedScheduling" {
				evidence = append(evidence, c.Evidence(
					fmt.Sprintf("Event FailedScheduling ×%d: %s", max(e.Count, 1), e.Message),
					"event on "+podRef(p),
					fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=FailedScheduling", nsFlag(p), p.Name)))
				if msg == "" {
					msg = e.Message
				}
			}
		}
		out = append(out, schedulingFinding(c, p, msg, evidence))
	}
	return out
}

func schedulingFinding(c *Context, p *corev1.Pod, msg string, evidence []string) Finding {
	kind, owner := ownerName(c, p)
	total, parts := parseSchedulerMessage(msg)
	f := Finding{
		Category: "Unschedulable", Verdict: report.Validated, Current: true, Depth: 2,
		Subject: p.Name, Evidence: evidence, Confidence: 0.9,
		Mechanism: "The scheduler filtered out every node for the reasons it lists; the pod stays Pending until one node passes every filter.",
	}
	reqs := podRequests(p)
	var causes []string
	for _, part := range parts {
		text := part.Text
		nodes := ""
		if part.Nodes > 0 {
			nodes = fmt.Sprintf("%d node(s): ", part.Nodes)
		}
		switch {
		case strings.HasPrefix(text, "Insufficient "):
			res := corev1.ResourceName(strings.TrimPrefix(text, "Insufficient "))
			cause := fmt.Sprintf("%sinsufficient %s", nodes, res)
			if q, ok := reqs[res]; ok {
				offer, ev := describeAllocatable(c, res)
				if ev != "" {
					evidence = append(evidence, ev)
				}
				cause = fmt.Sprintf("the pod requests %s %s, more than %s", res, q.String(), offer)
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Pod requests %s %s in total", res, q.String()),
					podRef(p)+" .spec.containers[*].resources.requests",
					fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].resources.requests}'`, p.Name, nsFlag(p))))
				f.Culprit = fmt.Sprintf("%s resources.requests.%s (%s)", podRef(p), res, q.String())
				f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
					Description: fmt.Sprintf("Lower the %s request to what the workload needs and what a node can offer, or add nodes with more %s.", res, res),
					Commands:    []string{fmt.Sprintf("kubectl set resources %s/%s %s --requests=%s=<amount that fits>", kind, owner, nsFlag(p), res)},
					Risk:        "a request below real usage lets the node overcommit; the change starts a rollout"})
			}
			causes = append(causes, cause)
		case strings.Contains(text, "untolerated taint"):
			causes = append(causes, nodes+text)
			f.Culprit = firstNonEmpty(f.Culprit, podRef(p)+" .spec.tolerations")
			f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
				Description: "Add a toleration for the taint to the pod template if the pod belongs on those nodes, or remove the taint if it was left by mistake.",
				Commands:    []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints"},
				Risk:        "a toleration lets the pod onto nodes that were reserved for other work"})
		case strings.Contains(text, "node affinity/selector") || strings.Contains(text, "node selector"):
			causes = append(causes, nodes+text)
			f.Culprit = firstNonEmpty(f.Culprit, podRef(p)+" .spec.nodeSelector/.spec.affinity.nodeAffinity")
			f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
				Description: "Compare the pod's nodeSelector/nodeAffinity with the labels the nodes carry; fix the selector or label the intended nodes.",
				Commands: []string{fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.nodeSelector}{"\n"}{.spec.affinity.nodeAffinity}'`, p.Name, nsFlag(p)),
					"kubectl get nodes --show-labels"}})
		case strings.Contains(text, "unbound immediate PersistentVolumeClaims"):
			causes = append(causes, text)
			f.Culprit = firstNonEmpty(f.Culprit, podRef(p)+" .spec.volumes[*].persistentVolumeClaim")
			f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
				Description: "Find out why the pod's PersistentVolumeClaim is not bound (storage class, provisioner, capacity).",
				Commands:    []string{fmt.Sprintf("kubectl get pvc %s", nsFlag(p)), fmt.Sprintf("kubectl describe pvc %s", nsFlag(p))}})
		default:
			causes = append(causes, nodes+text)
		}
	}
	if len(causes) == 0 {
		causes = []string{"the scheduler gave no reason"}
		f.Confidence = 0.5
	}
	f.Category += "/" + categoryOf(parts)
	f.Hypothesis = "The pod cannot be placed on any node: " + strings.Join(causes, "; ")
	of := ""
	if total > 0 {
		of = fmt.Sprintf(" (0/%d nodes fit)", total)
	}
	f.Title = fmt.Sprintf("pod cannot be scheduled%s: %s", of, strings.Join(causes, "; "))
	f.Summary = fmt.Sprintf("Pod %s stays Pending because no node can run it%s: %s.", p.Name, of, strings.Join(causes, "; "))
	f.Culprit = firstNonEmpty(f.Culprit, podRef(p)+" scheduling constraints")
	f.Evidence = evidence
	if len(f.Actions) == 0 {
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the scheduler's full message and compare the pod's constraints with the nodes.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, nsFlag(p)), "kubectl describe nodes"}}}
	}
	return f
}

// describeAllocatable says what the known nodes can offer of a resource.
func describeAllocatable(c *Context, res corev1.ResourceName) (string, string) {
	var best *resource.Quantity
	bestNode := ""
	for _, n := range c.B.Nodes {
		if q, ok := n.Status.Allocatable[res]; ok && (best == nil || q.Cmp(*best) > 0) {
			qq := q.DeepCopy()
			best, bestNode = &qq, n.Name
		}
	}
	if best == nil {
		return "any node has free", ""
	}
	id := c.Evidence(fmt.Sprintf("Node %s has allocatable %s %s (the largest of %d node(s) seen)", bestNode, res, best.String(), len(c.B.Nodes)),
		"node/"+bestNode+" .status.allocatable",
		fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.allocatable}'", bestNode))
	return fmt.Sprintf("the largest node (%s) can allocate (%s)", bestNode, best.String()), id
}

func categoryOf(parts []schedReason) string {
	for _, p := range parts {
		switch {
		case strings.HasPrefix(p.Text, "Insufficient "):
			return "Insufficient" + strings.ToUpper(strings.TrimPrefix(p.Text, "Insufficient ")[:1]) + strings.TrimPrefix(p.Text, "Insufficient ")[1:]
		case strings.Contains(p.Text, "untolerated taint"):
			return "Taint"
		case strings.Contains(p.Text, "node affinity/selector"):
			return "NodeSelector"
		case strings.Contains(p.Text, "PersistentVolumeClaims"):
			return "UnboundPVC"
		}
	}
	return "Other"
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
