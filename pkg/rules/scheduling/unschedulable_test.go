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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestUnschedulable: the scheduler's "Insufficient cpu" is checked against
// what the nodes offer, and names the request that does not fit; a pod
// that is scheduled gives nothing.
func TestUnschedulable(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Labels: map[string]string{"kubernetes.io/hostname": "worker-1"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "batch", Namespace: "shop", UID: "p1", CreationTimestamp: metav1.NewTime(now.Add(-5 * time.Minute))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/batch:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "batch", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{pod}, Nodes: []*corev1.Node{node}}

	f := ruletest.Root(ruletest.Run(Unschedulable, b, now))
	if f == nil || !strings.HasPrefix(string(f.Category), string(rule.Unschedulable.Sub("InsufficientCpu"))) || f.Layer != rule.PlacementLayer {
		t.Fatalf("finding %+v", f)
	}
	if !strings.Contains(f.Culprit, "64") {
		t.Errorf("culprit %q does not name the 64-CPU request", f.Culprit)
	}

	scheduled := pod.DeepCopy()
	scheduled.Spec.NodeName, scheduled.Status.Conditions = "worker-1", nil
	b.Pods = []*corev1.Pod{scheduled}
	if fs := ruletest.Run(Unschedulable, b, now); len(fs) != 0 {
		t.Errorf("findings on a scheduled pod: %+v", fs)
	}
}

// TestUnschedulableSelectorNarrows: when the scheduler reports some nodes
// failing a filter that runs after NodeAffinity (resources here), those
// nodes matched the selector; the selector only narrows the choice and the
// shortage is the cause, whether the nodes could not be read or show the
// pool. Messages from real
// reports; kube-scheduler's filter order from default_plugins.go.
func TestUnschedulableSelectorNarrows(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-9", Labels: map[string]string{"kubernetes.io/hostname": "worker-9"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	pool := other.DeepCopy()
	pool.Name, pool.Labels = "pt-1", map[string]string{"kubernetes.io/hostname": "pt-1", "pool": "pt"}
	pool.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse("15Gi")
	msgs := []string{
		"0/12 nodes are available: 3 Insufficient memory, 9 node(s) didn't match node selector.", // kubernetes/kubernetes#86942
		"0/8 nodes are available: 1 Insufficient memory, 7 node(s) didn't match node selector.",  // OpenShiftDemos/openshift-ops-workshops#358
		"0/8 nodes are available: 6 node(s) didn't match node selector, 8 Insufficient memory.",  // ibid., a comment
		"0/260 nodes are available: 255 Insufficient memory, 5 MatchNodeSelector.",               // openshift/origin#17455
		"0/5 nodes are available: 2 Insufficient memory, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 2 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.", // 1.27+ wording
		"No nodes are available that match all of the following predicates:: Insufficient memory (16), MatchNodeSelector (18).",                                                                                                                 // argoproj/argo-workflows#190
	}
	for _, msg := range msgs {
		for _, nodes := range [][]*corev1.Node{nil, {other, pool}} {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pt-4c12g-2", Namespace: "shop", UID: "p1", CreationTimestamp: metav1.NewTime(now.Add(-11 * time.Minute))},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"pool": "pt"}, Containers: []corev1.Container{{Name: "app", Image: "shop/pt:1",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("12Gi")}}}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: msg}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: pod.Name, Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{pod}, Nodes: nodes}
			f := ruletest.Root(ruletest.Run(Unschedulable, b, now))
			if f == nil || string(f.Category) != string(rule.Unschedulable.Sub("InsufficientMemory")) {
				t.Errorf("%q with %d node(s): finding %+v", msg, len(nodes), f)
				continue
			}
			if !strings.Contains(f.Title, "Insufficient memory") || !strings.Contains(f.Culprit, "memory") {
				t.Errorf("%q with %d node(s): title %q culprit %q", msg, len(nodes), f.Title, f.Culprit)
			}
			if !strings.Contains(f.Summary, "pool=pt") {
				t.Errorf("%q with %d node(s): summary %q does not say the selector narrows the pool", msg, len(nodes), f.Summary)
			}
		}
	}
}

// TestUnschedulableVolumeReasons: the volume plugins' reasons, with the
// preemption commentary after them, name their class (messages in
// kube-scheduler's own wording, volumerestrictions and volumebinding).
func TestUnschedulableVolumeReasons(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"0/3 nodes are available: 3 node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.": "Unschedulable/ReadWriteOncePod",
		"0/4 nodes are available: 4 node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s). preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.":                                            "Unschedulable/MissingPV",
		"no nodes available to schedule pods": "Unschedulable/NoNodes",
		"0/6 nodes are available: 2 node(s) had no available volume zone, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.": "Unschedulable/VolumeZone",
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "shop", UID: "p1", CreationTimestamp: metav1.NewTime(now.Add(-5 * time.Minute))},
			Spec: corev1.PodSpec{NodeSelector: map[string]string{"tier": "db"}, Containers: []corev1.Container{{Name: "app", Image: "postgres:16"}},
				Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-db-0"}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: msg}}}}
		b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "db-0", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{pod}}
		f := ruletest.Root(ruletest.Run(Unschedulable, b, now))
		if f == nil || string(f.Category) != want {
			t.Errorf("%q: finding %+v, want %s", msg, f, want)
		}
	}
}
