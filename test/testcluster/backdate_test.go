package testcluster_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestBackdate: an object's creationTimestamp, which the API server sets
// itself, reads as backdated through the API (a get and a list), and stays
// so through a later status update; the rest of the object is unchanged.
func TestBackdate(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: ns, Labels: map[string]string{"app": "old"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
	created, err := c.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-72 * time.Hour).Truncate(time.Second)
	if err := c.Backdate(ctx, "pods", ns, "old", when); err != nil {
		t.Fatal(err)
	}
	got, err := c.Client.CoreV1().Pods(ns).Get(ctx, "old", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreationTimestamp.Time.Equal(when) {
		t.Errorf("get: creationTimestamp %s, want %s", got.CreationTimestamp, when)
	}
	if got.UID != created.UID || got.Labels["app"] != "old" || got.Spec.Containers[0].Image != "busybox:1.36" {
		t.Errorf("backdating changed more than the timestamp: %+v", got.ObjectMeta)
	}
	got.Status.Phase = corev1.PodRunning
	if _, err := c.Client.CoreV1().Pods(ns).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v (%d items)", err, len(list.Items))
	}
	if ts := list.Items[0].CreationTimestamp.Time; !ts.Equal(when) || list.Items[0].Status.Phase != corev1.PodRunning {
		t.Errorf("after a status update: creationTimestamp %s phase %s, want %s Running", ts, list.Items[0].Status.Phase, when)
	}
	if err := c.Backdate(ctx, "pods", ns, "missing", when); err == nil {
		t.Error("backdating an object that does not exist succeeded")
	}
}
