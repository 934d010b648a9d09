package testcluster

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// untaintNotReady undoes what TaintNodesByCondition admission does to every
// new node, and nothing else: a taint the node was created with stays.
func TestUntaintNotReady(t *testing.T) {
	c := Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	own := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "untaint-probe"},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{own}},
	}
	created, err := c.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Client.CoreV1().Nodes().Delete(context.Background(), node.Name, metav1.DeleteOptions{}) })
	// The premise: admission taints a new node not-ready.
	if !hasTaint(created.Spec.Taints, taintNotReady) {
		t.Fatalf("admission did not taint the new node not-ready: %+v", created.Spec.Taints)
	}

	if err := c.untaintNotReady(ctx, node.Name); err != nil {
		t.Fatal(err)
	}
	got, err := c.Client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hasTaint(got.Spec.Taints, taintNotReady) {
		t.Errorf("not-ready taint still there: %+v", got.Spec.Taints)
	}
	if !hasTaint(got.Spec.Taints, own) || len(got.Spec.Taints) != 1 {
		t.Errorf("taints = %+v, want only %+v", got.Spec.Taints, own)
	}
	// Idempotent: nothing to remove is not an error.
	if err := c.untaintNotReady(ctx, node.Name); err != nil {
		t.Errorf("second call: %v", err)
	}
}

func hasTaint(taints []corev1.Taint, want corev1.Taint) bool {
	for _, t := range taints {
		if t.Key == want.Key && t.Effect == want.Effect && t.Value == want.Value {
			return true
		}
	}
	return false
}
