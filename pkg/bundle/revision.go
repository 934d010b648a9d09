package bundle

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// RevisionLabelKeys are the labels a controller stamps on each pod with the
// hash of the template revision it was created from: a Deployment's
// ReplicaSets (pod-template-hash), a StatefulSet's or DaemonSet's
// ControllerRevisions (controller-revision-hash), and an Argo Rollout's
// ReplicaSets (rollouts-pod-template-hash,
// https://argo-rollouts.readthedocs.io/en/stable/features/specification/).
// A Service selector term on one of them selects one revision only.
var RevisionLabelKeys = []string{appsv1.DefaultDeploymentUniqueLabelKey, appsv1.ControllerRevisionHashLabelKey, "rollouts-pod-template-hash"}

// RevisionFree is the selector without its per-revision terms; ok is false
// when the selector has none, or nothing else (it would select the whole
// namespace).
func RevisionFree(sel map[string]string) (map[string]string, bool) {
	out := map[string]string{}
	pinned := false
	for k, v := range sel {
		if isRevisionKey(k) {
			pinned = true
			continue
		}
		out[k] = v
	}
	return out, pinned && len(out) > 0
}

func isRevisionKey(k string) bool {
	for _, r := range RevisionLabelKeys {
		if k == r {
			return true
		}
	}
	return false
}

// servicePods lists a Service target's pods. A selector pinned to one
// revision (RevisionFree) is listed without its per-revision terms, in the
// same one request: the pods it selects are its pods, the same workload's
// pods of other revisions, the ones it leaves out, are kept as Candidates
// (labels only) for the rule that says they get no traffic.
func (c *collector) servicePods(ctx context.Context, ns string, svc *corev1.Service) {
	wide, pinned := RevisionFree(svc.Spec.Selector)
	if !pinned || !c.opts.wants(NeedCandidates) {
		c.pods(ctx, ns, labels.SelectorFromSet(svc.Spec.Selector).String(), func(*corev1.Pod) bool { return true })
		return
	}
	full := labels.SelectorFromSet(svc.Spec.Selector)
	var kept []*corev1.Pod
	for _, p := range c.listPods(ctx, ns, labels.SelectorFromSet(wide).String(), func(*corev1.Pod) bool { return true }) {
		if full.Matches(labels.Set(p.Labels)) {
			kept = append(kept, p)
		} else if len(c.b.Candidates) < maxCandidates {
			c.b.Candidates = append(c.b.Candidates, candidate(p))
		}
	}
	if len(kept) > c.opts.MaxPods {
		kept = kept[:c.opts.MaxPods]
	}
	for _, p := range kept {
		c.addTyped(p, gvkPod)
	}
}

// candidate keeps of a pod what a selector is compared with: its name,
// labels, owner and phase (nothing that could carry data).
func candidate(p *corev1.Pod) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels, UID: p.UID, OwnerReferences: p.OwnerReferences,
		DeletionTimestamp: p.DeletionTimestamp}, Status: corev1.PodStatus{Phase: p.Status.Phase}}
}
