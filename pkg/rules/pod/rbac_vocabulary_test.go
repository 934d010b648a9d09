package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestRBACCategoryWhateverTheContainerDoes: the same denial is
// RBAC/Forbidden/<why> whether the container crash-loops on it or keeps
// running; the crash loop is a contributing fact (docs/DESIGN.md §7).
func TestRBACCategoryWhateverTheContainerDoes(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	// client-go's leader election denied its lease (k8s.io/client-go
	// tools/leaderelection wording, as quoted in
	// https://github.com/elastic/beats/pull/26268), the default account.
	line := `E1126 10:04:02.124153       1 leaderelection.go:330] error retrieving resource lock shop/api-leader: leases.coordination.k8s.io "api-leader" is forbidden: User "system:serviceaccount:shop:default" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "shop"` + "\n"
	for _, tt := range []struct {
		name    string
		running bool
		contrib bool
	}{{"crash-looping on it", false, true}, {"running through it", true, false}} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "shop/api:1"})
			b := envBundle(p, line)
			if tt.running {
				p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
				b.Logs[0].Previous = false
			}
			b.Cluster.RBACRead = []string{"cluster", "shop"}
			f := ruletest.Root(ruletest.Run(RBACDenied, b, now))
			if f == nil || string(f.Category) != "RBAC/Forbidden/NoBinding" {
				t.Fatalf("finding %+v", f)
			}
			if got := strings.Contains(strings.Join(f.Contributing, "\n"), "The container stops on the denial"); got != tt.contrib {
				t.Errorf("crash loop as a contributing fact = %v, want %v: %q", got, tt.contrib, f.Contributing)
			}
		})
	}
}
