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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestScaleTargetNearMiss: a missing scale target is compared with the
// namespace's workloads the collector read for it. Material: the
// schema-registry chart renders a StatefulSet but its HPA targets a
// Deployment of the same name, "deployments/scale.apps "schema-registry"
// not found", https://github.com/bitnami/charts/issues/32869; and a name
// that extends the missing one at a word boundary. Negative: an unrelated
// workload is not named.
func TestScaleTargetNearMiss(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	hpa := func(name string) *autoscalingv2.HorizontalPodAutoscaler {
		return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kafka", UID: "h1"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 4, ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionFalse,
				Reason: "FailedGetScale", Message: `the HPA controller was unable to get the target's current scale: deployments/scale.apps "` + name + `" not found`}}}}
	}
	sts := func(name string) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kafka"}}
	}
	dep := func(name string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kafka"}}
	}
	for _, tc := range []struct {
		name   string
		target string
		deps   []*appsv1.Deployment
		stss   []*appsv1.StatefulSet
		want   string // "" for no near miss
	}{
		{"same name, other kind", "schema-registry", nil, []*appsv1.StatefulSet{sts("schema-registry")}, "statefulset/schema-registry (a StatefulSet named schema-registry, where scaleTargetRef says Deployment)"},
		{"a name extending the missing one", "schema-registry", []*appsv1.Deployment{dep("schema-registry-api")}, nil, "deployment/schema-registry-api"},
		{"nothing near", "schema-registry", []*appsv1.Deployment{dep("kafka-ui")}, []*appsv1.StatefulSet{sts("kafka")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "HorizontalPodAutoscaler", Name: tc.target, Namespace: "kafka"},
				HPAs: []*autoscalingv2.HorizontalPodAutoscaler{hpa(tc.target)}, Deployments: tc.deps, StatefulSets: tc.stss}
			f := ruletest.Root(ruletest.Run(HPA, b, now))
			if f == nil || f.Category != "HPA/ScaleTargetMissing" {
				t.Fatalf("got %+v", f)
			}
			if tc.want == "" {
				if strings.Contains(f.Culprit, "intended target") {
					t.Errorf("names a near miss: %s", f.Culprit)
				}
				return
			}
			if !strings.Contains(f.Culprit, tc.want) || !strings.Contains(strings.Join(f.Actions[0].Commands, " "), `"name":"`+strings.Fields(strings.SplitN(tc.want, "/", 2)[1])[0]+`"`) {
				t.Errorf("culprit %q / actions %v do not name %s", f.Culprit, f.Actions[0].Commands, tc.want)
			}
		})
	}
}
