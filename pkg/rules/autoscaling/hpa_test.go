package autoscaling

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestHPA: an HPA whose scale target does not exist is the finding when it
// is the target; seen from the Deployment it scales, an HPA finding is
// context (a symptom), not the cause of the pods' trouble; the rule does
// not apply to a Pod.
func TestHPA(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "h1"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionFalse,
			Reason: "FailedGetScale", Message: `deployments/scale.apps "web" not found`}}}}
	bundleFor := func(kind, name string) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: kind, Name: name, Namespace: "shop"}, HPAs: []*autoscalingv2.HorizontalPodAutoscaler{h}}
	}

	f := ruletest.Root(ruletest.Run(HPA, bundleFor("HorizontalPodAutoscaler", "web"), now))
	if f == nil || f.Category != rule.HPA.Sub("ScaleTargetMissing") || f.Confidence != rule.Definitive || f.Strength != rule.Explained {
		t.Fatalf("HPA target: %+v", f)
	}
	fs := ruletest.Run(HPA, bundleFor("Deployment", "web"), now)
	if len(fs) != 1 || fs[0].Strength != rule.Symptom {
		t.Errorf("seen from the Deployment: %+v", fs)
	}
	if fs := ruletest.Run(HPA, bundleFor("Pod", "web"), now); len(fs) != 0 {
		t.Errorf("applies to a Pod: %+v", fs)
	}
}

// TestHPAMissingRequestWordings: the controller's message names the
// container and pod since 1.25, and only the resource before; either way
// the finding names the container of the target's template that lacks it.
func TestHPAMissingRequestWordings(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "front"}}}}}}
	for _, tc := range []struct{ name, msg, culprit string }{
		{"since 1.25", "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container front of Pod web-5d8f7c9b4-x2x7q", "container front resources.requests.cpu"},
		{"before 1.25", "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu", "container front resources.requests.cpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "h1"},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
				Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse,
					Reason: "FailedGetResourceMetric", Message: tc.msg}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: "shop"},
				HPAs: []*autoscalingv2.HorizontalPodAutoscaler{h}, Deployments: []*appsv1.Deployment{dep}}
			f := ruletest.Root(ruletest.Run(HPA, b, now))
			if f == nil || f.Category != rule.HPA.Sub("MissingRequest") || !strings.Contains(f.Culprit, tc.culprit) {
				t.Fatalf("got %+v", f)
			}
		})
	}
}
