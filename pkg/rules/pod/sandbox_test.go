package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestSandbox: a pod whose sandbox the kubelet cannot create is explained
// by the CNI plugin's error; once a container ran, the event is history.
func TestSandbox(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	calico := `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "d9f4c9": plugin type="calico" failed (add): error getting ClusterInformation: connection is unauthorized: Unauthorized`
	for _, tt := range []struct {
		name, message string
		started       bool
		want          rule.Category
		culprit       string
	}{
		{"calico", calico, false, rule.Node.Sub("Sandbox", "CNI"), `CNI plugin "calico": error getting ClusterInformation: connection is unauthorized: Unauthorized`},
		{"dockershim", `Failed to create pod sandbox: rpc error: code = Unknown desc = [failed to set up sandbox container "3dcf" network for pod "web": networkPlugin cni failed to set up pod "web_default" network: failed to allocate for range 0: no IP addresses available in range set: 10.244.1.1-10.244.1.254]`, false, rule.Node.Sub("Sandbox", "CNI"), "no IP addresses available"},
		{"host-local", `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "9a1b3fd9": failed to allocate for range 0: no IP addresses available in range set: 10.1.56.1-10.1.56.254`, false, rule.Node.Sub("Sandbox", "CNI"), "the CNI plugin: failed to allocate for range 0"},
		{"pause-image", `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image "registry.k8s.io/pause:3.9": failed to pull image "registry.k8s.io/pause:3.9": i/o timeout`, false, rule.Node.Sub("Sandbox"), `sandbox image "registry.k8s.io/pause:3.9"`},
		{"history", calico, true, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}
			phase := corev1.PodPending
			if tt.started {
				st.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-time.Minute))}}
				phase = corev1.PodRunning
			}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "p1"},
				Spec:   corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "app", Image: "shop/web:1"}}},
				Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{st}}}
			ev := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "shop"}, Reason: "FailedCreatePodSandBox", Type: "Warning", Message: tt.message, Count: 12,
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web", Namespace: "shop", UID: "p1"},
				FirstTimestamp: metav1.NewTime(now.Add(-20 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-30 * time.Second))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "web", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{ev}}
			f := ruletest.Root(ruletest.Run(Sandbox, b, now))
			if tt.want == "" {
				if f != nil {
					t.Fatalf("finding %+v for a pod that started", f)
				}
				return
			}
			if f == nil || f.Category != tt.want || !strings.Contains(f.Culprit, tt.culprit) {
				t.Fatalf("finding %+v, want %q naming %q", f, tt.want, tt.culprit)
			}
		})
	}
}
