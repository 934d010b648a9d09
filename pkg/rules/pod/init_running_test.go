package pod

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestInitRunning: an init container that keeps waiting holds the pod in
// Init, and its wait loop's log names what it waits for; a StatefulSet's
// pod is left to the StatefulSet rule.
func TestInitRunning(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes := true
	pending := func(owner *metav1.OwnerReference) *bundle.Bundle {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
			Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "wait-for-db", Image: "busybox"}}, Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{Name: "wait-for-db",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-20 * time.Minute))}}}}}}
		if owner != nil {
			p.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
			Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "api", Container: "wait-for-db", Text: "waiting for orders-db:5432\nwaiting for orders-db:5432\n"}}}
	}
	f := ruletest.Root(ruletest.Run(InitRunning, pending(nil), now))
	if f == nil || f.Category.Root() != rule.InitContainer || !strings.Contains(f.Culprit, "orders-db:5432") {
		t.Fatalf("finding %+v", f)
	}
	sts := &metav1.OwnerReference{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "StatefulSet", Name: "db", UID: "s1", Controller: &yes}
	if fs := ruletest.Run(InitRunning, pending(sts), now); len(fs) != 0 {
		t.Errorf("a StatefulSet's pod: %+v", fs)
	}
}

// TestInitRunningRepeatedError: an init container that retries a refused
// request forever says why in the error it repeats; its record's
// continuation lines (hclog's multi-line error value) are the record's,
// and a trailing field line is never quoted as the reason.
func TestInitRunningRepeatedError(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	vault := "==> Vault agent started! Log data will stream in below:\n\n"
	for i := 0; i < 4; i++ {
		vault += "2026-11-21T14:4" + string(rune('0'+i)) + ":00.000Z [INFO]  auth.handler: authenticating\n" +
			"2026-11-21T14:4" + string(rune('0'+i)) + ":30.000Z [ERROR] auth.handler: error authenticating:\n  error=\n  | Error making API request.\n  | \n" +
			"  | URL: PUT https://vault.example.com/v1/auth/kubernetes/login\n  | Code: 403. Errors:\n  | \n  | * permission denied\n   backoff=5m0s\n"
	}
	consul := ""
	for i := 0; i < 5; i++ {
		consul += "2026-11-21T14:50:4" + string(rune('0'+i)) + ".623Z [ERROR] Unable to get Agent services: error=\"Unexpected response code: 403 (ACL not found)\"\n"
	}
	tests := []struct{ name, source, container, log, want string }{
		{"vault-agent-login-403", "https://github.com/hashicorp/vault-k8s/issues/308", "vault-agent-init", vault, "* permission denied"},
		{"consul-connect-inject-acl", "https://github.com/hashicorp/consul-k8s/issues/568", "consul-connect-inject-init", consul, "403 (ACL not found)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: tt.container, Image: "hashicorp/x:1"}}, Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
				Status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{Name: tt.container,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-20 * time.Minute))}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "api", Container: tt.container, Text: tt.log}}}
			f := ruletest.Root(ruletest.Run(InitRunning, b, now))
			if f == nil || !strings.Contains(f.Culprit, tt.want) || strings.Contains(f.Culprit, "backoff=") || !strings.Contains(f.Title, "repeats") {
				t.Fatalf("%s: finding %+v", tt.source, f)
			}
		})
	}
}
