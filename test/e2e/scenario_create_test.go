package e2e

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// Creating a captured object in the control plane.

// ensureServiceAccount creates the ServiceAccount a captured pod runs as
// when the capture does not hold it: the collector reads a pod's account
// only when an image pull fails (docs/DESIGN.md §7), since an existing pod's
// account existed when it was admitted, but the API server's ServiceAccount
// admission refuses the pod without it.
func ensureServiceAccount(t *testing.T, c *testcluster.Cluster, pod *unstructured.Unstructured) {
	t.Helper()
	name, _, _ := unstructured.NestedString(pod.Object, "spec", "serviceAccountName")
	if name == "" || name == "default" {
		return
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pod.GetNamespace()}}
	if _, err := c.Client.CoreV1().ServiceAccounts(sa.Namespace).Get(t.Context(), name, metav1.GetOptions{}); err == nil {
		return
	}
	if _, err := c.Client.CoreV1().ServiceAccounts(sa.Namespace).Create(t.Context(), sa, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ServiceAccount %s/%s for pod %s: %v", sa.Namespace, name, pod.GetName(), err)
	}
}

// createOrReplace creates u with its status; an object the namespace or
// cluster already has (the default ServiceAccount, a node an earlier
// scenario created) is replaced.
func createOrReplace(t *testing.T, c *testcluster.Cluster, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), r)
		}
	}()
	obj := u.DeepCopy()
	if exists(t, c, obj) {
		c.Replace(t, obj)
		return obj
	}
	c.Create(t, obj)
	if u.GetKind() == "Node" {
		deleteNodeAtEnd(t, c, u.GetName())
		// Admission taints a new Node not-ready; the captured taints are
		// what the node controllers had left, so they replace them.
		again := u.DeepCopy()
		c.Replace(t, again)
		return again
	}
	return obj
}

func exists(t *testing.T, c *testcluster.Cluster, u *unstructured.Unstructured) bool {
	t.Helper()
	err := c.Get(u.DeepCopy())
	if err == nil {
		return true
	}
	if !apierrors.IsNotFound(err) {
		t.Fatalf("get %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return false
}
