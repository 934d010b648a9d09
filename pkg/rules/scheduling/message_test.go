package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestParseSchedulerMessage(t *testing.T) {
	total, parts := parseSchedulerMessage("0/5 nodes are available: 1 Insufficient memory, 2 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for ")
	if total != 5 {
		t.Errorf("total = %d, want 5", total)
	}
	want := []schedReason{{1, "Insufficient memory"}, {2, "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"}, {2, "node(s) didn't match Pod's node affinity/selector"}}
	if len(parts) != len(want) {
		t.Fatalf("parts = %+v", parts)
	}
	for i := range want {
		if parts[i] != want[i] {
			t.Errorf("part %d = %+v, want %+v", i, parts[i], want[i])
		}
	}
}

func TestParseSchedulerMessageVariants(t *testing.T) {
	tests := []struct {
		msg   string
		total int
		want  []schedReason
	}{
		{"0/2 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for ",
			2, []schedReason{{1, "node(s) didn't match PersistentVolume's node affinity"}, {1, "node(s) had untolerated taint(s)"}}},
		{"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for ",
			3, []schedReason{{0, "pod has unbound immediate PersistentVolumeClaims"}}},
		{"0/1 nodes are available: 1 Insufficient example.com/gpu.", 1, []schedReason{{1, "Insufficient example.com/gpu"}}},
		{"0/2 nodes are available: 2 node(s) had taint {a.b/c: d.e}, that the pod didn't tolerate.", 2, []schedReason{{2, "node(s) had taint {a.b/c: d.e}, that the pod didn't tolerate"}}},
		{"running PreBind plugin \"VolumeBinding\": binding volumes: timed out waiting for the condition", 0, []schedReason{{0, "running PreBind plugin \"VolumeBinding\": binding volumes: timed out waiting for the condition"}}},
		// Pre-1.9 predicate names and counts (argoproj/argo-workflows#190,
		// openshift/origin#17455, kubeadm-dind-cluster#90).
		{"No nodes are available that match all of the following predicates:: Insufficient cpu (9), Insufficient memory (16), MatchNodeSelector (18).",
			0, []schedReason{{9, "Insufficient cpu"}, {16, "Insufficient memory"}, {18, "MatchNodeSelector"}}},
		{"0/260 nodes are available: 255 Insufficient memory, 5 MatchNodeSelector.", 260, []schedReason{{255, "Insufficient memory"}, {5, "MatchNodeSelector"}}},
		{"0/3 nodes are available: 1 PodToleratesNodeTaints, 3 Insufficient memory.", 3, []schedReason{{1, "PodToleratesNodeTaints"}, {3, "Insufficient memory"}}},
		{"", 0, nil},
	}
	for _, tt := range tests {
		total, parts := parseSchedulerMessage(tt.msg)
		if total != tt.total || len(parts) != len(tt.want) {
			t.Errorf("%q: got %d %+v, want %d %+v", tt.msg, total, parts, tt.total, tt.want)
			continue
		}
		for i := range parts {
			if parts[i] != tt.want[i] {
				t.Errorf("%q part %d: %+v, want %+v", tt.msg, i, parts[i], tt.want[i])
			}
		}
	}
}

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	req := func(cpu string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID("x")}, Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{
			{Name: "sidecar", RestartPolicy: &always, Resources: req("500m")},
			{Name: "migrate", Resources: req("3")},
		},
		Containers: []corev1.Container{{Name: "app", Resources: req("1")}, {Name: "log", Resources: req("250m")}},
		Overhead:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
	}}
	// max(1+0.25+0.5 running, 3+0.5 migrating next to the sidecar) + 0.1 overhead.
	got := podRequests(p)[corev1.ResourceCPU]
	if want := resource.MustParse("3600m"); got.Cmp(want) != 0 {
		t.Errorf("podRequests cpu = %s, want %s", got.String(), want.String())
	}
}

func TestNodeReqMatches(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1", Labels: map[string]string{"kubernetes.io/hostname": "w1", "zone": "a", "cores": "16"}}}
	tests := []struct {
		req  nodeReq
		want bool
	}{
		{nodeReq{Key: "zone", Op: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}, true},
		{nodeReq{Key: "zone", Op: corev1.NodeSelectorOpIn, Values: []string{"c"}}, false},
		{nodeReq{Key: "zone", Op: corev1.NodeSelectorOpNotIn, Values: []string{"a"}}, false},
		{nodeReq{Key: "gpu", Op: corev1.NodeSelectorOpNotIn, Values: []string{"true"}}, true}, // absent label satisfies NotIn
		{nodeReq{Key: "zone", Op: corev1.NodeSelectorOpExists}, true},
		{nodeReq{Key: "gpu", Op: corev1.NodeSelectorOpExists}, false},
		{nodeReq{Key: "gpu", Op: corev1.NodeSelectorOpDoesNotExist}, true},
		{nodeReq{Key: "cores", Op: corev1.NodeSelectorOpGt, Values: []string{"8"}}, true},
		{nodeReq{Key: "cores", Op: corev1.NodeSelectorOpLt, Values: []string{"8"}}, false},
		{nodeReq{Key: "zone", Op: corev1.NodeSelectorOpGt, Values: []string{"8"}}, false}, // not a number
		{nodeReq{Key: "metadata.name", Op: corev1.NodeSelectorOpIn, Values: []string{"w1"}, Field: true}, true},
		{nodeReq{Key: "metadata.uid", Op: corev1.NodeSelectorOpIn, Values: []string{"w1"}, Field: true}, false},
		{nodeReq{Key: "zone", Op: "Bogus"}, false},
	}
	for _, tt := range tests {
		if got := tt.req.matches(n); got != tt.want {
			t.Errorf("%s on %v: got %v, want %v", tt.req, n.Labels, got, tt.want)
		}
	}
	if s := (nodeReq{Key: "gpu", Op: corev1.NodeSelectorOpDoesNotExist}).String(); s != "gpu DoesNotExist" {
		t.Errorf("String() = %q", s)
	}
}

// TestSchedulerReasonsCovered: every filter reason of kube-scheduler's
// in-tree plugins that concerns the pod's own spec or volumes (the
// ErrReason constants of pkg/scheduler/framework/plugins, v1.37) has a
// class of its own, not "Other".
func TestSchedulerReasonsCovered(t *testing.T) {
	for _, reason := range []string{
		"node(s) exceed max volume count",
		"node(s) didn't find available persistent volumes to bind",
		"node(s) didn't match PersistentVolume's node affinity",
		"node(s) did not have enough free storage",
		"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
		"node(s) had no available volume zone",
		"node(s) had taints that the pod didn't tolerate",
		"node(s) had untolerated taint {dedicated: ml}",
		"node(s) didn't satisfy existing pods anti-affinity rules",
		"node(s) didn't match pod affinity rules",
		"node(s) didn't match pod anti-affinity rules",
		"node(s) had no available disk",
		"node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod",
		"node(s) didn't have free ports for the requested pod ports",
		"node(s) didn't match pod topology spread constraints",
		"node(s) didn't match Pod's node affinity/selector",
		"node(s) were unschedulable",
		"Insufficient cpu", "Too many pods",
	} {
		var found causeClass
		for i := range schedClasses {
			if schedClasses[i].re.MatchString(reason) {
				found = schedClasses[i].Class
				break
			}
		}
		if found == "" {
			t.Errorf("no class for %q", reason)
		}
	}
}
