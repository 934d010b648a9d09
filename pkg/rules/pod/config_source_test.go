package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestConfigSource: the variable a crashing container's log says is missing
// is traced to the ConfigMap its envFrom imports, which lacks the key: a
// cause behind the crash loop's (Traced); when the ConfigMap has the key,
// the log's complaint is about something else and there is no finding.
func TestConfigSource(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "shop-config"}}}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	target := func(data map[string]string) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
			ConfigMaps: []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "shop-config", Namespace: "shop"}, Data: data}},
			Logs:       []bundle.ContainerLog{{Namespace: "shop", Pod: "api", Container: "app", Previous: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}}}
	}
	f := ruletest.Root(ruletest.Run(ConfigSource, target(map[string]string{"LOG_LEVEL": "info"}), now))
	if f == nil || f.Category != rule.ConfigMap.Sub("MissingKey") || f.Strength != rule.Traced || !strings.Contains(f.Culprit, "shop-config") {
		t.Fatalf("key missing: %+v", f)
	}
	if f := ruletest.Root(ruletest.Run(ConfigSource, target(map[string]string{"DATABASE_URL": "postgres://db"}), now)); f != nil {
		t.Errorf("key present: %+v", f)
	}
}
