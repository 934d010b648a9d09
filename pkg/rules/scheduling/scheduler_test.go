package scheduling

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestWithScheduler: a pod no scheduler has looked at, naming a second
// scheduler, is explained by that scheduler's pod: refused the reads its
// informers need, it names every resource its log says it may not list
// (stork without csistoragecapacities,
// https://github.com/piraeusdatastore/piraeus-operator/issues/208); a
// complete search that found none says no workload runs that name.
func TestWithScheduler(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "demo-7c9f8d6b5-k2x8q", Namespace: "app", UID: "p1", CreationTimestamp: metav1.NewTime(now.Add(-35 * time.Minute))},
		Spec: corev1.PodSpec{SchedulerName: "stork", Containers: []corev1.Container{{Name: "demo", Image: "nginx:1.21"}}}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	sched := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "stork-scheduler-5d8f6c9b7-m4xzt", Namespace: "kube-system"},
		Spec: corev1.PodSpec{ServiceAccountName: "stork-scheduler-account", Containers: []corev1.Container{{Name: "stork-scheduler"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "stork-scheduler", Ready: true}}}}
	denied := func(kind, plural string) string {
		return `E0101 10:00:00.000000       1 reflector.go:138] k8s.io/client-go/informers/factory.go:134: Failed to watch *` + kind + `: failed to list *` + kind + `: ` + plural +
			`.storage.k8s.io is forbidden: User "system:serviceaccount:kube-system:stork-scheduler-account" cannot list resource "` + plural + `" in API group "storage.k8s.io" at the cluster scope`
	}
	log := denied("v1beta1.CSIStorageCapacity", "csistoragecapacities") + "\n" + denied("v1.CSIDriver", "csidrivers") + "\n"
	found := bundle.Actor{Role: bundle.RoleScheduler, Name: "stork", For: "pod/" + p.Name, Complete: true, Workload: "Deployment kube-system/stork-scheduler",
		Container: "stork-scheduler", Pods: []string{"kube-system/" + sched.Name}, Searched: []string{"the pod templates of 12 Deployments and 3 StatefulSets in every namespace"}}
	none := found
	none.Pods, none.Workload = nil, ""
	for _, tt := range []struct {
		name     string
		actor    bundle.Actor
		category string
		want     []string // in the culprit, or the title when no pod was found
	}{
		{"refused its reads", found, "Unschedulable/NoScheduler/SchedulerFailing", []string{"scheduler stork", "csistoragecapacities.storage.k8s.io, csidrivers.storage.k8s.io", "stork-scheduler-account"}},
		{"none runs", none, "Unschedulable/NoScheduler", []string{"no workload runs a scheduler of that name"}},
		// Seconds old: not yet looked at is no finding, a failing
		// scheduler is.
		{"young, refused its reads", found, "Unschedulable/NoScheduler/SchedulerFailing", []string{"csidrivers.storage.k8s.io"}},
		{"young, none runs", none, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := p.DeepCopy()
			if strings.HasPrefix(tt.name, "young") {
				p.CreationTimestamp = metav1.NewTime(now.Add(-10 * time.Second))
			}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: "app", UID: "p1"}, Pods: []*corev1.Pod{p},
				Cluster: bundle.ClusterInfo{Actors: []bundle.Actor{tt.actor}}}
			if len(tt.actor.Pods) > 0 {
				b.DependencyPods = []*corev1.Pod{sched}
				b.Logs = []bundle.ContainerLog{{Namespace: "kube-system", Pod: sched.Name, Container: "stork-scheduler", Text: log}}
			}
			f := ruletest.Root(ruletest.Run(Unschedulable, b, now))
			if tt.category == "" {
				if f != nil {
					t.Fatalf("a pod seconds old with no scheduler found: %+v", f)
				}
				return
			}
			if f == nil || string(f.Category) != tt.category {
				t.Fatalf("finding %+v, want category %s", f, tt.category)
			}
			for _, w := range tt.want {
				if !strings.Contains(f.Culprit+" | "+f.Title, w) {
					t.Errorf("culprit %q / title %q lacks %q", f.Culprit, f.Title, w)
				}
			}
		})
	}
}
