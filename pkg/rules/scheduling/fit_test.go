package scheduling

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestUnschedulableOtherwiseFit: with several reasons, the decisive one is
// the reason on the nodes that pass the pod's tolerations and node
// selector/affinity, not the largest count; pools reserved by taints only
// narrow the choice. A node-problem taint is not a reservation, and with no
// node past the selector there is nothing that "otherwise fits".
func TestUnschedulableOtherwiseFit(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	node := func(name string, cpu, mem string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
			Spec: corev1.NodeSpec{Taints: taints},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem), corev1.ResourcePods: resource.MustParse("110")},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	master := corev1.Taint{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule}
	cases := []struct {
		name, msg string
		nodes     []*corev1.Node
		requests  corev1.ResourceList
		want      string
		perNode   []string // in the "otherwise fit" note; nil: no note
	}{{
		// https://github.com/kubernetes/kops/issues/8778: an autoscaled
		// Deployment on a kops cluster of one master and one worker; the
		// worker is full, the master tainted. The counts tie and the taint
		// used to win on strength.
		name:     "kops master taint and a full worker",
		msg:      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had taints that the pod didn't tolerate.",
		nodes:    []*corev1.Node{node("master-1", "2", "4Gi", master), node("worker-1", "2", "4Gi")},
		requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
		want:     "Unschedulable/InsufficientCpu",
		perNode:  []string{"master-1: untolerated taint node-role.kubernetes.io/master:NoSchedule", "worker-1: fits when empty"},
	}, {
		// https://github.com/redhat-developer/odo/pull/7038, the nodes
		// read: two plain workers too small, pools tainted.
		name: "odo ci pools and two small workers",
		msg:  "0/4 nodes are available: 2 Insufficient memory, 2 node(s) had untolerated taint {node-role.kubernetes.io/ci-tests-worker: ci-tests-worker}. preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling..",
		nodes: []*corev1.Node{node("ci-1", "8", "32Gi", corev1.Taint{Key: "node-role.kubernetes.io/ci-tests-worker", Value: "ci-tests-worker", Effect: corev1.TaintEffectNoSchedule}),
			node("ci-2", "8", "32Gi", corev1.Taint{Key: "node-role.kubernetes.io/ci-tests-worker", Value: "ci-tests-worker", Effect: corev1.TaintEffectNoSchedule}),
			node("w-1", "4", "4Gi"), node("w-2", "4", "4Gi")},
		requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("6Gi")},
		want:     "Unschedulable/InsufficientMemory",
		perNode:  []string{"ci-1, ci-2: untolerated taint", "w-1, w-2: Insufficient memory (allocatable 4Gi < request 6Gi)"},
	}, {
		// Negative: https://github.com/danisla/kubefunc/issues/10, no node
		// passes the selector, so none "otherwise fits".
		name:  "no node past the selector",
		msg:   "0/23 nodes are available: 1 node(s) had taints that the pod didn't tolerate, 22 node(s) didn't match node selector.",
		want:  "Unschedulable/NodeSelector",
		nodes: nil,
	}, {
		// Negative: a pool taint with no sign from the scheduler that the
		// remaining node was a preemption candidate keeps its weight.
		name:     "pool taint without preemption evidence",
		msg:      "0/3 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}, 1 Insufficient cpu.",
		requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
		want:     "Unschedulable/Taint",
	}, {
		// Negative: an unreachable node's taint is its condition, not a
		// reservation: the node would take the pod once back.
		name:     "node problem taint is not a pool",
		msg:      "0/6 nodes are available: 3 Insufficient cpu, 3 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.",
		requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		want:     "Unschedulable/Taint",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "p1", CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Minute))},
				Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/web:1", Resources: corev1.ResourceRequirements{Requests: tc.requests}}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: tc.msg}}}}
			if strings.Contains(tc.msg, "node selector") {
				pod.Spec.NodeSelector = map[string]string{"role": "admin"}
			}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: pod.Name, Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{pod}, Nodes: tc.nodes}
			f := ruletest.Root(ruletest.Run(Unschedulable, b, now))
			if f == nil || string(f.Category) != tc.want {
				t.Fatalf("finding %+v, want %s", f, tc.want)
			}
			note := strings.Join(f.Contributing, "\n")
			if tc.perNode == nil {
				if strings.Contains(note, "otherwise fit") {
					t.Errorf("an \"otherwise fit\" note where no node passes the earlier filters:\n%s", note)
				}
				return
			}
			if !strings.Contains(note, "otherwise fit") {
				t.Errorf("no \"otherwise fit\" note:\n%s", note)
			}
			for _, w := range tc.perNode {
				if !strings.Contains(note, w) {
					t.Errorf("note does not say %q:\n%s", w, note)
				}
			}
		})
	}
}
