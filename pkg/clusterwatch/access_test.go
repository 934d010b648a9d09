package clusterwatch

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestRunAccessErrors checks that an identity that may not watch what Run
// needs gets a clear error at once, rather than a watch that never syncs.
func TestRunAccessErrors(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)

	// "lister" may list everything Run needs in ns, but not watch it.
	c.Create(t, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "list-only", Namespace: ns},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "events"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list"}},
		},
	})
	c.Create(t, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "list-only", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "list-only"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "lister"}},
	})

	// The admin (system:masters) may impersonate anyone.
	as := func(user string) *rest.Config {
		cfg := rest.CopyConfig(c.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		return cfg
	}
	badToken := c.UserConfig()
	badToken.BearerToken = "not-a-valid-token"

	tests := []struct {
		name      string
		config    *rest.Config
		namespace string
		want      []string
	}{
		{
			name: "no RBAC at all", config: as("nobody"), namespace: ns,
			want: []string{`cannot list pods in namespace "` + ns + `"`, `User "nobody" cannot list resource "pods"`, "the watch needs list and watch on pods, events"},
		},
		{
			name: "no RBAC, all namespaces", config: as("nobody"),
			want: []string{"cannot list pods in all namespaces", "forbidden", "the watch needs"},
		},
		{
			name: "list but not watch", config: as("lister"), namespace: ns,
			want: []string{"cannot watch ", `in namespace "` + ns + `"`, "forbidden", "the watch needs"},
		},
		{
			name: "rejected credentials", config: badToken, namespace: ns,
			want: []string{"cannot list pods", "Unauthorized", "credentials of the kubeconfig were rejected"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := kubernetes.NewForConfig(readonly.Config(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Client: client, Cluster: clusterName, Namespace: tt.namespace,
				Synced: func() { t.Error("Synced called for an identity that cannot watch") }}
			done := make(chan error, 1)
			go func() { done <- Run(context.Background(), opts, func(*fault.Event) {}) }()
			var got error
			select {
			case got = <-done:
			case <-time.After(deadline):
				t.Fatalf("Run did not fail within %v", deadline)
			}
			if got == nil {
				t.Fatal("Run returned nil, want an access error")
			}
			t.Logf("error: %v", got)
			for _, w := range tt.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", got, w)
				}
			}
		})
	}
}
