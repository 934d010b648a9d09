package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceRevisionPinned: a selector term on a per-revision label while
// the same workload runs another revision is a fault; one revision only,
// a selector without such a term, or a Service Argo Rollouts manages is
// not.
func TestServiceRevisionPinned(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	pod := func(name string, lbl map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "web", UID: types.UID("u-" + name), Labels: lbl},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	}
	svc := func(sel map[string]string, ann map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "frontend", Namespace: "web", UID: "s1", Annotations: ann}, Spec: corev1.ServiceSpec{Selector: sel}}
	}
	b := func(s *corev1.Service, selected []*corev1.Pod, others ...*corev1.Pod) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: s.Name, Namespace: "web", UID: "s1"}, Services: []*corev1.Service{s}, Pods: selected, Candidates: others}
	}
	// https://github.com/kubernetes/kubernetes/issues/17902: `kubectl expose`
	// infers the selector from the controller's pods, pod-template-hash
	// included; during the next rolling update the new ReplicaSet's pods
	// are left out ("services should select the common subset of labels").
	old := map[string]string{"app": "frontend", "pod-template-hash": "5d8c7b9f6"}
	newer := map[string]string{"app": "frontend", "pod-template-hash": "7c9f8d6b4"}
	exposed := svc(old, nil)
	// A DaemonSet's pods carry controller-revision-hash: a Service copied
	// from one pod's labels follows that revision only.
	ds := svc(map[string]string{"k8s-app": "node-exporter", "controller-revision-hash": "6f5d9c7b8"}, nil)
	for _, tt := range []struct {
		name string
		b    *bundle.Bundle
		want string // a culprit substring; "" for no finding
	}{
		{"expose copied pod-template-hash, rollout under way", b(exposed, []*corev1.Pod{pod("frontend-5d8c7b9f6-a", old)}, pod("frontend-7c9f8d6b4-b", newer), pod("frontend-7c9f8d6b4-c", newer)), "pod-template-hash=5d8c7b9f6"},
		{"daemonset revision pinned", b(ds, []*corev1.Pod{pod("node-exporter-x", ds.Spec.Selector)}, pod("node-exporter-y", map[string]string{"k8s-app": "node-exporter", "controller-revision-hash": "7b6c5d4e3"})), "controller-revision-hash=6f5d9c7b8"},
		{"only the pinned revision runs", b(exposed, []*corev1.Pod{pod("frontend-5d8c7b9f6-a", old)}), ""},
		{"no per-revision term", b(svc(map[string]string{"app": "frontend"}, nil), []*corev1.Pod{pod("frontend-5d8c7b9f6-a", old), pod("frontend-7c9f8d6b4-b", newer)}), ""},
		// https://github.com/argoproj/argo-rollouts/pull/340: Argo keeps the
		// stable hash on the Services it manages, by design.
		{"managed by Argo Rollouts", b(svc(old, map[string]string{annArgoManaged: "frontend"}), []*corev1.Pod{pod("frontend-5d8c7b9f6-a", old)}, pod("frontend-7c9f8d6b4-b", newer)), ""},
		{"selects nothing (service-endpoints' finding)", b(exposed, nil, pod("frontend-7c9f8d6b4-b", newer)), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(ServiceRevisionPinned, tt.b, now))
			if (f != nil) != (tt.want != "") {
				t.Fatalf("finding %v, want %q: %+v", f != nil, tt.want, f)
			}
			if f == nil {
				return
			}
			if f.Category != rule.Service.Sub("Selector", "RevisionPinned") || !strings.Contains(f.Culprit, tt.want) {
				t.Errorf("category %q culprit %q, want %q", f.Category, f.Culprit, tt.want)
			}
			if len(f.Actions) == 0 || !strings.Contains(strings.Join(f.Actions[0].Commands, "\n"), `"op":"remove","path":"/spec/selector/`) {
				t.Errorf("no patch removing the term: %+v", f.Actions)
			}
		})
	}
}
