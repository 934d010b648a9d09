package bundle

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestNeedsPlanTheFetches: the collector fetches only the evidence the plan
// names (beyond the target, its owners, pods and namespace); no plan fetches
// everything the kind has.
func TestNeedsPlanTheFetches(t *testing.T) {
	crashed := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns, UID: "pod-uid"},
		Spec: corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "c", Image: "x",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}}}},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "c", RestartCount: 3}}}}
	objects := func() *fake.Clientset {
		return fake.NewClientset(crashed.DeepCopy(),
			&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "node-uid"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: ns}},
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}})
	}
	count := func(cs *fake.Clientset) map[string]int {
		out := map[string]int{}
		for _, a := range cs.Actions() {
			r := a.GetResource().Resource
			if a.GetSubresource() != "" {
				r += "/" + a.GetSubresource()
			}
			out[r]++
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		needs   []Need
		want    []string // resources requested
		notWant []string
	}{
		// The account too, were an image not pulled (PullFailing).
		{"no plan", nil, []string{"pods/log", "events", "nodes", "configmaps", "namespaces"}, nil},
		{"pods only", []Need{NeedPods, NeedOwners}, []string{"namespaces"}, []string{"pods/log", "events", "nodes", "configmaps", "serviceaccounts"}},
		{"logs and events", []Need{NeedPods, NeedLogs, NeedEvents}, []string{"pods/log", "events"}, []string{"nodes", "configmaps", "serviceaccounts"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := objects()
			opts := DefaultOptions()
			opts.Needs = tt.needs
			b, err := Collect(context.Background(), cs, asTarget(t, crashed, gvkPod), ClusterInfo{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := count(cs)
			if b.Requests != len(cs.Actions()) {
				t.Errorf("Requests = %d, %d made", b.Requests, len(cs.Actions()))
			}
			for _, r := range tt.want {
				if got[r] == 0 {
					t.Errorf("no %s request: %v", r, got)
				}
			}
			for _, r := range tt.notWant {
				if got[r] != 0 {
					t.Errorf("%d %s request(s) the plan does not need: %v", got[r], r, got)
				}
			}
		})
	}
}
