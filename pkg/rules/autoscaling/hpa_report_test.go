package autoscaling_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/autoscaling"
)

func TestHPARules(t *testing.T) {
	able := bundletest.HPACond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	inactive := func(reason, msg string) []autoscalingv2.HorizontalPodAutoscalerCondition {
		return []autoscalingv2.HorizontalPodAutoscalerCondition{able, bundletest.HPACond(autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, msg)}
	}
	active := bundletest.HPACond(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)")
	missingReq := bundletest.HPA("web", inactive("FailedGetResourceMetric", "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container app of Pod web-7d9f-abcde"))
	limited := func(reason, msg string) *autoscalingv2.HorizontalPodAutoscaler {
		util := int32(180)
		return bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{able, active,
			bundletest.HPACond(autoscalingv2.ScalingLimited, corev1.ConditionTrue, reason, msg)}, func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Status.CurrentReplicas = 10
			h.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &util}}}}
		})
	}
	investigatetest.RunObjectCases(t, []investigatetest.ObjectCase{
		{
			Name: "missing cpu request names the container",
			Bundle: bundletest.HPABundle(missingReq, bundletest.HPAEvent(missingReq, "FailedGetResourceMetric", "failed to get cpu utilization: missing request for cpu in container app of Pod web-7d9f-abcde"),
				bundletest.HPAEvent(missingReq, "FailedComputeMetricsReplicas", "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container app of Pod web-7d9f-abcde")),
			Category: "HPA/MissingRequest",
			Culprit:  []string{"deployment/web container app resources.requests.cpu (unset)"},
			MinConf:  0.95,
		},
		{
			Name: "missing request on a StatefulSet",
			Bundle: bundletest.HPABundle(bundletest.HPA("db", missingReq.Status.Conditions, func(h *autoscalingv2.HorizontalPodAutoscaler) {
				h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"}
			}), func(b *bundle.Bundle) {
				b.Deployments = nil
				b.StatefulSets = []*appsv1.StatefulSet{{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop"},
					Spec: appsv1.StatefulSetSpec{Template: bundletest.WebDeployment(nil).Spec.Template}}}
			}),
			Category: "HPA/MissingRequest",
			Culprit:  []string{"statefulset/db container app"},
		},
		{
			Name:     "missing request without the workload in the bundle",
			Bundle:   bundletest.HPABundle(missingReq, func(b *bundle.Bundle) { b.Deployments = nil }),
			Category: "HPA/MissingRequest",
			Culprit:  []string{"container app"},
		},
		{
			Name: "metrics-server missing",
			Bundle: bundletest.HPABundle(bundletest.HPA("web", inactive("FailedGetResourceMetric",
				"the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"))),
			Category: "HPA/MetricsAPIUnavailable",
			Culprit:  []string{"metrics.k8s.io", "could not find the requested resource"},
		},
		{
			Name: "no metrics for the pods",
			Bundle: bundletest.HPABundle(bundletest.HPA("web", inactive("FailedGetResourceMetric",
				"the HPA was unable to compute the replica count: failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)"))),
			Category: "HPA/NoMetrics",
			MaxConf:  0.75,
		},
		{
			Name: "custom metrics adapter missing",
			Bundle: bundletest.HPABundle(bundletest.HPA("web", inactive("FailedGetPodsMetric",
				"the HPA was unable to compute the replica count: unable to get metric http_requests_per_second: unable to fetch metrics from custom metrics API: the server could not find the metric http_requests_per_second for pods"))),
			Category: "HPA/CustomMetricsUnavailable",
			Culprit:  []string{"http_requests_per_second"},
		},
		{
			Name:     "unknown metric failure stays generic",
			Bundle:   bundletest.HPABundle(bundletest.HPA("web", inactive("InvalidMetricSourceType", "the HPA was unable to compute the replica count: unknown metric source type \"Foo\""))),
			Category: "HPA/MetricsFailed",
			MaxConf:  0.65,
		},
		{
			Name: "scale target missing",
			Bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{bundletest.HPACond(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
				`the HPA controller was unable to get the target's current scale: deployments/scale.apps "web" not found`)}), func(b *bundle.Bundle) { b.Deployments = nil },
				bundletest.MissingObject("Deployment", "shop", "web")),
			Category: "HPA/ScaleTargetMissing",
			Culprit:  []string{"deployment/web"},
			MinConf:  0.95,
		},
		{
			Name: "scale update rejected",
			Bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{bundletest.HPACond(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale",
				`the HPA controller was unable to update the target scale: admission webhook "policy.example.com" denied the request: replicas may not exceed 5`)})),
			Category: "HPA/FailedUpdateScale",
			Culprit:  []string{"admission webhook"},
		},
		{
			Name:     "at maxReplicas is a limit, not a fault",
			Bundle:   bundletest.HPABundle(limited("TooManyReplicas", "the desired replica count is more than the maximum replica count")),
			Category: "HPA/Limited/MaxReplicas",
			Title:    []string{"not a fault", "maxReplicas 10"},
		},
		{
			Name:     "at minReplicas is a floor, not a fault",
			Bundle:   bundletest.HPABundle(limited("TooFewReplicas", "the desired replica count is less than the minimum replica count")),
			Category: "HPA/Limited/MinReplicas",
			Title:    []string{"not a fault"},
		},
		{
			Name:     "rate limited is not a fault",
			Bundle:   bundletest.HPABundle(limited("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")),
			Category: "HPA/Limited/Rate",
		},
		{
			Name:     "target scaled to zero",
			Bundle:   bundletest.HPABundle(bundletest.HPA("web", inactive("ScalingDisabled", "scaling is disabled since the replica count of the target is zero"))),
			Category: "HPA/ScalingDisabled",
			Title:    []string{"not a fault"},
		},
		{
			Name: "healthy HPA",
			Bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{able, active,
				bundletest.HPACond(autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range")})),
			WantFinding: map[string]report.Verdict{"HPA/MetricsFailed": report.Refuted},
		},
	})

	// A workload target: its HPA's fault is context (depth 0), its limits are not reported.
	dep := bundletest.WebDeployment(nil)
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: string(dep.UID)},
		Deployments: []*appsv1.Deployment{dep}, HPAs: []*autoscalingv2.HorizontalPodAutoscaler{missingReq, limited("TooManyReplicas", "")}}
	c := investigatetest.Pass(b)
	fs := autoscaling.HPA.Check(c)
	if len(fs) != 1 || fs[0].Category != "HPA/MissingRequest" || fs[0].Strength != rule.Symptom {
		t.Fatalf("workload target: got %+v, want one depth-0 HPA/MissingRequest", fs)
	}
	if !strings.Contains(fs[0].Contributing[0], "app, proxy") {
		t.Errorf("every container lacking the request should be named: %v", fs[0].Contributing)
	}
}
