package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceOtherWorkload: a Service selecting another workload's pods
// while the pods its labels (or name) point at run unselected; a naming
// convention (redis-master selecting app=redis), labels that agree with
// the selector, or no pods of the claimed workload say nothing.
func TestServiceOtherWorkload(t *testing.T) {
	now := time.Date(2020, 7, 9, 12, 0, 0, 0, time.UTC)
	pod := func(deploy, hash string, lbl map[string]string, port int32) *corev1.Pod {
		l := map[string]string{"pod-template-hash": hash}
		for k, v := range lbl {
			l[k] = v
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: deploy + "-" + hash + "-x", Namespace: "miq", UID: types.UID(deploy), Labels: l,
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: deploy + "-" + hash, Controller: ptrTrue()}}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: deploy, Ports: []corev1.ContainerPort{{ContainerPort: port}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	svc := func(name string, lbl, sel map[string]string, target int) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "miq", UID: "s1", Labels: lbl},
			Spec: corev1.ServiceSpec{Selector: sel, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt(target)}}}}
	}
	// https://github.com/ManageIQ/manageiq-pods/pull/581 ("a copy and
	// paste error from the app worker services"): Service httpd, labelled
	// name=httpd, carries a worker Service's selector.
	worker := pod("ui-worker", "6c9f7d8b5", map[string]string{"name": "ui-worker"}, 3000)
	httpd := pod("httpd", "5b7d9c6f4", map[string]string{"name": "httpd"}, 8080)
	b := func(s *corev1.Service, selected []*corev1.Pod, cands ...*corev1.Pod) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: s.Name, Namespace: "miq", UID: "s1"}, Services: []*corev1.Service{s}, Pods: selected, Candidates: cands}
	}
	redis := pod("redis", "7f8d9c6b5", map[string]string{"app": "redis"}, 6379)
	for _, tt := range []struct {
		name    string
		b       *bundle.Bundle
		want    rule.Confidence // 0 = no finding
		culprit string
	}{
		{"labels name the other app, ports agree", b(svc("httpd", map[string]string{"name": "httpd"}, map[string]string{"name": "ui-worker"}, 8080), []*corev1.Pod{worker}, httpd), rule.Strong, "name=ui-worker (selects ui-worker's pods; httpd's pods carry name=httpd)"},
		{"no labels, the name says it", b(svc("httpd", nil, map[string]string{"name": "ui-worker"}, 3000), []*corev1.Pod{worker}, httpd), rule.Likely, "httpd's pods carry name=httpd"},
		{"naming convention", b(svc("redis-master", nil, map[string]string{"app": "redis"}, 6379), []*corev1.Pod{redis}), 0, ""},
		{"labels agree with the selector", b(svc("httpd", map[string]string{"name": "httpd"}, map[string]string{"name": "httpd"}, 8080), []*corev1.Pod{httpd}), 0, ""},
		{"the claimed workload has no pods", b(svc("httpd", map[string]string{"name": "httpd"}, map[string]string{"name": "ui-worker"}, 8080), []*corev1.Pod{worker}), 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(ServiceOtherWorkload, tt.b, now))
			if (f != nil) != (tt.want != 0) {
				t.Fatalf("finding %v, want %v: %+v", f != nil, tt.want, f)
			}
			if f == nil {
				return
			}
			if f.Category != rule.Service.Sub("Selector", "OtherWorkload") || f.Confidence != tt.want || !strings.Contains(f.Culprit, tt.culprit) {
				t.Errorf("got %s %.2f %q, want %.2f naming %q", f.Category, f.Confidence, f.Culprit, tt.want, tt.culprit)
			}
		})
	}
}

func ptrTrue() *bool { t := true; return &t }
