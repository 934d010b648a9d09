package pod

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestConfigError replays workspaces captured from a real kubelet
// (testdata/config-error/<case>: context/ as collected, output/ naming the
// target and the time) through the rule alone.
func TestConfigError(t *testing.T) {
	for _, tt := range []struct {
		dir      string
		category string
		culprit  []string
	}{
		{"testdata/config-error/configmap-key-missing", "CreateContainerConfigError/MissingConfigMapKey", []string{"DATABASE_URL", "shop-config"}},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			b, now := ruletest.Load(t, tt.dir)
			f := ruletest.Root(ruletest.Run(ConfigError, b, now))
			if f == nil {
				t.Fatal("no validated finding")
			}
			if !strings.HasPrefix(string(f.Category), tt.category) || f.Rule != ConfigError.ID || !f.Current {
				t.Errorf("finding %s %q (current %v), want %s", f.Rule, f.Category, f.Current, tt.category)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
			if len(f.Evidence) == 0 || len(f.Actions) == 0 {
				t.Errorf("finding without evidence or actions: %+v", f)
			}
		})
	}
}

// TestConfigErrorQuietOnARunningPod: a pod whose containers run says
// nothing, whatever ConfigMaps exist.
func TestConfigErrorQuietOnARunningPod(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "u1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "u1"}, Pods: []*corev1.Pod{p}}
	for _, f := range ruletest.Run(ConfigError, b, p.CreationTimestamp.Time) {
		if f.Verdict == report.Validated {
			t.Errorf("validated %q on a running pod", f.Category)
		}
	}
}
