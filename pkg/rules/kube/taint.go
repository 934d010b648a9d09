package kube

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// KnownTaint explains a taint that Kubernetes components or cluster
// controllers put on nodes.
type KnownTaint struct {
	Why string
	// Expected taints keep pods off nodes by design (control plane): they
	// are context, not a culprit, unless nothing else blocks the pod.
	Expected bool
	// NodeProblem taints come from a node condition: the fix is the node.
	NodeProblem bool
	// Mirrored taints restate a condition or the cordon, which a node's
	// own reading already reports.
	Mirrored bool
	// Marker taints are a controller's mark that the node is on its way
	// out (drained to be deleted, disrupted): SetBy removes the node, or
	// the taint, when it is done. One that stays outlived what set it.
	Marker bool
	SetBy  string
}

// KnownTaints by key: the node lifecycle controller's and the kubelet's
// (https://kubernetes.io/docs/reference/labels-annotations-taints/),
// cluster-autoscaler's (its FAQ, "What are the taints used by the
// cluster autoscaler?") and Karpenter's (its disruption docs).
var KnownTaints = map[string]KnownTaint{
	"node-role.kubernetes.io/control-plane":          {Why: "installers such as kubeadm keep ordinary workloads off control-plane nodes with this taint, by design", Expected: true},
	"node-role.kubernetes.io/master":                 {Why: "older installers keep ordinary workloads off control-plane nodes with this taint, by design", Expected: true},
	"node.kubernetes.io/not-ready":                   {Why: "the node lifecycle controller taints a node whose Ready condition is False", NodeProblem: true, Mirrored: true},
	"node.kubernetes.io/unreachable":                 {Why: "the node lifecycle controller taints a node whose kubelet stopped posting status (Ready Unknown)", NodeProblem: true, Mirrored: true},
	"node.kubernetes.io/unschedulable":               {Why: "the node is cordoned (spec.unschedulable=true)", Mirrored: true},
	"node.kubernetes.io/memory-pressure":             {Why: "the kubelet reports MemoryPressure", NodeProblem: true, Mirrored: true},
	"node.kubernetes.io/disk-pressure":               {Why: "the kubelet reports DiskPressure", NodeProblem: true, Mirrored: true},
	"node.kubernetes.io/pid-pressure":                {Why: "the kubelet reports PIDPressure", NodeProblem: true, Mirrored: true},
	"node.kubernetes.io/network-unavailable":         {Why: "the node's network is not configured (NetworkUnavailable=True)", NodeProblem: true, Mirrored: true},
	"node.cloudprovider.kubernetes.io/uninitialized": {Why: "the cloud controller manager has not initialized the node yet", NodeProblem: true},
	"node.cloudprovider.kubernetes.io/shutdown":      {Why: "the cloud provider reports the node's instance shut down", NodeProblem: true},
	"node.kubernetes.io/out-of-service":              {Why: "an operator declared the node out of service"},
	"ToBeDeletedByClusterAutoscaler": {Why: "cluster-autoscaler marks a node it drains to delete (the value is the Unix time it did)",
		Marker: true, SetBy: "cluster-autoscaler"},
	"karpenter.sh/disrupted":  {Why: "Karpenter marks a node it disrupts (consolidation, drift, expiry) before draining and deleting it", Marker: true, SetBy: "Karpenter"},
	"karpenter.sh/disruption": {Why: "Karpenter (before v1) marks a node it disrupts before draining and deleting it", Marker: true, SetBy: "Karpenter"},
}

// Blocking: the taint keeps pods that do not tolerate it off the node.
func Blocking(t corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// TaintedSince is when a marker taint was set, when its value says
// (cluster-autoscaler writes the Unix time); zero otherwise.
func TaintedSince(t corev1.Taint) time.Time {
	if t.TimeAdded != nil {
		return t.TimeAdded.Time
	}
	if s, err := strconv.ParseInt(t.Value, 10, 64); err == nil && s > 1e9 && s < 1e10 {
		return time.Unix(s, 0).UTC()
	}
	return time.Time{}
}

// TaintWhy is "taint K:E (why)" for a reader.
func TaintWhy(t corev1.Taint) string {
	if k, ok := KnownTaints[t.Key]; ok {
		return fmt.Sprintf("taint %s (%s)", TaintSpec(t), k.Why)
	}
	return "taint " + TaintSpec(t)
}

// BlockingTaints are the taints that keep pods off a node for a reason
// other than its design or what its conditions and cordon already say: an
// initialization not done, an instance shut down, a removal under way.
// An operator's own taint (dedicated=gpu) is a choice, not a symptom.
func BlockingTaints(n *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range n.Spec.Taints {
		if k, ok := KnownTaints[t.Key]; ok && Blocking(t) && !k.Expected && !k.Mirrored {
			out = append(out, t)
		}
	}
	return out
}
