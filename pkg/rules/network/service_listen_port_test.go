package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// kestrel is ASP.NET Core's console logger at startup
// (Microsoft.Hosting.Lifetime, event 14: "Now listening on: {address}"),
// as a container without ASPNETCORE_URLS=http://+:8080 prints it.
const kestrel = "info: Microsoft.Hosting.Lifetime[14]\n      Now listening on: http://[::]:5000\n" +
	"info: Microsoft.Hosting.Lifetime[0]\n      Application started. Press Ctrl+C to shut down.\n"

// TestServiceListenPort: a Service whose targetPort matches the declared
// containerPort still reaches nothing when the application logs that it
// listens elsewhere; the root cause names both ports.
func TestServiceListenPort(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{"app": "api"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	}
	for _, tt := range []struct {
		name   string
		target intstr.IntOrString
		logs   []string // of pods api-1, api-2
		want   []string // in the culprit; nil: no finding
	}{
		{"named target, app on 5000", intstr.FromString("http"), []string{kestrel, kestrel}, []string{"targetPort http (port 8080)", "listens on 5000"}},
		{"numeric target, app on 5000", intstr.FromInt(8080), []string{kestrel}, []string{"targetPort 8080", "listens on 5000"}},
		{"target 5000 is served", intstr.FromInt(5000), []string{kestrel}, nil},
		{"one pod serves the target", intstr.FromInt(8080), []string{kestrel, "Now listening on: http://[::]:8080\n"}, nil},
		{"no listen line", intstr.FromInt(8080), []string{"info: started\n"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "s1"},
				Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "api"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: tt.target}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: "api", Namespace: "shop", UID: "s1"}, Services: []*corev1.Service{svc}}
			for i, l := range tt.logs {
				p := pod("api-" + string(rune('1'+i)))
				b.Pods = append(b.Pods, p)
				b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: p.Name, Container: "app", Text: l})
			}
			fs := ruletest.Run(ServiceListenPort, b, now)
			if tt.want == nil {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 || fs[0].Category != rule.Service.Sub("TargetPort", "NotListening") || fs[0].Strength != rule.Traced {
				t.Fatalf("findings %+v", fs)
			}
			for _, s := range tt.want {
				if !strings.Contains(fs[0].Culprit, s) {
					t.Errorf("culprit %q does not name %q", fs[0].Culprit, s)
				}
			}
			if !strings.Contains(fs[0].Actions[0].Commands[0], `"value":5000`) {
				t.Errorf("fix %v", fs[0].Actions[0].Commands)
			}
		})
	}
}
