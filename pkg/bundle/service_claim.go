package bundle

import (
	"context"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// maxClaimedPods bounds the pods read for the workload a Service says it
// is for (ClaimedSelector): a few show that it exists and what it serves.
const maxClaimedPods = 5

// ClaimedSelector is the selector a Service says it means when its
// selector picks another workload's pods: the selector with one term set
// to the value the Service's own labels give that key (Service
// gateway-server labelled app=gateway-server selecting app=discovery-server),
// or, without such a label, to the Service's name when the term's value is
// the name of the workload whose pods it selects and neither name contains
// the other (Service redis-master selecting app=redis is a naming
// convention, not a mistake). ok is false when nothing says so.
func ClaimedSelector(svc *corev1.Service, selected []*corev1.Pod) (map[string]string, bool) {
	sel := svc.Spec.Selector
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	with := func(k, v string) map[string]string {
		out := map[string]string{}
		for kk, vv := range sel {
			out[kk] = vv
		}
		out[k] = v
		return out
	}
	for _, k := range keys {
		if v, ok := svc.Labels[k]; ok && v != "" && v != sel[k] && !isRevisionKey(k) {
			return with(k, v), true
		}
	}
	if len(selected) == 0 {
		return nil, false
	}
	w := WorkloadName(selected[0])
	for _, k := range keys {
		if sel[k] == w && w != svc.Name && !strings.Contains(svc.Name, w) && !strings.Contains(w, svc.Name) {
			if _, labelled := svc.Labels[k]; !labelled {
				return with(k, svc.Name), true
			}
		}
	}
	return nil, false
}

// WorkloadName is the name of the workload a pod belongs to: its
// controller, a Deployment's for a ReplicaSet (the name less the
// pod-template-hash suffix), or the pod's own name.
func WorkloadName(p *corev1.Pod) string {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return p.Name
	}
	if h := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; ref.Kind == "ReplicaSet" && h != "" {
		return strings.TrimSuffix(ref.Name, "-"+h)
	}
	return ref.Name
}

// claimedPods reads, in one bounded list, the pods of the workload a
// Service target says it is for while its selector picks other pods
// (ClaimedSelector); they join the Candidates, with their declared ports.
func (c *collector) claimedPods(ctx context.Context, ns string, svc *corev1.Service) {
	alt, ok := ClaimedSelector(svc, c.b.Pods)
	if !ok || !c.opts.wants(NeedCandidates) {
		return
	}
	c.count()
	list, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(alt).String(), Limit: maxClaimedPods})
	if err != nil {
		c.problem("pods matching "+labels.SelectorFromSet(alt).String(), err)
		return
	}
	for i := range list.Items {
		p := candidate(&list.Items[i])
		// What they serve, to compare with the Service's targetPort:
		// container names, images and ports only.
		for _, ctr := range list.Items[i].Spec.Containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: ctr.Name, Image: ctr.Image, Ports: ctr.Ports})
		}
		c.b.Candidates = append(c.b.Candidates, p)
	}
}
