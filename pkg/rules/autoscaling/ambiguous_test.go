package autoscaling

import (
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestAmbiguousSelector: ScalingActive=False (AmbiguousSelector) is its own
// class naming the other HPAs the controller lists, not a metrics failure.
// Here a KEDA-made HPA and a hand-written one scale one StatefulSet.
func TestAmbiguousSelector(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "keda-hpa-consumer", Namespace: "orders", UID: "h1"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 8, ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "consumer"}},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "SucceededGetScale"},
			{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "AmbiguousSelector",
				Message: "pods by selector app=consumer are controlled by multiple HPAs: [orders/keda-hpa-consumer orders/consumer]"}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "HorizontalPodAutoscaler", Name: h.Name, Namespace: "orders", UID: "h1"}, HPAs: []*autoscalingv2.HorizontalPodAutoscaler{h}}
	f := ruletest.Root(ruletest.Run(HPA, b, now))
	if f == nil || f.Category != rule.HPA.Sub("AmbiguousSelector") {
		t.Fatalf("finding %+v", f)
	}
	if !strings.Contains(f.Culprit, "hpa/consumer") || strings.Contains(f.Title, "hpa/keda-hpa-consumer and") {
		t.Errorf("culprit %q, title %q: the other HPA must be named, not the target twice", f.Culprit, f.Title)
	}
}
