package network

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDependencyLoginRefused: a login refused by a Service that answers is
// named by the refusal its own pod logs (the line, the user, the server's
// fix); without that line, or when the Service does not serve, the rule
// adds nothing to the caller's AuthFailed. Wordings:
// https://github.com/kobotoolbox/kobo-docker/issues/31 (celery and
// rabbitmq) and https://github.com/sentry-kubernetes/charts/issues/465
// (PostgreSQL's "Password does not match").
func TestDependencyLoginRefused(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var celery strings.Builder
	for i := 10; i > 0; i-- {
		fmt.Fprintf(&celery, "[%s: ERROR/MainProcess] consumer: Cannot connect to amqp://guest:**@rabbit:5672//: Couldn't log in: a socket error occurred.\n", now.Add(-time.Duration(i)*time.Minute).Format("2006-01-02 15:04:05,000"))
	}
	worker := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "worker", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "celery"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "celery", Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-time.Hour))}}}}}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "rabbit", Namespace: "shop"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.7.7", Selector: map[string]string{"app": "rabbit"}, Ports: []corev1.ServicePort{{Port: 5672}}}}
	port := int32(5672)
	slice := func(ready bool) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "rabbit-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "rabbit"}},
			Ports: []discoveryv1.EndpointPort{{Port: &port}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	}
	broker := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "rabbit-0", Namespace: "shop", Labels: map[string]string{"app": "rabbit"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "rabbitmq", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	refusal := "=ERROR REPORT==== 26-Nov-2026::11:59:00 ===\nError on AMQP connection <0.815.0> (10.244.2.31:43740 -> 10.244.0.9:5672, state: starting):\nPLAIN login refused: user 'guest' can only connect via localhost\n"
	for _, tt := range []struct {
		name      string
		brokerLog string
		ready     bool
		want      []string // in the culprit and the first action; nil = no finding
	}{
		{"broker says why", refusal, true, []string{"rabbit-0", "user guest", "can only connect via localhost", "loopback_users"}},
		{"broker log silent", "=INFO REPORT==== 26-Nov-2026::11:00:00 ===\nServer startup complete; 3 plugins started.\n", true, nil},
		{"Service not ready", refusal, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "worker", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{worker},
				Services: []*corev1.Service{svc}, EndpointSlices: []*discoveryv1.EndpointSlice{slice(tt.ready)}, DependencyPods: []*corev1.Pod{broker},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "worker", Container: "celery", Text: celery.String()},
					{Namespace: "shop", Pod: "rabbit-0", Container: "rabbitmq", Text: tt.brokerLog}}}
			b.Cluster.ServicesListed = "shop"
			fs := ruletest.Run(DependencyService, b, now)
			if tt.want == nil {
				if len(fs) > 0 {
					t.Fatalf("want no finding, got %s: %s", fs[0].Category, fs[0].Title)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/AuthFailed/ServerRefusedLogin") {
				t.Fatalf("got %+v, want one …/AuthFailed/ServerRefusedLogin finding", fs)
			}
			got := fs[0].Culprit + " " + fs[0].Actions[0].Description
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("culprit and action %q do not name %q", got, w)
				}
			}
		})
	}
}
