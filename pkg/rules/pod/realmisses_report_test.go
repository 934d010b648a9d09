package pod_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	podrules "github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
)

// The misses the real-node tier found, one table row each, with the lines
// and messages exactly as the real kubelet and containers produced them
// (the whole recordings replay in TestRealCaptures).

func TestRealMisses(t *testing.T) {
	firstFailure := func(p *corev1.Pod) { // Error, restartCount 0: before the kubelet's first restart
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: p.Spec.Containers[0].Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: bundletest.TS(-2e9), FinishedAt: bundletest.TS(-1e9)}}}}
	}
	initFailed := func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: p.Spec.Containers[0].Image}}
		p.Status.Phase = corev1.PodPending
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "migrate", RestartCount: 2,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s restarting failed container=migrate"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: bundletest.TS(-1e9)}}}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
	}
	tests := []struct {
		name     string
		pod      *corev1.Pod
		logs     func(*corev1.Pod) []string // container, "current" or "previous", text
		category string
		culprit  string
	}{
		{"ErrImageNeverPull", bundletest.Pod("api", bundletest.Waiting("ErrImageNeverPull", `Container image "local/nope:1" is not present with pull policy of Never`),
			func(p *corev1.Pod) { p.Spec.Containers[0].Image = "local/nope:1" }), nil, "ImagePull/NeverPull", "local/nope:1"},
		{"first failure before any restart", bundletest.Pod("orders", firstFailure), func(*corev1.Pod) []string {
			return []string{"app", "current", "2026-11-26T07:15:14.9Z 2026/11/26 07:15:14 config: required key DATABASE_URL missing value\n"}
		}, "CrashLoop/Exit1/MissingEnv", "DATABASE_URL"},
		{"exit 0 before the first restart", bundletest.Pod("report", func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: p.Spec.Containers[0].Image,
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: bundletest.TS(-2e9), FinishedAt: bundletest.TS(-1e9)}}}}
		}), nil, "CrashLoop/Exit0", "command/args"},
		{"readiness failing before the status says Running", bundletest.Pod("web", bundletest.Waiting("ContainerCreating", ""), func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}}, PeriodSeconds: 2}
		}), nil, "Probe/Readiness", "container app"},
		// The first kill, triaged before the kubelet's Unhealthy and
		// Killing events reached the API server: the exit and the probe
		// in the spec say it, with the inference stated.
		{"liveness kill before its events", bundletest.Pod("web", func(p *corev1.Pod) {
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}}, PeriodSeconds: 2, FailureThreshold: 1}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: p.Spec.Containers[0].Image, RestartCount: 1, Started: bundletest.BoolPtr(true),
				State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: bundletest.TS(-1e9)}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: bundletest.TS(-12e9), FinishedAt: bundletest.TS(-2e9)}}}}
		}), nil, "Probe/Liveness", "inferred from its exit"},
		{"init container's migration line", bundletest.Pod("orders", initFailed), func(*corev1.Pod) []string {
			return []string{"migrate", "previous", "2026-11-26T07:15:14.9Z ERROR: migration 0042_add_orders_index failed: pq: relation \"orders\" does not exist\n"}
		}, "InitContainer/CrashLoop/Exit1/Migration", `relation "orders" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bundletest.PodBundle(tt.pod)
			if tt.pod.Spec.Containers[0].ReadinessProbe != nil { // the kubelet's event, ahead of the status
				ev := bundletest.Event(tt.pod, "Warning", "Unhealthy", "Readiness probe failed: cat: can't open '/tmp/ready': No such file or directory", 1)
				ev.InvolvedObject.FieldPath = "spec.containers{app}"
				b.Events = append(b.Events, ev)
			}
			if tt.logs != nil {
				l := tt.logs(tt.pod)
				b.Logs = append(b.Logs, logEntry(tt.pod, l[0], l[1] == "previous", l[2], tt.pod.Spec.InitContainers != nil))
			}
			r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
			if !strings.HasPrefix(r.RootCause.Category, tt.category) {
				t.Errorf("category %q, want prefix %q (%s)", r.RootCause.Category, tt.category, r.Title)
			}
			if !strings.Contains(r.RootCause.Culprit+r.RootCause.Statement+strings.Join(r.RootCause.Contributing, " "), tt.culprit) {
				t.Errorf("root cause does not name %q: %+v", tt.culprit, r.RootCause)
			}
		})
	}
}

func logEntry(p *corev1.Pod, container string, previous bool, text string, init bool) bundle.ContainerLog {
	return bundle.ContainerLog{Namespace: p.Namespace, Pod: p.Name, Container: container, Previous: previous, Text: text, Init: init && container != "app"}
}

// TestInitRunning: an init container that runs and never exits holds the
// pod in Init; a sidecar (restartable init container) or a crash loop
// between restarts is not that.
func TestInitRunning(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	running := func(restartPolicy *corev1.ContainerRestartPolicy, crashed bool) *corev1.Pod {
		return bundletest.Pod("orders", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Spec.InitContainers = []corev1.Container{{Name: "wait-for-db", Image: "local/busybox:1", RestartPolicy: restartPolicy}}
			st := corev1.ContainerStatus{Name: "wait-for-db", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: bundletest.TS(-30e9)}}}
			if crashed {
				st.RestartCount = 1
				st.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}
			}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{st}
		})
	}
	waitLog := func(b *bundle.Bundle) {
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: "orders", Container: "wait-for-db", Init: true,
			Text: "2026-11-26T07:15:12.9Z waiting for orders-db:5432\n2026-11-26T07:15:14.9Z waiting for orders-db:5432\n"})
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"wait loop", running(nil, false), true},
		{"sidecar", running(&always, false), false},
		{"crash loop between restarts", running(nil, true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := podrules.InitRunning.Check(investigatetest.Pass(bundletest.PodBundle(tt.pod, waitLog)))
			if (len(fs) == 1) != tt.want {
				t.Fatalf("findings %+v, want one: %v", fs, tt.want)
			}
			if tt.want && (fs[0].Category != "InitContainer/Running" || !strings.Contains(fs[0].Title, "waiting for orders-db:5432") || !strings.Contains(fs[0].Title, "30s")) {
				t.Errorf("finding %q: %s", fs[0].Category, fs[0].Title)
			}
		})
	}
}
