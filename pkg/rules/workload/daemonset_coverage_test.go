package workload

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDaemonSetCoverage: a DaemonSet that wants no pod on a cluster with
// nodes names what excludes them (a nodeSelector no node matches); one
// fully scheduled and ready says nothing.
func TestDaemonSetCoverage(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Labels: map[string]string{"kubernetes.io/hostname": "worker-1", "disk": "hdd"}}}
	target := func(status appsv1.DaemonSetStatus) *bundle.Bundle {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ops", UID: "ds1"},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"},
				Containers: []corev1.Container{{Name: "agent", Image: "ops/agent:1"}}}}},
			Status: status}
		return &bundle.Bundle{Target: fault.Resource{Kind: "DaemonSet", Name: "agent", Namespace: "ops", UID: "ds1"},
			DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: []*corev1.Node{node}}
	}
	f := ruletest.Root(ruletest.Run(DaemonSetCoverage, target(appsv1.DaemonSetStatus{}), now))
	if f == nil || !strings.HasPrefix(string(f.Category), string(rule.DaemonSet.Sub("NoEligibleNodes"))) || !strings.Contains(f.Culprit+f.Title, "disk") {
		t.Fatalf("no node qualifies: %+v", f)
	}
	healthy := appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1}
	if fs := ruletest.Run(DaemonSetCoverage, target(healthy), now); len(fs) != 0 {
		t.Errorf("fully scheduled: %+v", fs)
	}
}
