package investigate

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	podrules "github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
)

// The misses the real-node tier found, one table row each, with the lines
// and messages exactly as the real kubelet and containers produced them
// (the whole recordings replay in TestRealCaptures).

func TestDecisiveLinesFromRealLogs(t *testing.T) {
	tests := []struct {
		name, log, class, subject string
	}{
		{"envconfig plain, Go log prefix",
			"2026-11-26T07:15:14.827752749Z starting orders v2.3.1\n2026-11-26T07:15:14.827760917Z 2026/11/26 07:15:14 config: required key DATABASE_URL missing value\n",
			"MissingEnv", "environment variable DATABASE_URL"},
		{"envconfig inside a JSON line",
			`2026-11-26T07:15:14.8Z {"level":"info","ts":1764140000.5,"msg":"starting orders","version":"2.3.1"}` + "\n" +
				`2026-11-26T07:15:14.9Z {"level":"fatal","ts":1764140000.6,"caller":"orders/main.go:42","msg":"load config","error":"required key DATABASE_URL missing value"}` + "\n",
			"MissingEnv", "environment variable DATABASE_URL"},
		{"go-envconfig wording", "2026-11-26T07:15:14.9Z load config: DATABASE_URL: missing required value\n", "MissingEnv", "environment variable DATABASE_URL"},
		{"logfmt, whose time= is no endpoint",
			`2026-11-26T07:15:14.9Z time=2026-11-26T07:00:01Z level=error msg="connect to queue" err="dial tcp 10.0.0.42:5672: connect: connection refused"` + "\n",
			"ConnectionRefused", "10.0.0.42:5672"},
		{"PostgreSQL's data directory owner",
			`2026-11-26T07:15:14.9Z FATAL:  data directory "/var/lib/postgresql/data" has wrong ownership` + "\n",
			"PermissionDenied", "/var/lib/postgresql/data"},
		{"migration error of an init container",
			"2026-11-26T07:15:14.8Z applying migration 0042_add_orders_index\n2026-11-26T07:15:14.9Z ERROR: migration 0042_add_orders_index failed: pq: relation \"orders\" does not exist\n",
			"Migration", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := logs.FindDecisive(tt.log)
			if d == nil || d.Pattern.Class != tt.class {
				t.Fatalf("decisive %+v, want class %s", d, tt.class)
			}
			if got := logs.SubjectOf(d.Pattern.Class, d.Line); got != tt.subject {
				t.Errorf("subject %q, want %q", got, tt.subject)
			}
		})
	}
}

func TestRealMisses(t *testing.T) {
	firstFailure := func(p *corev1.Pod) { // Error, restartCount 0: before the kubelet's first restart
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: p.Spec.Containers[0].Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: ts(-2e9), FinishedAt: ts(-1e9)}}}}
	}
	initFailed := func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: p.Spec.Containers[0].Image}}
		p.Status.Phase = corev1.PodPending
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "migrate", RestartCount: 2,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s restarting failed container=migrate"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: ts(-1e9)}}}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
	}
	tests := []struct {
		name     string
		pod      *corev1.Pod
		logs     func(*corev1.Pod) []string // container, "current" or "previous", text
		category string
		culprit  string
	}{
		{"ErrImageNeverPull", pod("api", waiting("ErrImageNeverPull", `Container image "local/nope:1" is not present with pull policy of Never`),
			func(p *corev1.Pod) { p.Spec.Containers[0].Image = "local/nope:1" }), nil, "ImagePull/NeverPull", "local/nope:1"},
		{"first failure before any restart", pod("orders", firstFailure), func(*corev1.Pod) []string {
			return []string{"app", "current", "2026-11-26T07:15:14.9Z 2026/11/26 07:15:14 config: required key DATABASE_URL missing value\n"}
		}, "CrashLoop/Exit1/MissingEnv", "DATABASE_URL"},
		{"exit 0 before the first restart", pod("report", func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: p.Spec.Containers[0].Image,
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: ts(-2e9), FinishedAt: ts(-1e9)}}}}
		}), nil, "CrashLoop/Exit0", "command/args"},
		{"readiness failing before the status says Running", pod("web", waiting("ContainerCreating", ""), func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}}, PeriodSeconds: 2}
		}), nil, "Probe/Readiness", "container app"},
		{"init container's migration line", pod("orders", initFailed), func(*corev1.Pod) []string {
			return []string{"migrate", "previous", "2026-11-26T07:15:14.9Z ERROR: migration 0042_add_orders_index failed: pq: relation \"orders\" does not exist\n"}
		}, "InitContainer/CrashLoop/Exit1/Migration", `relation "orders" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := podBundle(tt.pod)
			if tt.pod.Spec.Containers[0].ReadinessProbe != nil { // the kubelet's event, ahead of the status
				ev := event(tt.pod, "Warning", "Unhealthy", "Readiness probe failed: cat: can't open '/tmp/ready': No such file or directory", 1)
				ev.InvolvedObject.FieldPath = "spec.containers{app}"
				b.Events = append(b.Events, ev)
			}
			if tt.logs != nil {
				l := tt.logs(tt.pod)
				b.Logs = append(b.Logs, logEntry(tt.pod, l[0], l[1] == "previous", l[2], tt.pod.Spec.InitContainers != nil))
			}
			r := Investigate(b, Options{Now: now})
			if !strings.HasPrefix(r.RootCause.Category, tt.category) {
				t.Errorf("category %q, want prefix %q (%s)", r.RootCause.Category, tt.category, r.Title)
			}
			if !strings.Contains(r.RootCause.Culprit+r.RootCause.Statement, tt.culprit) {
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
		return pod("orders", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Spec.InitContainers = []corev1.Container{{Name: "wait-for-db", Image: "local/busybox:1", RestartPolicy: restartPolicy}}
			st := corev1.ContainerStatus{Name: "wait-for-db", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-30e9)}}}
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
			fs := podrules.InitRunning.Check(testPass(podBundle(tt.pod, waitLog)))
			if (len(fs) == 1) != tt.want {
				t.Fatalf("findings %+v, want one: %v", fs, tt.want)
			}
			if tt.want && (fs[0].Category != "InitContainer/Running" || !strings.Contains(fs[0].Title, "waiting for orders-db:5432") || !strings.Contains(fs[0].Title, "30s")) {
				t.Errorf("finding %q: %s", fs[0].Category, fs[0].Title)
			}
		})
	}
}

// TestRolloutContextBeforeStatusCatchesUp: the real node's back-off moment
// of rollout-crash-introduced as CI once caught it, a controller round trip
// early: the pod of revision 2 already in CrashLoopBackOff while the
// Deployment's status still read Available=True from the instant the new
// pod was Running. The revision that introduced the fault must still be
// named. (The capture's status is put back to what the controller had
// written before, in its own words.)
func TestRolloutContextBeforeStatusCatchesUp(t *testing.T) {
	dir := filepath.Join(realCorpus, "rollout-crash-introduced", "back-off")
	b, at := loadCapture(t, dir)
	if len(b.Deployments) != 1 {
		t.Fatalf("capture holds %d deployments, want 1", len(b.Deployments))
	}
	d := b.Deployments[0]
	d.Status.AvailableReplicas, d.Status.ReadyReplicas, d.Status.UnavailableReplicas = 1, 1, 0
	for i := range d.Status.Conditions {
		if c := &d.Status.Conditions[i]; c.Type == appsv1.DeploymentAvailable {
			c.Status, c.Reason, c.Message = corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability."
		}
	}
	r := Investigate(b, Options{Agent: "builtin", Now: at})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/MissingEnv") {
		t.Fatalf("category %q, want the pod's own cause", r.RootCause.Category)
	}
	if named := strings.Join(r.RootCause.Contributing, "\n"); !strings.Contains(named, "revision 2") {
		t.Errorf("root cause does not name revision 2; contributing:\n%s", named)
	}
}

// TestRolloutBetweenRestarts: the same back-off moment as full CI runs
// caught it, a kubelet round trip later: the container already restarted
// (Running for a second, its last termination the crash) when the
// collector read it. The crash loop is the present, not history, so the
// pod's own cause stays the root cause, with the rollout around it.
func TestRolloutBetweenRestarts(t *testing.T) {
	dir := filepath.Join(realCorpus, "rollout-crash-introduced", "back-off")
	b, at := loadCapture(t, dir)
	restarted := 0
	for _, p := range b.Pods {
		for i := range p.Status.ContainerStatuses {
			st := &p.Status.ContainerStatuses[i]
			if st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" {
				st.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(at.Add(-time.Second))}}
				st.RestartCount++
				restarted++
			}
		}
	}
	if restarted == 0 {
		t.Fatal("the capture holds no container in CrashLoopBackOff")
	}
	r := Investigate(b, Options{Agent: "builtin", Now: at})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/MissingEnv") {
		t.Fatalf("category %q (%s), want the pod's own cause", r.RootCause.Category, r.Title)
	}
	if named := strings.Join(r.RootCause.Contributing, "\n"); !strings.Contains(named, "revision 2") {
		t.Errorf("root cause does not name revision 2; contributing:\n%s", named)
	}
	if !r.Ongoing {
		t.Errorf("a crash loop between two restarts is reported as history")
	}
}
