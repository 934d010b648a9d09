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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDaemonSetTaintSkipped: a DaemonSet whose counts look complete while
// a taint keeps it off nodes it is meant for names the nodes and the
// toleration that opens them. Material: kube-proxy on a 7-node cluster
// schedules 6 pods; node asvc-tst-stor has taint
// node-role.kubernetes.io/file-storage:NoSchedule, which kube-proxy (that
// tolerates the master taint and CriticalAddonsOnly) does not tolerate,
// https://github.com/kubernetes/kubernetes/issues/61470.
func TestDaemonSetTaintSkipped(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	node := func(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	}
	storage := corev1.Taint{Key: "node-role.kubernetes.io/file-storage", Effect: corev1.TaintEffectNoSchedule}
	master := corev1.Taint{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule}
	kubeProxyTols := []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
		{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	nodes := []*corev1.Node{node("asvc-tst-m1", nil, master), node("asvc-tst-stor", map[string]string{"role": "storage"}, storage)}
	for _, n := range []string{"asvc-tst-w1", "asvc-tst-w2", "asvc-tst-w3", "asvc-tst-w4", "asvc-tst-w5"} {
		nodes = append(nodes, node(n, map[string]string{"role": "worker"}))
	}
	cases := []struct {
		name     string
		tols     []corev1.Toleration
		selector map[string]string
		want     []string // "" parts: no finding
	}{
		{"kube-proxy tolerates taints of its own but not the storage pool's", kubeProxyTols, nil,
			[]string{"asvc-tst-stor", "node-role.kubernetes.io/file-storage:NoSchedule", `"key":"node-role.kubernetes.io/file-storage","operator":"Exists","effect":"NoSchedule"`}},
		{"a DaemonSet on the defaults may be kept off a dedicated pool on purpose", nil, nil, nil},
		{"a selector that leaves the storage node out is a dedication", kubeProxyTols, map[string]string{"role": "worker"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy", Namespace: "kube-system", UID: "ds1"},
				Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: tc.selector, Tolerations: tc.tols,
					Containers: []corev1.Container{{Name: "kube-proxy", Image: "k8s.gcr.io/kube-proxy-amd64:v1.9.3"}}}}},
				Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 6, CurrentNumberScheduled: 6, NumberReady: 6, NumberAvailable: 6, UpdatedNumberScheduled: 6}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "DaemonSet", Name: "kube-proxy", Namespace: "kube-system", UID: "ds1"},
				DaemonSets: []*appsv1.DaemonSet{ds}, Nodes: nodes}
			f := ruletest.Root(ruletest.Run(DaemonSetCoverage, b, now))
			if tc.want == nil {
				if f != nil {
					t.Fatalf("want no finding, got %s: %s", f.Category, f.Title)
				}
				return
			}
			if f == nil || f.Category != "DaemonSet/SkippedNodes/Taint" {
				t.Fatalf("want DaemonSet/SkippedNodes/Taint, got %+v", f)
			}
			text := f.Title + f.Culprit + f.Actions[0].Description + strings.Join(f.Actions[0].Commands, " ")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("finding does not name %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, "asvc-tst-m1") {
				t.Errorf("the master node is tolerated, it must not be named: %s", text)
			}
		})
	}
}
