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
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceTargetPort: a numeric targetPort that no container of the
// selected pods declares is named with the ports they do declare; a
// matching port refutes the hypothesis.
func TestServiceTargetPort(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-1", Namespace: "shop", Labels: map[string]string{"app": "api"}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	target := func(port int) *bundle.Bundle {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "s1"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "api"}, Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt(port)}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: "api", Namespace: "shop", UID: "s1"}, Services: []*corev1.Service{svc}, Pods: []*corev1.Pod{pod}}
	}
	f := ruletest.Root(ruletest.Run(ServiceTargetPort, target(9090), now))
	if f == nil || f.Category != rule.Service.Sub("TargetPort", "NotDeclared") || !strings.Contains(f.Culprit, "9090") {
		t.Fatalf("targetPort 9090, pods declare 8080: %+v", f)
	}
	fs := ruletest.Run(ServiceTargetPort, target(8080), now)
	if len(fs) != 1 || fs[0].Verdict != report.Refuted {
		t.Errorf("targetPort 8080: %+v", fs)
	}
}
