package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestRejected: a pod the kubelet refused at admission is explained by the
// resource it lacked on that node; a node-condition rejection is left to
// the node rules.
func TestRejected(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		reason, message string
		want            rule.Category
		culprit         string
	}{
		{"OutOfcpu", "Pod was rejected: Node didn't have enough resource: cpu, requested: 2000, used: 3250, capacity: 4000", rule.Node.Sub("Rejected", "OutOfcpu"), "requests.cpu (2000m) vs node/w1: 3250m of 4000m used"},
		{"NodeAffinity", "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector", rule.Node.Sub("Rejected", "NodeAffinity"), "Predicate NodeAffinity failed"},
		// kubernetes/kubernetes#94249: the kubelet of the time, "Pod " + the
		// sysctl admit handler's message; and today's wording.
		{"SysctlForbidden", `Pod forbidden sysctl: "net.core.somaxconn" not whitelisted`, rule.Node.Sub("Rejected", "SysctlForbidden"), "securityContext.sysctls net.core.somaxconn vs node/w1's KubeletConfiguration allowedUnsafeSysctls"},
		{"SysctlForbidden", `Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted`, rule.Node.Sub("Rejected", "SysctlForbidden"), "sysctls kernel.msgmax"},
		{"Evicted", "Pod was rejected: The node had condition: [DiskPressure]. ", "", ""},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
				Spec:   corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: tt.reason, Message: tt.message}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
			f := ruletest.Root(ruletest.Run(Rejected, b, now))
			if tt.want == "" {
				if f != nil {
					t.Fatalf("finding %+v", f)
				}
				return
			}
			if f == nil || f.Category != tt.want || !strings.Contains(f.Culprit, tt.culprit) || !f.Current {
				t.Fatalf("finding %+v, want %q naming %q", f, tt.want, tt.culprit)
			}
		})
	}
}

// TestRejectedDeviceAllocation: a device plugin's allocation that fails at
// admission (UnexpectedAdmissionError) is the node's device or plugin,
// named in the innermost words of the error, in the kubelet's current
// ("Pod was rejected: ") and older ("Pod ") wordings, across vendors and
// plugins.
func TestRejectedDeviceAllocation(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, resource, message string
		want                    rule.Category
		culprit                 []string
	}{
		// https://github.com/NVIDIA/k8s-device-plugin/issues/231 (older kubelet's "Pod " prefix)
		{"NVIDIA plugin, GPU lost", "nvidia.com/gpu",
			"Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = Unable to retrieve list of available devices: error creating nvml.Device 3: nvml: GPU is lost, which is unexpected",
			rule.Node.Sub("Rejected", "UnexpectedAdmissionError", "DevicePlugin"), []string{"node/w1", "nvml: GPU is lost"}},
		// https://github.com/kubernetes/kubernetes/issues/96519
		{"kubelet's device count", "nvidia.com/gpu",
			"Pod Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected",
			rule.Node.Sub("Rejected", "UnexpectedAdmissionError", "DevicesUnavailable"), []string{"node/w1", "Requested: 1, Available: 0"}},
		// https://github.com/trueforge-org/truecharts/issues/19201 (AMD's plugin), as the current kubelet words it
		{"AMD devices unhealthy", "amd.com/gpu",
			"Pod was rejected: Allocate failed due to no healthy devices present; cannot allocate unhealthy devices amd.com/gpu, which is unexpected",
			rule.Node.Sub("Rejected", "UnexpectedAdmissionError", "DevicesUnhealthy"), []string{"node/w1 amd.com/gpu", "cannot allocate unhealthy devices"}},
		// https://github.com/Project-HAMi/HAMi/issues/71 (HAMi's plugin gone)
		{"HAMi plugin unavailable", "nvidia.com/gpu",
			"Pod was rejected: Allocate failed due to rpc error: code = Unavailable desc = error reading from server: EOF, which is unexpected",
			rule.Node.Sub("Rejected", "UnexpectedAdmissionError", "DevicePlugin"), []string{"error reading from server: EOF"}},
		// https://github.com/volcano-sh/devices/issues/17 (Volcano's plugin)
		{"Volcano plugin", "volcano.sh/gpu-memory",
			"Pod was rejected: Allocate failed due to rpc error: code = Unknown desc = failed to find gpu id, which is unexpected",
			rule.Node.Sub("Rejected", "UnexpectedAdmissionError", "DevicePlugin"), []string{"node/w1 volcano.sh/gpu-memory", "failed to find gpu id"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ml", UID: "p1"},
				Spec: corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "app", Image: "ml/train:1",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceName(tt.resource): resource.MustParse("1")}}}}},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "UnexpectedAdmissionError", Message: tt.message}}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{corev1.ResourceName(tt.resource): resource.MustParse("4")},
				Allocatable: corev1.ResourceList{corev1.ResourceName(tt.resource): resource.MustParse("4")}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "train", Namespace: "ml", UID: "p1"}, Pods: []*corev1.Pod{p}, Nodes: []*corev1.Node{node}}
			f := ruletest.Root(ruletest.Run(Rejected, b, now))
			if f == nil || f.Category != tt.want || !f.Current {
				t.Fatalf("finding %+v, want %q", f, tt.want)
			}
			for _, w := range tt.culprit {
				if !strings.Contains(f.Culprit, w) {
					t.Errorf("culprit %q does not name %q", f.Culprit, w)
				}
			}
			if !strings.Contains(strings.Join(f.Contributing, " "), "still advertises 4 "+tt.resource) {
				t.Errorf("contributing %q does not say the node advertises the devices", f.Contributing)
			}
			if len(f.Actions) == 0 || !strings.Contains(strings.Join(f.Actions[0].Commands, " "), "kubectl cordon w1") {
				t.Errorf("actions %+v do not cordon the node", f.Actions)
			}
		})
	}
}

// TestRejectedNotAnAdmission: a Failed pod's message that merely starts
// with "Pod " (the kubelet's activeDeadlineSeconds) is not a rejection.
func TestRejectedNotAnAdmission(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
		Spec:   corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "DeadlineExceeded", Message: "Pod was active on the node longer than the specified deadline"}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
	if fs := ruletest.Run(Rejected, b, time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)); len(fs) != 0 {
		t.Fatalf("findings %+v", fs)
	}
}

// TestRejectedSameNode: a workload whose failed pods one node rejected the
// same way is told so, and the rejection stays current while no later pod
// was admitted; a replacement that runs makes it history.
func TestRejectedSameNode(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes := true
	ref := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "homarr-54b6f78c78", UID: "rs1", Controller: &yes}
	// https://github.com/trueforge-org/truecharts/issues/19201: every
	// replacement of a Deployment's pod rejected by the same node.
	rejected := func(name string, age time.Duration) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ix-homarr", UID: types.UID(name), OwnerReferences: []metav1.OwnerReference{ref},
			CreationTimestamp: metav1.NewTime(now.Add(-age))},
			Spec: corev1.PodSpec{NodeName: "ix-truenas", Containers: []corev1.Container{{Name: "homarr", Image: "ghcr.io/ajnart/homarr:0.15.0",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"amd.com/gpu": resource.MustParse("1")}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "UnexpectedAdmissionError",
				Message: "Pod was rejected: Allocate failed due to no healthy devices present; cannot allocate unhealthy devices amd.com/gpu, which is unexpected"}}
	}
	pods := []*corev1.Pod{rejected("homarr-54b6f78c78-82wsn", 3*time.Second), rejected("homarr-54b6f78c78-79rgz", 4*time.Second), rejected("homarr-54b6f78c78-vgvl9", 4*time.Second)}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "homarr", Namespace: "ix-homarr", UID: "d1"}, Pods: pods}
	fs := ruletest.Run(Rejected, b, now)
	if len(fs) != 3 {
		t.Fatalf("findings %+v", fs)
	}
	for _, f := range fs {
		if !f.Current || !strings.Contains(f.Title, "all 3 failed pods of replicaset/homarr-54b6f78c78 were rejected by node ix-truenas") {
			t.Errorf("finding current %v, title %q", f.Current, f.Title)
		}
	}
	running := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "homarr-54b6f78c78-5pzn6", Namespace: "ix-homarr", UID: "run", OwnerReferences: []metav1.OwnerReference{ref},
		CreationTimestamp: metav1.NewTime(now.Add(-time.Second))},
		Spec:   corev1.PodSpec{NodeName: "w2", Containers: []corev1.Container{{Name: "homarr", Image: "ghcr.io/ajnart/homarr:0.15.0"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "homarr", Ready: true}}}}
	b.Pods = append(b.Pods, running)
	for _, f := range ruletest.Run(Rejected, b, now) {
		if f.Current {
			t.Errorf("finding %q current beside a running replacement", f.Title)
		}
	}
}
