package objconv

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func pod() *corev1.Pod {
	grace := int64(30)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "u-1", Labels: map[string]string{"app": "api"},
			CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)), Generation: 3},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36",
				Resources:      corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi"), corev1.ResourceCPU: resource.MustParse("250m")}},
				LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}, PeriodSeconds: 10},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}},
				Env:            []corev1.EnvVar{{Name: "DATABASE_URL"}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}},
	}
}

// TestSameAsApimachinery: the maps and the objects are the ones
// DefaultUnstructuredConverter makes, for the kinds the bundle converts.
func TestSameAsApimachinery(t *testing.T) {
	replicas := int32(3)
	for _, tc := range []struct {
		name string
		obj  any
		into func() any
	}{
		{"pod", pod(), func() any { return &corev1.Pod{} }},
		{"deployment", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &intstr.IntOrString{Type: intstr.String, StrVal: "25%"}}}}},
			func() any { return &appsv1.Deployment{} }},
		{"event", &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "api.1"}, Count: 42, Reason: "BackOff",
			LastTimestamp: metav1.NewTime(time.Date(2026, 11, 26, 9, 31, 0, 0, time.UTC))}, func() any { return &corev1.Event{} }},
		{"empty", &corev1.ConfigMap{}, func() any { return &corev1.ConfigMap{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Converter.ToUnstructured(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ToUnstructured:\n got %#v\nwant %#v", got, want)
			}
			back := tc.into()
			if err := Converter.FromUnstructured(want, back); err != nil {
				t.Fatal(err)
			}
			ref := tc.into()
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(want, ref); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, ref) {
				t.Errorf("FromUnstructured:\n got %#v\nwant %#v", back, ref)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	if _, err := Converter.ToUnstructured([]string{"not", "an", "object"}); err == nil {
		t.Error("a list converted to an object")
	}
	var p corev1.Pod
	if err := Converter.FromUnstructured(map[string]any{"spec": map[string]any{"containers": "not a list"}}, &p); err == nil {
		t.Error("a string decoded into a list")
	}
	// Field names are case-sensitive, as the API server reads them.
	if err := Converter.FromUnstructured(map[string]any{"Metadata": map[string]any{"name": "x"}}, &p); err != nil || p.Name != "" {
		t.Errorf("Metadata (capital M) filled metadata: %q, %v", p.Name, err)
	}
}
