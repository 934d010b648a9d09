package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// replaced: a later pod of the same controller got past the kubelet's
// admission (it ran, or its containers were created), so this rejection
// is history.
func replaced(c *rule.Pass, p *corev1.Pod) bool {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return false
	}
	for _, o := range c.B.Pods {
		if o == p || !o.CreationTimestamp.After(p.CreationTimestamp.Time) {
			continue
		}
		if or := metav1.GetControllerOf(o); or != nil && or.UID == ref.UID && admitted(o) {
			return true
		}
	}
	return false
}

// admitted: the kubelet admitted the pod (a rejected pod never gets
// container statuses).
func admitted(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodSucceeded ||
		len(p.Status.ContainerStatuses)+len(p.Status.InitContainerStatuses) > 0
}

// sameNode says, for a workload's rejected pod, how many of the
// workload's failed pods this node rejected for the same reason: one node
// rejecting all of them is the node's fault, not the workload's.
func sameNode(c *rule.Pass, p *corev1.Pod, f *rule.Finding) {
	ref := metav1.GetControllerOf(p)
	if ref == nil || p.Spec.NodeName == "" {
		return
	}
	var failed int
	var same []string
	for _, o := range c.B.Pods {
		or := metav1.GetControllerOf(o)
		if or == nil || or.UID != ref.UID || o.Status.Phase != corev1.PodFailed {
			continue
		}
		failed++
		if _, ok := rejectedMessage(o); ok && o.Spec.NodeName == p.Spec.NodeName && o.Status.Reason == p.Status.Reason {
			same = append(same, o.Name)
		}
	}
	if len(same) < 2 {
		return
	}
	owner := strings.ToLower(ref.Kind) + "/" + ref.Name
	all := fmt.Sprintf("%d of the %d failed pods of %s", len(same), failed, owner)
	switch {
	case len(same) == failed && failed == 2:
		all = "both failed pods of " + owner
	case len(same) == failed:
		all = fmt.Sprintf("all %d failed pods of %s", failed, owner)
	}
	f.Title += fmt.Sprintf("; %s were rejected by node %s the same way", all, p.Spec.NodeName)
	f.Summary += fmt.Sprintf(" The kubelet on node %s rejected %s (%s): the node is the cause, not the workload.", p.Spec.NodeName, all, p.Status.Reason)
	f.Contributing = append(f.Contributing, fmt.Sprintf("Pods rejected by node %s (%s): %s.", p.Spec.NodeName, p.Status.Reason, strings.Join(same, ", ")))
}
