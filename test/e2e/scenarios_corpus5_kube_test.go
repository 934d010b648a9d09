package e2e

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// c5Pending is a pod the scheduler could not place, with its event.
func c5Pending(t *testing.T, c *testcluster.Cluster, ns, name, image, msg string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Annotations = map[string]string{testcluster.AnnotationUnscheduled: "true"}
		p.Spec.Containers[0].Image = image
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: "Unschedulable", Message: msg, LastTransitionTime: minutesAgo(25)}}}
	}}, mutate...)...))
	c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedScheduling", Component: "default-scheduler", Count: 19, First: time.Now().Add(-25 * time.Minute), Message: msg})
	return p
}

// c5Kube are the batch's Kubernetes-side misses (an object's status and
// the controllers' events say why), commented like c5App.
var c5Kube = []scenario{}
