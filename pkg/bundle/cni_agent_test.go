package bundle

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIsCNIAgent: a CNI plugin's agent is the DaemonSet pod named or
// imaged after it (or after the agent's own name, aws-cni's aws-node);
// the meta-plugins and dockershim's generic "cni" name no agent.
func TestIsCNIAgent(t *testing.T) {
	pod := func(owner, ctr, image string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{Kind: owner}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: ctr, Image: image}}}}
	}
	for _, tt := range []struct {
		name, plugin string
		pod          *corev1.Pod
		want         bool
	}{
		{"flannel by container", "flannel", pod("DaemonSet", "kube-flannel", "docker.io/flannel/flannel:v0.24.0"), true},
		{"calico by image", "calico", pod("DaemonSet", "node", "docker.io/calico/node:v3.27.0"), true},
		{"aws-cni is aws-node", "aws-cni", pod("DaemonSet", "aws-node", "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.18.0"), true},
		{"cilium-cni is cilium", "cilium-cni", pod("DaemonSet", "cilium-agent", "quay.io/cilium/cilium:v1.15.1"), true},
		{"another DaemonSet", "flannel", pod("DaemonSet", "kube-proxy", "registry.k8s.io/kube-proxy:v1.29.0"), false},
		{"not a DaemonSet's", "flannel", pod("ReplicaSet", "flannel", "flannel/flannel"), false},
		{"generic cni", "cni", pod("DaemonSet", "cni", "cni"), false},
		{"portmap", "portmap", pod("DaemonSet", "portmap", "portmap"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsCNIAgent(tt.pod, tt.plugin); got != tt.want {
				t.Errorf("IsCNIAgent = %v, want %v", got, tt.want)
			}
		})
	}
}
