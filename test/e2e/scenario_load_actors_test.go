package e2e

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// actorObjects are what the capture's search for a controller found (its
// Lease, workload, APIService and Service), to create again with the
// scenario's objects. An APIService is cluster-scoped and sends to the
// scenario's namespace, for the scenario's time only; have records what
// is already to be created.
func actorObjects(b *bundle.Bundle, ns string, have map[string]bool) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, u := range b.ActorObjects {
		u = u.DeepCopy()
		if have[u.GetKind()+"/"+u.GetName()] {
			continue
		}
		have[u.GetKind()+"/"+u.GetName()] = true
		if u.GetKind() == "APIService" {
			if _, ok, _ := unstructured.NestedMap(u.Object, "spec", "service"); ok {
				_ = unstructured.SetNestedField(u.Object, ns, "spec", "service", "namespace")
			}
			ann := u.GetAnnotations()
			if ann == nil {
				ann = map[string]string{}
			}
			ann[scenarioScoped] = "true"
			u.SetAnnotations(ann)
			unstructured.RemoveNestedField(u.Object, "status")
		}
		out = append(out, u)
	}
	return out
}

// createSeenSecrets makes the Secrets the capture saw exist again, empty:
// only their names were kept, and the collector reads no more than a
// Secret's table row.
func createSeenSecrets(t *testing.T, c *testcluster.Cluster, b *bundle.Bundle, ns string) {
	t.Helper()
	for _, ref := range b.Cluster.SecretsSeen {
		_, name, _ := strings.Cut(ref, "/")
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Type: corev1.SecretTypeOpaque}
		if _, err := c.Client.CoreV1().Secrets(ns).Create(context.Background(), sec, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create secret %s: %v", ref, err)
		}
	}
}
