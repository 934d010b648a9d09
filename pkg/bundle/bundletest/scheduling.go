package bundletest

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Builders of the scheduling cases (prefix Sc).

func ScPending(msg string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	return Pod("batch", append([]func(*corev1.Pod){Unscheduled(msg, "100m")}, mutate...)...)
}

func ScNode(name string, mutate ...func(*corev1.Node)) *corev1.Node {
	n := Node(name, "4")
	n.Labels = map[string]string{"kubernetes.io/hostname": name}
	n.Status.Allocatable[corev1.ResourcePods] = resource.MustParse("110")
	for _, m := range mutate {
		m(n)
	}
	return n
}

func ScLabels(kv ...string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func ScTaint(key, value string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func ScAlloc(res corev1.ResourceName, q string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Status.Allocatable[res] = resource.MustParse(q) }
}

func ScNodes(nodes ...*corev1.Node) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Nodes = nodes }
}

func ScRequest(res corev1.ResourceName, q string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests[res] = resource.MustParse(q) }
}

func ScClaimVolume(claim string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data",
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	}
}

// ScDeployment wraps pods in a Deployment with replicas, as the collector
// would for a deployment target.
func ScDeployment(replicas int32) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: corev1.PodTemplateSpec{Spec: b.Pods[0].Spec}}}
		b.Deployments = []*appsv1.Deployment{d}
		b.Target = fault.Resource{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "shop", UID: "uid-web"}
	}
}
