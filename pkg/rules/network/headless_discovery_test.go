package network

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

// TestHeadlessDiscovery: a pod that is not Ready and cannot resolve the
// headless Service selecting it (or a peer's name under it) while that
// Service publishes only Ready pods; a Ready pod, a Service that publishes
// not-ready addresses, one with a cluster IP, or one that does not select
// the pod say nothing.
func TestHeadlessDiscovery(t *testing.T) {
	now := time.Date(2022, 2, 25, 12, 0, 0, 0, time.UTC)
	lbl := map[string]string{"app.kubernetes.io/name": "nats"}
	pod := func(ready bool) *corev1.Pod {
		st := corev1.ConditionFalse
		if ready {
			st = corev1.ConditionTrue
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nats-0", Namespace: "nats", UID: "p1", Labels: lbl},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nats"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "nats", Ready: ready, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	}
	svc := func(ip string, publish bool, sel map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nats", Namespace: "nats"}, Spec: corev1.ServiceSpec{ClusterIP: ip, PublishNotReadyAddresses: publish, Selector: sel}}
	}
	// https://github.com/nats-io/k8s/issues/441: JetStream pods stay not
	// Ready until their routes (nats-N.nats.nats.svc.cluster.local) answer,
	// which the headless Service publishes only for Ready pods.
	const natsLog = "[7] 2022/02/25 11:58:01.123456 [ERR] Error trying to connect to route (attempt 3): lookup for host \"nats-1.nats.nats.svc.cluster.local\": lookup nats-1.nats.nats.svc.cluster.local on 10.96.0.10:53: no such host\n"
	headless := svc(corev1.ClusterIPNone, false, lbl)
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		svc  *corev1.Service
		want bool
	}{
		{"peer name under the headless Service", pod(false), headless, true},
		{"the pod is Ready", pod(true), headless, false},
		{"publishNotReadyAddresses set", pod(false), svc(corev1.ClusterIPNone, true, lbl), false},
		{"a cluster IP Service", pod(false), svc("10.96.4.4", false, lbl), false},
		{"does not select the pod", pod(false), svc(corev1.ClusterIPNone, false, map[string]string{"app.kubernetes.io/name": "nats-box"}), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "nats-0", Namespace: "nats", UID: "p1"}, Pods: []*corev1.Pod{tt.pod}, Services: []*corev1.Service{tt.svc},
				Logs: []bundle.ContainerLog{{Namespace: "nats", Pod: "nats-0", Container: "nats", Text: natsLog}}}
			f := ruletest.Root(ruletest.Run(HeadlessDiscovery, b, now))
			if (f != nil) != tt.want {
				t.Fatalf("finding %v, want %v: %+v", f != nil, tt.want, f)
			}
			if f != nil && (f.Category != rule.Service.Sub("Headless", "NotReadyAddresses") || !strings.Contains(f.Culprit, "service/nats .spec.publishNotReadyAddresses false")) {
				t.Errorf("got %s %q", f.Category, f.Culprit)
			}
		})
	}
}
