// Package bundletest builds the hand-made bundles that case tables run
// rules and the investigator on: pods in namespace shop on node-1, their
// states, events, logs and the objects they refer to, all as of Now.
package bundletest

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Now is the time every built object is relative to, and the time a case is triaged at.
var Now = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

// TS is Now+d.
func TS(d time.Duration) metav1.Time { return metav1.NewTime(Now.Add(d)) }

// Pod is a running pod of one container app in namespace shop on node-1, with a 64Mi memory limit, changed by mutate.
func Pod(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name), CreationTimestamp: TS(-30 * time.Minute)},
		Spec: corev1.PodSpec{
			NodeName:      "node-1",
			RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/shop/api:1.4.2",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: Now.Add(-30 * time.Minute)}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// Crashing puts app in CrashLoopBackOff after 5 restarts, its last run ended with code and reason.
func Crashing(code int32, reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: "app", Image: p.Spec.Containers[0].Image, RestartCount: 5,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 2m40s restarting failed container"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: TS(-2 * time.Minute), FinishedAt: TS(-time.Minute)}},
		}}
	}
}

// Waiting leaves the pod Pending with app waiting for reason.
func Waiting(reason, msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: "app", Image: p.Spec.Containers[0].Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}},
		}}
	}
}

// Unscheduled leaves the pod unbound with the scheduler's msg, requesting cpu.
func Unscheduled(msg string, cpu string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: msg, LastTransitionTime: TS(-20 * time.Minute)}}}
	}
}

// Healthy makes the pod Ready with app running.
func Healthy(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true, Started: BoolPtr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: TS(-29 * time.Minute)}}}}
}

// BoolPtr is a pointer to b.
func BoolPtr(b bool) *bool { return &b }

// Node is a Ready node with cpu and 8Gi allocatable.
func Node(name, cpu string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("8Gi")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
}

// Event is an event about p, first seen 25 minutes and last one minute before Now.
func Event(p *corev1.Pod, typ, reason, msg string, count int32) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: p.Name + "." + strings.ToLower(reason), Namespace: p.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: p.Name, Namespace: p.Namespace, UID: p.UID},
		Type:           typ, Reason: reason, Message: msg, Count: count,
		FirstTimestamp: TS(-25 * time.Minute), LastTimestamp: TS(-time.Minute),
	}
}

// PodBundle is a bundle that targets p, with p and node-1 in it, changed by mutate.
func PodBundle(p *corev1.Pod, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:  fault.Resource{APIVersion: "v1", Kind: "Pod", Name: p.Name, Namespace: p.Namespace, UID: string(p.UID)},
		Cluster: bundle.ClusterInfo{Context: "prod", Cluster: "prod-east"},
		Pods:    []*corev1.Pod{p},
		Nodes:   []*corev1.Node{Node("node-1", "4")},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

// WithLogs adds text as app's log in the bundle's first pod (its previous run's if previous).
func WithLogs(previous bool, text string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		p := b.Pods[0]
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: p.Namespace, Pod: p.Name, Container: "app", Previous: previous, Text: text})
	}
}

// WithEvents adds evs to the bundle.
func WithEvents(evs ...corev1.Event) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Events = append(b.Events, evs...) }
}
