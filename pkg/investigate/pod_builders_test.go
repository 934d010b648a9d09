package investigate

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

func withCtrPorts(ports ...corev1.ContainerPort) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Ports = ports }
}

func ctrPort(name string, n int32) corev1.ContainerPort {
	return corev1.ContainerPort{Name: name, ContainerPort: n, Protocol: corev1.ProtocolTCP}
}

func httpGetProbe(path string, p intstr.IntOrString) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: p}},
		PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3}
}

func withLiveness(pr *corev1.Probe) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].LivenessProbe = pr }
}

func withReadiness(pr *corev1.Probe) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].ReadinessProbe = pr }
}

func withStartup(pr *corev1.Probe) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].StartupProbe = pr }
}

// runningNotReady: the container runs but its readiness probe fails.
func runningNotReady(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: p.Spec.Containers[0].Image, Started: boolPtr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-20 * time.Minute)}}}}
}

func ctrEvent(p *corev1.Pod, typ, reason, msg string, count int32) corev1.Event {
	e := event(p, typ, reason, msg, count)
	e.Name += "." + strings.ToLower(typ)
	e.InvolvedObject.FieldPath = "spec.containers{app}"
	return e
}

func cmWith(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Data: data}
}

func withCMs(cms ...*corev1.ConfigMap) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.ConfigMaps = append(b.ConfigMaps, cms...) }
}

func ctrMissing(kind, name string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		ns := "shop"
		if kind == "Node" {
			ns = ""
		}
		b.Missing = append(b.Missing, bundle.MissingRef{Kind: kind, Namespace: ns, Name: name, ReferencedBy: "pod/x"})
	}
}

func configErrorPod(msg string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	return pod("api", append([]func(*corev1.Pod){waiting("CreateContainerConfigError", msg)}, mutate...)...)
}

func envFromCMKey(name, key string, optional bool) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: key, ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: &optional}}})
	}
}

func runtimeWaiting(reason, msg string) func(*corev1.Pod) {
	return waiting(reason, msg)
}

func evictedWith(msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: msg,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 137, Reason: "ContainerStatusUnknown", FinishedAt: ts(-10 * time.Minute)}}}}}
	}
}

func deletedAgo(ago time.Duration, finalizers ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		t := ts(-ago)
		p.DeletionTimestamp = &t
		p.DeletionGracePeriodSeconds = new(int64)
		*p.DeletionGracePeriodSeconds = 30
		p.Finalizers = finalizers
		healthy(p)
	}
}
