package e2e

// Builders the corpus4b scenarios introduced (their Go setups are captured
// now); the corpus5 setups use them too.

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// c4bHPA creates an autoscaling/v2 HPA on Deployment target and writes its
// status.
func c4bHPA(t *testing.T, c *testcluster.Cluster, ns, name, target string, minR, maxR int32, metrics []autoscalingv2.MetricSpec, status autoscalingv2.HorizontalPodAutoscalerStatus) *autoscalingv2.HorizontalPodAutoscaler {
	t.Helper()
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
			MinReplicas: ptr(minR), MaxReplicas: maxR, Metrics: metrics}}
	c.Create(t, h)
	h.Status = status
	c.SetObjectStatus(t, h)
	return h
}

func c4bHPACond(typ autoscalingv2.HorizontalPodAutoscalerConditionType, ok bool, reason, msg string, ago time.Duration) autoscalingv2.HorizontalPodAutoscalerCondition {
	st := corev1.ConditionFalse
	if ok {
		st = corev1.ConditionTrue
	}
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: typ, Status: st, Reason: reason, Message: msg, LastTransitionTime: wlAgo(ago)}
}

func c4bCPU(pct int32) []autoscalingv2.MetricSpec {
	return []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(pct)}}}}
}

func c4bEvent(t *testing.T, c *testcluster.Cluster, obj runtime.Object, typ, reason, component, msg string, count int32, first, last time.Duration) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: obj, Type: typ, Reason: reason, Component: component, Message: msg, Count: count,
		First: time.Now().Add(-first), Last: time.Now().Add(-last)})
}

// c4bClass is a StorageClass only its own scenario sees.
func c4bClass(t *testing.T, c *testcluster.Cluster, name, provisioner string, expand bool) {
	t.Helper()
	ann := map[string]string{scenarioScoped: "true"}
	bind := storagev1.VolumeBindingImmediate
	c.Create(t, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}, Provisioner: provisioner,
		AllowVolumeExpansion: ptr(expand), VolumeBindingMode: &bind})
	dropAfterScenario(t, c, "StorageClass", name, ann)
}
