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

// TestSandboxCNIAgent: a sandbox the CNI plugin fails on is traced to the
// plugin's agent on the node when that agent is down, with the node's
// missing pod range when the agent's log says that is what it lacks
// (flannel-io/flannel#1558); a running agent (ready or not), or a pod
// that is no DaemonSet's, adds nothing.
func TestSandboxCNIAgent(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	flannelEv := `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "3c05": plugin type="flannel" failed (add): open /run/flannel/subnet.env: no such file or directory`
	flannelLog := `E0512 08:01:02.000000       1 main.go:317] Error registering network: failed to acquire lease: node "w1" pod cidr not assigned` + "\n"
	agent := func(name, image string, owner string, ready bool) *corev1.Pod {
		st := corev1.ContainerStatus{Name: "agent", Image: image, RestartCount: 9, Ready: ready}
		if ready {
			st.State.Running = &corev1.ContainerStateRunning{}
		} else {
			st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
			st.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1}
		}
		cond := corev1.ConditionFalse
		if ready {
			cond = corev1.ConditionTrue
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-flannel", OwnerReferences: []metav1.OwnerReference{{Kind: owner, Name: "ds"}}},
			Spec:   corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "agent", Image: image}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}}, ContainerStatuses: []corev1.ContainerStatus{st}}}
	}
	flannel := "docker.io/flannel/flannel:v0.24.0"
	for _, tt := range []struct {
		name     string
		agent    *corev1.Pod
		podCIDR  string
		want     rule.Category
		culprit  []string
		notNamed string
	}{
		{"agent down, node without a pod range", agent("kube-flannel-ds-x7wqk", flannel, "DaemonSet", false), "",
			rule.Node.Sub("Sandbox", "CNI", "Agent"), []string{"pod kube-flannel/kube-flannel-ds-x7wqk", "pod cidr not assigned", "node w1 has no spec.podCIDR"}, ""},
		{"agent down, node with a pod range", agent("kube-flannel-ds-x7wqk", flannel, "DaemonSet", false), "10.244.1.0/24",
			rule.Node.Sub("Sandbox", "CNI", "Agent"), []string{"pod kube-flannel/kube-flannel-ds-x7wqk"}, "spec.podCIDR"},
		{"agent ready", agent("kube-flannel-ds-x7wqk", flannel, "DaemonSet", true), "",
			rule.Node.Sub("Sandbox", "CNI"), []string{`CNI plugin "flannel"`}, "kube-flannel-ds"},
		{"agent running, not ready", func() *corev1.Pod {
			p := agent("kube-flannel-ds-x7wqk", flannel, "DaemonSet", true)
			p.Status.Conditions[0].Status = corev1.ConditionFalse
			p.Status.ContainerStatuses[0].Ready = false
			return p
		}(), "", rule.Node.Sub("Sandbox", "CNI"), []string{`CNI plugin "flannel"`}, "kube-flannel-ds"},
		{"not a DaemonSet's pod", agent("flannel-debug", flannel, "ReplicaSet", false), "",
			rule.Node.Sub("Sandbox", "CNI"), []string{`CNI plugin "flannel"`}, "flannel-debug"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "app", Image: "shop/web:1"}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}}
			ev := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "shop"}, Reason: "FailedCreatePodSandBox", Type: "Warning", Message: flannelEv, Count: 40,
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web", Namespace: "shop", UID: "p1"},
				FirstTimestamp: metav1.NewTime(now.Add(-2 * time.Hour)), LastTimestamp: metav1.NewTime(now.Add(-30 * time.Second))}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Spec: corev1.NodeSpec{PodCIDR: tt.podCIDR}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "web", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{ev},
				Nodes: []*corev1.Node{node}, DependencyPods: []*corev1.Pod{tt.agent},
				Logs: []bundle.ContainerLog{{Namespace: "kube-flannel", Pod: tt.agent.Name, Container: "agent", Previous: true, Text: flannelLog}}}
			f := ruletest.Root(ruletest.Run(Sandbox, b, now))
			if f == nil || f.Category != tt.want {
				t.Fatalf("finding %+v, want %q", f, tt.want)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
			if tt.notNamed != "" && strings.Contains(f.Culprit, tt.notNamed) {
				t.Errorf("culprit %q names %q", f.Culprit, tt.notNamed)
			}
		})
	}
}
