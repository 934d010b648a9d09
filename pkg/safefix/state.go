package safefix

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// state answers the policy's questions from what the collector read.
type state struct {
	b  *bundle.Bundle
	ns string // the target's namespace: a command without -n runs there
}

func (s state) namespace(c call) string {
	if c.Namespace != "" {
		return c.Namespace
	}
	return s.ns
}

// pods are every pod the bundle holds, once.
func (s state) pods() []*corev1.Pod {
	seen := map[string]bool{}
	var out []*corev1.Pod
	for _, list := range [][]*corev1.Pod{s.b.Pods, s.b.Candidates, s.b.NodePods} {
		for _, p := range list {
			key := p.Namespace + "/" + p.Name
			if !seen[key] {
				seen[key] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func (s state) pod(ns, name string) *corev1.Pod {
	for _, p := range s.pods() {
		if p.Namespace == ns && p.Name == name {
			return p
		}
	}
	return nil
}

// podServing: Running, Ready, every container ready and none waiting, not
// being deleted. Deleting or recreating it interrupts a working replica.
func podServing(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	ready := false
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			ready = c.Status == corev1.ConditionTrue
		}
	}
	if !ready {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if !cs.Ready || cs.State.Waiting != nil || cs.State.Terminated != nil {
			return false
		}
	}
	return true
}

// healthy says why the object a destructive call names is healthy now, or
// "" when it is not (or is not in the bundle: then the rule that proposed
// the call saw it failing).
func (s state) healthy(kind, ns, name string) string {
	switch kind {
	case "pod", "pods", "po":
		if p := s.pod(ns, name); p != nil && podServing(p) {
			return fmt.Sprintf("pod %s is Running and Ready now", name)
		}
	case "node", "nodes", "no":
		for _, n := range s.b.Nodes {
			if n.Name == name && nodeReady(n) {
				return fmt.Sprintf("node %s is Ready now", name)
			}
		}
	case "deployment", "deployments", "deploy":
		for _, d := range s.b.Deployments {
			if d.Namespace == ns && d.Name == name && deploymentServing(d) {
				return fmt.Sprintf("deployment %s has all %d replicas updated and available now", name, d.Status.Replicas)
			}
		}
	case "statefulset", "statefulsets", "sts":
		for _, st := range s.b.StatefulSets {
			want := int32(1)
			if st.Spec.Replicas != nil {
				want = *st.Spec.Replicas
			}
			if st.Namespace == ns && st.Name == name && st.Status.ReadyReplicas == want && st.Status.UpdatedReplicas == want {
				return fmt.Sprintf("statefulset %s has all %d replicas ready now", name, want)
			}
		}
	case "persistentvolumeclaim", "persistentvolumeclaims", "pvc":
		for _, c := range s.b.PVCs {
			if c.Namespace == ns && c.Name == name && c.Status.Phase == corev1.ClaimBound {
				return fmt.Sprintf("claim %s is Bound to volume %s now: deleting it can destroy the volume's data", name, c.Spec.VolumeName)
			}
		}
	}
	return ""
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func deploymentServing(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if want == 0 || d.Status.ObservedGeneration < d.Generation {
		return false
	}
	return d.Status.UpdatedReplicas == want && d.Status.AvailableReplicas == want && d.Status.ReadyReplicas == want && d.Status.UnavailableReplicas == 0
}

// selected lists the pods of ns a label selector matches.
func (s state) selected(ns string, sel map[string]string) []*corev1.Pod {
	if len(sel) == 0 {
		return nil
	}
	var out []*corev1.Pod
	for _, p := range s.pods() {
		if p.Namespace != ns {
			continue
		}
		match := true
		for k, v := range sel {
			if p.Labels[k] != v {
				match = false
				break
			}
		}
		if match {
			out = append(out, p)
		}
	}
	return out
}

func (s state) service(ns, name string) *corev1.Service {
	for _, svc := range s.b.Services {
		if svc.Namespace == ns && svc.Name == name {
			return svc
		}
	}
	return nil
}

// configMapKeys lists the keys of a collected ConfigMap, nil when it was not
// collected.
func (s state) configMapKeys(ns, name string) []string {
	for _, cm := range s.b.ConfigMaps {
		if cm.Namespace == ns && cm.Name == name {
			keys := []string{}
			for k := range cm.Data {
				keys = append(keys, k)
			}
			for k := range cm.BinaryData {
				keys = append(keys, k)
			}
			return keys
		}
	}
	return nil
}
