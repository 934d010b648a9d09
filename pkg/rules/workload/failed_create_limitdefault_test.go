package workload

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestFailedCreateLimitRangeDefault: a request above a limit the template
// never set is the LimitRange's default limit. Material: LimitRange
// mem-limit-range default cpu 10m and a pod requesting 700m
// (https://github.com/kubernetes/kubernetes/issues/112835); memory 1Gi
// over a default 512Mi (https://github.com/kubernetes/kubernetes/issues/79988).
// Negatives: the template sets the limit itself (its own mistake), no
// LimitRange has a default for the resource.
func TestFailedCreateLimitRangeDefault(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "mem-limit-range", Namespace: "shop"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("512Mi")}}}}}
	tests := []struct {
		name     string
		res      corev1.ResourceName
		request  string
		limits   corev1.ResourceList
		ranges   []*corev1.LimitRange
		defaultd bool
		names    []string
	}{
		{"cpu request over the default limit", corev1.ResourceCPU, "700m", nil, []*corev1.LimitRange{lr}, true, []string{"mem-limit-range", "700m", "10m", "--limits=cpu=700m"}},
		{"memory request over the default limit", corev1.ResourceMemory, "1Gi", nil, []*corev1.LimitRange{lr}, true, []string{"mem-limit-range", "1Gi", "512Mi"}},
		{"the template sets the limit", corev1.ResourceCPU, "700m", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}, []*corev1.LimitRange{lr}, false, nil},
		{"no LimitRange", corev1.ResourceCPU, "700m", nil, nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yes, one := true, int32(1)
			tpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{tt.res: resource.MustParse(tt.request)}, Limits: tt.limits}}}}}
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "d1"}, Spec: appsv1.DeploymentSpec{Replicas: &one, Template: tpl}}
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f", Namespace: "shop", UID: "rs1",
				OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: "d1", Controller: &yes}}},
				Spec: appsv1.ReplicaSetSpec{Replicas: &one, Template: tpl}}
			e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "FailedCreate", Count: 9,
				Message:        `Error creating: Pod "web-5d8f-q7x2m" is invalid: spec.containers[0].resources.requests: Invalid value: "` + tt.request + `": must be less than or equal to ` + string(tt.res) + ` limit`,
				InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: "web-5d8f", Namespace: "shop", UID: "rs1"},
				LastTimestamp:  metav1.NewTime(now.Add(-20 * time.Second))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "d1"},
				Deployments: []*appsv1.Deployment{d}, ReplicaSets: []*appsv1.ReplicaSet{rs}, Events: []corev1.Event{e}, LimitRanges: tt.ranges}
			f := ruletest.Root(ruletest.Run(FailedCreate, b, now))
			if f == nil {
				t.Fatal("no finding")
			}
			if got := string(f.Category) == "FailedCreate/LimitRange/DefaultLimit"; got != tt.defaultd {
				t.Fatalf("category %s, want the default limit: %v", f.Category, tt.defaultd)
			}
			text := f.Title + "\n" + f.Culprit
			for _, a := range f.Actions {
				text += "\n" + strings.Join(a.Commands, "\n")
			}
			for _, n := range tt.names {
				if !strings.Contains(text, n) {
					t.Errorf("finding does not name %q:\n%s", n, text)
				}
			}
		})
	}
}
