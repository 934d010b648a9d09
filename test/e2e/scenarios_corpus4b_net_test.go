package e2e

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// c4bPolicy creates NetworkPolicy name.
func c4bPolicy(t *testing.T, c *testcluster.Cluster, ns, name string, spec networkingv1.NetworkPolicySpec) {
	t.Helper()
	c.Create(t, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec})
}
