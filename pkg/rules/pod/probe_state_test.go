package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestProbeStateNotReached: a probe that waits for a state of the
// application (named in its command or path, or implied by a 503) is
// explained by the log's last state change when that is another state; a
// state reached, or one that means serving, leaves the probe's own finding.
func TestProbeStateNotReached(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	esHealth := func(from, to string) string {
		return `{"type": "server", "timestamp": "2026-11-21T14:40:14,101Z", "level": "INFO", "component": "o.e.c.r.a.AllocationService", "cluster.name": "es", "node.name": "es-0", "message": "Cluster health status changed from [` + from + `] to [` + to + `] (reason: [shards started [[logs][0]]])." }` + "\n"
	}
	exec := corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", `curl -sf "localhost:9200/_cluster/health?wait_for_status=green&timeout=1s"`}}}
	osHTTP := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/_cluster/health?wait_for_status=green&timeout=1s", Port: intstr.FromInt(9200)}}
	springHTTP := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/actuator/health/readiness", Port: intstr.FromInt(9200)}}
	tests := []struct {
		name    string
		handler corev1.ProbeHandler
		output  string
		log     string
		want    string // category suffix
		names   []string
	}{
		{"elasticsearch exec waits for green, cluster yellow", exec, "Cluster is not yet ready (request params: \"wait_for_status=green&timeout=1s\" )",
			esHealth("RED", "YELLOW"), "StateNotReached", []string{"green", "YELLOW", "number_of_replicas"}},
		{"elasticsearch exec waits for green, cluster green", exec, "Cluster is not yet ready",
			esHealth("YELLOW", "GREEN"), "CommandFailed", nil},
		// wait_for_status waits for that status or better.
		{"waits for yellow, cluster green", corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", `curl -sf "localhost:9200/_cluster/health?wait_for_status=yellow&timeout=1s"`}}}, "Cluster is not yet ready",
			esHealth("YELLOW", "GREEN"), "CommandFailed", nil},
		// OpenSearch's AllocationService logs the same change; its health
		// API answers 408 when wait_for_status times out.
		{"opensearch http waits for green, cluster red", osHTTP, "HTTP probe failed with statuscode: 408",
			strings.Replace(esHealth("YELLOW", "RED"), "o.e.c.r.a", "o.o.c.r.a", 1), "StateNotReached", []string{"green", "RED", "primary shard"}},
		// A listener's "Spring readiness state changed to: …"
		// (kardidev/poc-service-probes-frontservice SpringReadinessStateListener).
		{"spring readiness refusing traffic", springHTTP, "HTTP probe failed with statuscode: 503",
			"2026-11-21 14:50:01.120  INFO 1 --- [main] c.k.p.SpringReadinessStateListener : Spring readiness state changed to: REFUSING_TRAFFIC\n", "StateNotReached", []string{"REFUSING_TRAFFIC"}},
		{"spring readiness accepting traffic", springHTTP, "HTTP probe failed with statuscode: 503",
			"2026-11-21 14:50:01.120  INFO 1 --- [main] c.k.p.SpringReadinessStateListener : Spring readiness state changed to: ACCEPTING_TRAFFIC\n", "Unhealthy", nil},
		// Another subject's state is not the application's serving state.
		{"a job's status is not the server's", springHTTP, "HTTP probe failed with statuscode: 503",
			"2026-11-21 14:50:01.120  INFO 1 --- [sched] c.e.Jobs : job 42 status changed to FAILED\n", "Unhealthy", nil},
		{"a connection's state is not the server's", springHTTP, "HTTP probe failed with statuscode: 503",
			"2026-11-21 14:50:01.120  WARN 1 --- [pool] c.e.Pool : connection state changed from OPEN to DOWN\n", "Unhealthy", nil},
		// Waiting for a colour is answered by a colour only.
		{"waits for green, a component's state is no colour", exec, "Cluster is not yet ready",
			esHealth("RED", "GREEN") + `{"type": "server", "level": "INFO", "message": "node state changed to [STOPPED] for plugin repository-s3"}` + "\n", "CommandFailed", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctr := corev1.Container{Name: "app", Image: "search:1", Ports: []corev1.ContainerPort{{ContainerPort: 9200}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: tt.handler}}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "es-0", Namespace: "search", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.5", ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: false,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-20 * time.Minute))}}}}}}
			ev := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "es-0.1", Namespace: "search"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 100,
				Message:        "Readiness probe failed: " + tt.output,
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "es-0", Namespace: "search", UID: "p1", FieldPath: "spec.containers{app}"},
				FirstTimestamp: metav1.NewTime(now.Add(-18 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-10 * time.Second))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "es-0", Namespace: "search", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{ev},
				Logs: []bundle.ContainerLog{{Namespace: "search", Pod: "es-0", Container: "app", Text: tt.log}}}
			f := ruletest.Root(ruletest.Run(Probe, b, now))
			if f == nil || f.Category != rule.Probe.Sub("Readiness", tt.want) {
				t.Fatalf("finding %+v, want category suffix %s", f, tt.want)
			}
			text := f.Title + "\n" + f.Culprit + "\n" + f.Hypothesis + "\n" + f.Actions[0].Description
			for _, n := range tt.names {
				if !strings.Contains(text, n) {
					t.Errorf("finding does not name %q:\n%s", n, text)
				}
			}
		})
	}
}
