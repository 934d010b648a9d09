package pod

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestOOMKilledRuntimeSetting: an OOM kill is explained by the runtime's
// own memory ceiling (JVM -Xmx, Node --max-old-space-size, GOMEMLIMIT)
// when it is at or above the container's limit; one sized below the limit
// leaves the plain OOMKilled verdict.
func TestOOMKilledRuntimeSetting(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	mk := func(limit string, env []corev1.EnvVar, args []string) *bundle.Bundle {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "p1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/web:1", Env: env, Args: args,
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)}}}}},
			Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop"},
			Deployments: []*appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}}, Pods: []*corev1.Pod{p}}
	}
	env := func(name, value string) []corev1.EnvVar { return []corev1.EnvVar{{Name: name, Value: value}} }
	for _, tt := range []struct {
		name string
		b    *bundle.Bundle
		want string // the setting the culprit names; "" for none
	}{
		// https://github.com/artsy/force/pull/4759: --max_old_space_size=4096
		// as the default (here under a 3Gi limit).
		{"node old space above the limit", mk("3Gi", env("NODE_OPTIONS", "--max_old_space_size=4096 -r dotenv/config"), nil), "--max_old_space_size=4096"},
		{"jvm heap in args equal to the limit", mk("1Gi", nil, []string{"-XX:+UseG1GC", "-Xmx1g", "-jar", "app.jar"}), "-Xmx1g"},
		{"go soft limit above the limit", mk("256Mi", env("GOMEMLIMIT", "300MiB"), nil), "GOMEMLIMIT=300MiB"},
		// https://github.com/redhat-data-and-ai/template-ui/pull/197: 384MB
		// heap under a 512Mi limit, the room left on purpose.
		{"node heap below the limit", mk("512Mi", env("NODE_OPTIONS", "--max-old-space-size=384"), nil), ""},
		{"jvm heap below the limit", mk("512Mi", env("JAVA_TOOL_OPTIONS", "-Xms128m -Xmx256m"), nil), ""},
		{"no setting", mk("512Mi", nil, nil), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(OOMKilled, tt.b, now))
			if f == nil || f.Category != rule.OOMKilled {
				t.Fatalf("finding %+v", f)
			}
			if tt.want == "" {
				if len(f.Contributing) > 0 || strings.Contains(f.Culprit, " and ") {
					t.Errorf("a setting below the limit is blamed: %q %q", f.Culprit, f.Contributing)
				}
				return
			}
			if !strings.Contains(f.Culprit, tt.want) || !strings.Contains(f.Title, tt.want) {
				t.Errorf("culprit %q title %q, want %q named", f.Culprit, f.Title, tt.want)
			}
		})
	}
}
