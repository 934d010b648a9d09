package bundletest

import (
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func HPA(name string, conds []autoscalingv2.HorizontalPodAutoscalerCondition, mutate ...func(*autoscalingv2.HorizontalPodAutoscaler)) *autoscalingv2.HorizontalPodAutoscaler {
	minR, util := int32(2), int32(70)
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-hpa-" + name)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    &minR, MaxReplicas: 10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &util}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 2, Conditions: conds},
	}
	for _, m := range mutate {
		m(h)
	}
	return h
}

func HPACond(typ autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, msg string) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: TS(-10 * time.Minute)}
}

func WebDeployment(requests corev1.ResourceList) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-deploy-web"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "shop/web:1.0", Resources: corev1.ResourceRequirements{Requests: requests}},
			{Name: "proxy", Image: "envoy:1.30"},
		}}}},
	}
}

func HPABundle(h *autoscalingv2.HorizontalPodAutoscaler, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:      fault.Resource{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Name: h.Name, Namespace: h.Namespace, UID: string(h.UID)},
		Object:      RawObject(h, "autoscaling/v2", "HorizontalPodAutoscaler"),
		HPAs:        []*autoscalingv2.HorizontalPodAutoscaler{h},
		Deployments: []*appsv1.Deployment{WebDeployment(nil)},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func HPAEvent(h *autoscalingv2.HorizontalPodAutoscaler, reason, msg string) func(*bundle.Bundle) {
	return WithEvents(corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: h.Name + "." + strings.ToLower(reason), Namespace: h.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "HorizontalPodAutoscaler", Name: h.Name, Namespace: h.Namespace, UID: h.UID},
		Type:           "Warning", Reason: reason, Message: msg, Count: 30, FirstTimestamp: TS(-30 * time.Minute), LastTimestamp: TS(-time.Minute),
		Source: corev1.EventSource{Component: "horizontal-pod-autoscaler"},
	})
}
