package clusterwatch

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodCauses(t *testing.T) {
	yes := true
	owned := func(kind, name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{Kind: kind, Name: name, Controller: &yes}}
	}
	cases := []struct {
		name   string
		pod    corev1.Pod
		down   string // the node that is not Ready
		causes []string
	}{
		{"a Deployment's pod on a NotReady node", corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-5d9f-a", Labels: map[string]string{"pod-template-hash": "5d9f"}, OwnerReferences: owned("ReplicaSet", "web-5d9f")},
			Spec:       corev1.PodSpec{NodeName: "worker-3"}}, "worker-3",
			[]string{"Node//worker-3", "ReplicaSet/shop/web-5d9f", "Deployment/shop/web"}},
		{"on a Ready node the node is no cause", corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-5d9f-a", Labels: map[string]string{"pod-template-hash": "5d9f"}, OwnerReferences: owned("ReplicaSet", "web-5d9f")},
			Spec:       corev1.PodSpec{NodeName: "worker-1"}}, "worker-3",
			[]string{"ReplicaSet/shop/web-5d9f", "Deployment/shop/web"}},
		{"a bare ReplicaSet's pod has no Deployment", corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "rs-x", OwnerReferences: owned("ReplicaSet", "rs")}}, "",
			[]string{"ReplicaSet/shop/rs"}},
		{"a Job's pod", corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "nightly-x7", OwnerReferences: owned("Job", "nightly")}}, "",
			[]string{"Job/batch/nightly"}},
		{"an owner that is not the controller", corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p", OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "j"}}}}, "",
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := podCauses(&tc.pod, func(n string) bool { return n == tc.down })
			if !slices.Equal(got, tc.causes) {
				t.Errorf("causes %q; want %q", got, tc.causes)
			}
		})
	}
}
