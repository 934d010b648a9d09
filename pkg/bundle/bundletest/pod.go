package bundletest

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// WithCtrPorts sets app's ports.
func WithCtrPorts(ports ...corev1.ContainerPort) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Ports = ports }
}

// CtrPort is a TCP container port.
func CtrPort(name string, n int32) corev1.ContainerPort {
	return corev1.ContainerPort{Name: name, ContainerPort: n, Protocol: corev1.ProtocolTCP}
}

// HTTPGetProbe is an HTTP GET probe of path on p with the kubelet's defaults.
func HTTPGetProbe(path string, p intstr.IntOrString) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: p}},
		PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3}
}

// WithLiveness sets app's liveness probe.
func WithLiveness(pr *corev1.Probe) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].LivenessProbe = pr }
}

// WithReadiness sets app's readiness probe.
func WithReadiness(pr *corev1.Probe) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].ReadinessProbe = pr }
}

// WithStartup sets app's startup probe.
func WithStartup(pr *corev1.Probe) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].StartupProbe = pr }
}

// RunningNotReady: the container runs but its readiness probe fails.
func RunningNotReady(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: p.Spec.Containers[0].Image, Started: BoolPtr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: TS(-20 * time.Minute)}}}}
}

// CtrEvent is Event about p's container app.
func CtrEvent(p *corev1.Pod, typ, reason, msg string, count int32) corev1.Event {
	e := Event(p, typ, reason, msg, count)
	e.Name += "." + strings.ToLower(typ)
	e.InvolvedObject.FieldPath = "spec.containers{app}"
	return e
}

// CMWith is a ConfigMap in shop with data.
func CMWith(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Data: data}
}

// WithCMs adds cms to the bundle.
func WithCMs(cms ...*corev1.ConfigMap) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.ConfigMaps = append(b.ConfigMaps, cms...) }
}

// CtrMissing records that the pod refers to an object of kind that does not exist.
func CtrMissing(kind, name string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		ns := "shop"
		if kind == "Node" {
			ns = ""
		}
		b.Missing = append(b.Missing, bundle.MissingRef{Kind: kind, Namespace: ns, Name: name, ReferencedBy: "pod/x"})
	}
}

// ConfigErrorPod is pod api with app waiting in CreateContainerConfigError with msg.
func ConfigErrorPod(msg string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	return Pod("api", append([]func(*corev1.Pod){Waiting("CreateContainerConfigError", msg)}, mutate...)...)
}

// EnvFromCMKey adds an env var of app from key of ConfigMap name.
func EnvFromCMKey(name, key string, optional bool) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: key, ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: &optional}}})
	}
}

// RuntimeWaiting is Waiting, for a runtime's reason.
func RuntimeWaiting(reason, msg string) func(*corev1.Pod) {
	return Waiting(reason, msg)
}

// EvictedWith makes the pod Failed, evicted with the kubelet's msg.
func EvictedWith(msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: msg,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 137, Reason: "ContainerStatusUnknown", FinishedAt: TS(-10 * time.Minute)}}}}}
	}
}

// DeletedAgo marks a healthy pod deleted ago, with a 30s grace period and finalizers.
func DeletedAgo(ago time.Duration, finalizers ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		t := TS(-ago)
		p.DeletionTimestamp = &t
		p.DeletionGracePeriodSeconds = new(int64)
		*p.DeletionGracePeriodSeconds = 30
		p.Finalizers = finalizers
		Healthy(p)
	}
}
