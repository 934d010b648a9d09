package pod

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Rejected is the rule pod/rejected.
var Rejected = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/rejected",
		Layer: rule.PodLayer,
		Needs: append([]rule.Need{rule.Nodes}, rule.PodEvidence...),
		Doc:   "A pod the kubelet rejected at admission (OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity, a device plugin's failed allocation, an unsafe sysctl not allowed…): Failed before any container ran; the node is the cause.",
	},
	Check: checkRejected,
}

// rejectedResourceRe is the kubelet's InsufficientResourceError
// (pkg/kubelet/lifecycle/predicate.go).
var rejectedResourceRe = regexp.MustCompile(`Node didn't have enough resource: (?P<resource>\S+), requested: (?P<requested>\d+), used: (?P<used>\d+), capacity: (?P<capacity>\d+)`)

// oldRejectedRe is the rejection as kubelets before "Pod was rejected: "
// wrote it, "Pod " + the admit handler's message; read only before an
// admit handler's own wording, since other Failed pods' messages start
// with "Pod " too (DeadlineExceeded's "Pod was active on the node longer
// than specified deadline").
var oldRejectedRe = regexp.MustCompile(`^Pod ((?:Allocate|Update plugin resources|GeneralPredicates) failed due to |Node didn't have enough resource: |Predicate \S+ failed|forbidden sysctl: )`)

// forbiddenSysctlRe is the sysctl admit handler's refusal
// (pkg/kubelet/sysctl): a sysctl the pod sets that is neither safe nor
// in the kubelet's allowedUnsafeSysctls ("not allowlisted", earlier "not
// whitelisted").
var forbiddenSysctlRe = regexp.MustCompile(`forbidden sysctl: "(?P<sysctl>[^"]+)" not (?:allowlisted|whitelisted)`)

// rejectedMessage is the admit handler's message of a pod the kubelet
// rejected (pkg/kubelet/kubelet.go rejectPod: "Pod was rejected: " +
// message, phase Failed).
func rejectedMessage(p *corev1.Pod) (string, bool) {
	if p.Status.Phase != corev1.PodFailed || p.Status.Reason == "" || p.Status.Reason == "Evicted" {
		return "", false
	}
	if msg, ok := strings.CutPrefix(p.Status.Message, "Pod was rejected: "); ok {
		return msg, true
	}
	if oldRejectedRe.MatchString(p.Status.Message) {
		return strings.TrimPrefix(p.Status.Message, "Pod "), true
	}
	return "", false
}

// checkRejected: the kubelet re-runs the scheduler's resource and
// placement checks, and allocates devices, when it admits a pod; a pod
// that fails them is set Failed and never retried on that node. The
// cause is the node's, whichever workload gave up on it. Rejections for a
// node condition (MemoryPressure, DiskPressure) are the node rules'.
func checkRejected(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		msg, ok := rejectedMessage(p)
		if !ok || strings.HasPrefix(msg, "The node had condition") {
			continue
		}
		out = append(out, rejectedFinding(c, p, p.Status.Reason, msg))
	}
	return out
}

func rejectedFinding(c *rule.Pass, p *corev1.Pod, reason, msg string) rule.Finding {
	node := kube.OrDash(p.Spec.NodeName)
	f := rule.Finding{Verdict: report.Validated, Confidence: rule.Strong, Strength: rule.Explained, Subject: p.Name,
		// A rejected pod of a workload that a later pod replaced (one the
		// kubelet admitted) is history, unless the pod itself is the
		// target; while every later pod is rejected too (a Job that gave
		// up on them), the rejection is the present state.
		Current:  c.B.Target.Kind == "Pod" && c.B.Target.Name == p.Name || !replaced(c, p),
		Category: rule.Node.Sub("Rejected", reason),
		Evidence: []string{c.Evidence(fmt.Sprintf("Pod phase Failed, reason %s: %s", reason, p.Status.Message),
			kube.PodRef(p)+" .status.reason/.status.message",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.reason}{": "}{.status.message}'`, p.Name, kube.NSFlag(p)))},
		Mechanism: "The scheduler placed the pod, but the kubelet re-checks the pod against the node when it admits it; its view can differ from the scheduler's (pods bound with spec.nodeName bypass the scheduler, static pods, a race with pods admitted just before, allocatable shrunk by a kubelet restart). A rejected pod is Failed for good and is not retried on that node; its controller, if any, creates a replacement.",
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == reason {
			f.Evidence = append(f.Evidence, podEventEvidence(c, p, &e))
		}
	}
	f.Hypothesis = fmt.Sprintf("The kubelet on node %s rejected pod %s at admission (%s)", node, p.Name, reason)
	f.Title = fmt.Sprintf("the kubelet on node %s rejected the pod at admission (%s): %s", node, reason, msg)
	f.Summary = fmt.Sprintf("Pod %s never started: the kubelet on node %s refused to admit it (%s): %s.", p.Name, node, reason, msg)
	f.Culprit = fmt.Sprintf("node/%s admission of %s: %s", node, kube.PodRef(p), msg)
	if m, ok := submatch.Find(rejectedResourceRe, msg); ok {
		res, requested, used, capacity := m.Get("resource"), m.Get("requested"), m.Get("used"), m.Get("capacity")
		u := unitOf(res)
		f.Title = fmt.Sprintf("the kubelet on node %s rejected the pod (%s): it requests %s%s %s, but only %s%s of the node's %s%s are free (%s%s used)", node, reason, requested, u, res, free(capacity, used), u, capacity, u, used, u)
		f.Culprit = fmt.Sprintf("%s requests.%s (%s%s) vs node/%s: %s%s of %s%s used", kube.PodRef(p), res, requested, u, node, used, u, capacity, u)
	}
	f.Actions = []report.Action{{Kind: report.Immediate,
		Description: "Delete the rejected pod so it is recreated and scheduled again (its controller does this by itself); if the pod sets spec.nodeName, drop it and let the scheduler choose a node with room.",
		Commands:    []string{fmt.Sprintf("kubectl describe node %s", node), fmt.Sprintf("kubectl delete pod %s %s", p.Name, kube.NSFlag(p))}}}
	if m, ok := submatch.Find(forbiddenSysctlRe, msg); ok {
		sysctl := m.Get("sysctl")
		f.Title = fmt.Sprintf("the kubelet on node %s rejected the pod (%s): it sets the unsafe sysctl %s, which the node's allowedUnsafeSysctls does not allow", node, reason, sysctl)
		f.Culprit = fmt.Sprintf("%s securityContext.sysctls %s vs node/%s's KubeletConfiguration allowedUnsafeSysctls", kube.PodRef(p), sysctl, node)
		f.Actions = []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Either allow %s in the KubeletConfiguration's allowedUnsafeSysctls of the nodes meant to run this pod (and restart their kubelets; label or taint them so only those run it), or drop it from the pod's securityContext.sysctls; then delete the rejected pod so it is created again.", sysctl),
			Commands: []string{fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.securityContext.sysctls}'`, p.Name, kube.NSFlag(p)),
				fmt.Sprintf(`kubectl get --raw /api/v1/nodes/%s/proxy/configz`, node)}}}
	}
	if reason == unexpectedAdmission {
		if d, ok := readDeviceRejection(p, msg); ok {
			deviceFinding(c, p, d, &f)
		}
	}
	sameNode(c, p, &f)
	return f
}

// unitOf is the unit the kubelet counts a resource in (cpu in millicores).
func unitOf(resource string) string {
	if resource == "cpu" {
		return "m"
	}
	return ""
}

func free(capacity, used string) string {
	var c, u int64
	fmt.Sscan(capacity, &c)
	fmt.Sscan(used, &u)
	return fmt.Sprint(max(c-u, 0))
}
