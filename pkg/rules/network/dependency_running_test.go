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

// TestDependencyRunningCaller: a container that runs (no crash, no probe)
// and repeats a connection error is traced like a crashing one: host →
// Service → its endpoints and its own pod. The worker lines are Sidekiq's
// (redis-rb) wording as a running worker logs them,
// https://github.com/feedbin/feedbin/issues/120 ("ERROR: heartbeat: Error
// connecting to Redis on 127.0.0.1:6379 (ECONNREFUSED)"), with the host
// either kept or replaced by the Service name.
func TestDependencyRunningCaller(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	worker := func(env ...corev1.EnvVar) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "worker", Namespace: "shop", UID: "p1", Labels: map[string]string{"app": "worker"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "sidekiq", Env: env}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "sidekiq", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-time.Hour))}}}}}}
	}
	repeat := func(format string) string {
		var b strings.Builder
		for i := 10; i > 0; i-- {
			fmt.Fprintf(&b, "%s 25067 TID-ot9yxea4s ERROR: "+format+"\n", now.Add(-time.Duration(i)*time.Minute).Format("2006-01-02T15:04:05.000Z"))
		}
		return b.String()
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "redis", Namespace: "shop"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.112.4", Selector: map[string]string{"app": "redis"}, Ports: []corev1.ServicePort{{Port: 6379}}}}
	port := int32(6379)
	slice := func(ready bool) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "redis-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "redis"}},
			Ports: []discoveryv1.EndpointPort{{Port: &port}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	}
	oom := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "redis-0", Namespace: "shop", Labels: map[string]string{"app": "redis"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "redis", RestartCount: 6,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}}}
	refusedSvc := repeat("Error fetching message: Error connecting to Redis on redis:6379 (ECONNREFUSED)")
	for _, tt := range []struct {
		name    string
		log     string
		env     []corev1.EnvVar
		ready   bool
		want    string // category suffix; "" = no finding
		culprit []string
	}{
		{"Service's pod OOM-killed", refusedSvc, nil, false, "/ServiceNotReady", []string{"redis-0", "OOMKilled"}},
		// No variable names the address: redis-rb's default, REDIS_URL unset.
		{"localhost default, variable unset", repeat("heartbeat: Error connecting to Redis on 127.0.0.1:6379 (ECONNREFUSED)"), nil, true, "/Localhost/DefaultUnset", []string{"REDIS_URL unset", "127.0.0.1:6379"}},
		// The variable is set, to localhost: the configuration is wrong, no default.
		{"localhost configured", repeat("heartbeat: Error connecting to Redis on 127.0.0.1:6379 (ECONNREFUSED)"), []corev1.EnvVar{{Name: "REDIS_URL", Value: "redis://localhost:6379/0"}}, true, "/Localhost", []string{"127.0.0.1:6379"}},
		// The Service serves: the refusal is not explained by it.
		{"Service ready", refusedSvc, nil, true, "", nil},
		// A repeated error that is no connection failure reads nothing further.
		{"not a connection error", repeat("undefined method `perform' for nil:NilClass (NoMethodError) redis:6379"), nil, false, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "worker", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{worker(tt.env...)},
				Services: []*corev1.Service{svc}, EndpointSlices: []*discoveryv1.EndpointSlice{slice(tt.ready)}, DependencyPods: []*corev1.Pod{oom},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "worker", Container: "sidekiq", Text: tt.log}}}
			b.Cluster.ServicesListed = "shop"
			fs := ruletest.Run(DependencyService, b, now)
			if tt.want == "" {
				if len(fs) > 0 {
					t.Fatalf("want no finding, got %s: %s", fs[0].Category, fs[0].Title)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), tt.want) {
				t.Fatalf("got %+v, want one finding …%s", fs, tt.want)
			}
			if !strings.HasPrefix(string(fs[0].Category), "Running/Errors") {
				t.Errorf("category %s does not keep the running caller's Running/Errors", fs[0].Category)
			}
			for _, w := range tt.culprit {
				if !strings.Contains(fs[0].Culprit, w) {
					t.Errorf("culprit %q does not name %q", fs[0].Culprit, w)
				}
			}
		})
	}
}
