package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDependencyVersion: a crash whose log refuses the version of a server
// it talks to is followed to the Service its env names (the one whose name
// the error's words share, of several) and the image that Service's ready
// pod runs, with the version the log names found in its tag; without the
// Service's pods read, or with them all not ready, the crash finding
// stands. Wordings: https://github.com/immich-app/immich/issues/14654,
// https://github.com/StatCan/aaw/issues/1505.
func TestDependencyVersion(t *testing.T) {
	now := time.Date(2024, 12, 11, 9, 15, 0, 0, time.UTC)
	crashing := func(env []corev1.EnvVar, args []string, image string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "media", UID: "p1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image, Env: env, Args: args}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "main", RestartCount: 9,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	}
	service := func(name string, sel map[string]string, port int32) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "media"},
			Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.9", Selector: sel, Ports: []corev1.ServicePort{{Port: port}}}}
	}
	server := func(name, image string, labels map[string]string, ready bool) *corev1.Pod {
		cond := corev1.ConditionFalse
		if ready {
			cond = corev1.ConditionTrue
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "media", Labels: labels},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "server", Image: image}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}}}}
	}
	pg := map[string]string{"cnpg.io/cluster": "immich-postgres-v17"}
	valkey := map[string]string{"app": "valkey"}
	immichEnv := []corev1.EnvVar{{Name: "DB_HOSTNAME", Value: "immich-postgres-v17-rw"}, {Name: "REDIS_HOSTNAME", Value: "immich-valkey-primary"}}
	immichLog := "Starting api worker\nError: The pgvecto.rs extension version is 0.4.0, but Immich only supports >=0.2 <0.4.\n    Please change pgvecto.rs to a compatible version in the Postgres instance.\n    at /usr/src/app/dist/services/database.service.js:79:23\nmicroservices worker exited with code 1\n"
	es := map[string]string{"elasticsearch.k8s.elastic.co/cluster-name": "elastic-monitoring"}
	jaegerLog := `{"level":"fatal","ts":1733908500.1,"caller":"./main.go:107","msg":"Failed to create span writer","error":"elastic: Error 400 (Bad Request): unknown key [template] in the template [type=parse_exception]"}` + "\n"
	services := []*corev1.Service{service("immich-valkey-primary", valkey, 6379), service("immich-postgres-v17-rw", pg, 5432), service("elastic-monitoring-es-http", es, 9200)}
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		log  string
		deps []*corev1.Pod
		want []string // in the culprit; nil = no finding
	}{
		{"the extension the log names is the database image's", crashing(immichEnv, nil, "ghcr.io/immich-app/immich-server:v1.122.2"), immichLog,
			[]*corev1.Pod{server("immich-valkey-primary-0", "bitnami/valkey:8.0.1", valkey, true), server("immich-postgres-v17-1", "ghcr.io/tensorchord/cloudnative-pgvecto.rs:17.2-v0.4.0", pg, true)},
			[]string{"service/immich-postgres-v17-rw", "immich-postgres-v17-1", "17.2-v0.4.0", "immich-server:v1.122.2"}},
		{"an API the server rejects, its URL in the args", crashing(nil, []string{"--es.server-urls=https://elastic-monitoring-es-http:9200"}, "jaegertracing/jaeger-collector:1.41.0"), jaegerLog,
			[]*corev1.Pod{server("elastic-monitoring-es-default-0", "docker.elastic.co/elasticsearch/elasticsearch:8.5.0", es, true)},
			[]string{"service/elastic-monitoring-es-http", "elasticsearch:8.5.0", "jaeger-collector:1.41.0"}},
		{"the server's pods not read", crashing(immichEnv, nil, "ghcr.io/immich-app/immich-server:v1.122.2"), immichLog, nil, nil},
		{"the server's pod not ready", crashing(immichEnv, nil, "ghcr.io/immich-app/immich-server:v1.122.2"), immichLog,
			[]*corev1.Pod{server("immich-postgres-v17-1", "ghcr.io/tensorchord/cloudnative-pgvecto.rs:17.2-v0.4.0", pg, false)}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "app", Namespace: "media", UID: "p1"}, Pods: []*corev1.Pod{tt.pod},
				Services: services, DependencyPods: tt.deps,
				Logs: []bundle.ContainerLog{{Namespace: "media", Pod: "app", Container: "main", Previous: true, Text: tt.log}}}
			b.Cluster.ServicesListed = "media"
			fs := ruletest.Run(DependencyVersion, b, now)
			if tt.want == nil {
				if len(fs) > 0 {
					t.Fatalf("want no finding, got %s: %s", fs[0].Category, fs[0].Title)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/PeerVersion") {
				t.Fatalf("got %+v, want one …/PeerVersion finding", fs)
			}
			for _, w := range tt.want {
				if !strings.Contains(fs[0].Culprit, w) {
					t.Errorf("culprit %q does not name %q", fs[0].Culprit, w)
				}
			}
		})
	}
}
