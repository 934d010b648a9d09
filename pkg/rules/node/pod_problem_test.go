package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestPodOnProblemNode: a pod's error that says what its node's problem
// condition names (a read-only filesystem under ReadonlyFilesystem=True)
// makes the node the cause, named with the condition; an unrelated error
// on that node is only a lead; a node without the condition says nothing.
func TestPodOnProblemNode(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	mk := func(readonly bool, reason, msg string) *bundle.Bundle {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker2.vagrant.vm"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.NewTime(now.Add(-10 * time.Second))}}}}
		if readonly {
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: "ReadonlyFilesystem", Status: corev1.ConditionTrue, Reason: "FilesystemIsReadOnly",
				Message: "Remounting filesystem read-only", LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))})
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "redis-0", Namespace: "cache", UID: "p1"}, Spec: corev1.PodSpec{NodeName: n.Name, Containers: []corev1.Container{{Name: "redis", Image: "redis:7"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "redis",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: "cache", UID: "p1"}, Pods: []*corev1.Pod{p}, Nodes: []*corev1.Node{n}}
	}
	// https://github.com/oracle/vagrant-projects/issues/120 (the node's btrfs
	// went read-only: "something very wrong has happened on the worker2
	// node"), paired here with node-problem-detector's condition.
	vagrant := `failed to start container "redis": Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process caused "open /var/lib/docker/btrfs/subvolumes/9e0a/etc/resolv.conf: read-only file system": unknown`
	// https://github.com/rook/rook/issues/3139 (CreateContainerError).
	rook := "failed to mkdir log: mkdir log: read-only file system"
	for _, tt := range []struct {
		name      string
		b         *bundle.Bundle
		validated bool
		lead      bool
	}{
		{"docker btrfs read-only", mk(true, "RunContainerError", vagrant), true, false},
		{"runtime mkdir read-only", mk(true, "CreateContainerError", rook), true, false},
		{"unrelated error on that node", mk(true, "ErrImagePull", `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/redis:77": not found`), false, true},
		{"no condition on the node", mk(false, "CreateContainerError", rook), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got *rule.Finding
			fs := ruletest.Run(PodNode, tt.b, now)
			for i := range fs {
				if fs[i].Category == rule.Node.Sub("ReadonlyFilesystem") {
					got = &fs[i]
				}
			}
			switch {
			case tt.validated:
				if got == nil || got.Verdict != report.Validated || !strings.Contains(got.Culprit, "ReadonlyFilesystem") || !strings.Contains(got.Culprit, "worker2.vagrant.vm") {
					t.Fatalf("finding %+v", got)
				}
			case tt.lead:
				if got == nil || got.Verdict != report.Inconclusive {
					t.Fatalf("want an inconclusive lead, got %+v", got)
				}
			default:
				if got != nil {
					t.Fatalf("finding without the condition: %+v", got)
				}
			}
		})
	}
}
