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

// readinessProbeRun runs pod/probe on a running, not-Ready container whose
// readiness probe fails with output, its current log being log.
func readinessProbeRun(t *testing.T, handler corev1.ProbeHandler, ports []corev1.ContainerPort, output, log string) *rule.Finding {
	t.Helper()
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	ctr := corev1.Container{Name: "app", Image: "app:1", Ports: ports, ReadinessProbe: &corev1.Probe{ProbeHandler: handler}}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app-0", Namespace: "ns", UID: "p1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{ctr}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.5", ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: false,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-20 * time.Minute))}}}}}}
	ev := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "app-0.1", Namespace: "ns"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 100,
		Message:        "Readiness probe failed: " + output,
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "app-0", Namespace: "ns", UID: "p1", FieldPath: "spec.containers{app}"},
		FirstTimestamp: metav1.NewTime(now.Add(-18 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-10 * time.Second))}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "app-0", Namespace: "ns", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{ev},
		Logs: []bundle.ContainerLog{{Namespace: "ns", Pod: "app-0", Container: "app", Text: log}}}
	return ruletest.Root(ruletest.Run(Probe, b, now))
}

// TestProbeSchemeMismatch: a plain-HTTP probe on a TLS port is the probe's
// missing scheme: HTTPS, whichever server says so in its log, or a 400 from
// a port named for TLS. An HTTPS probe, the opposite error (an HTTPS client
// on a plain port) and a handshake error of another kind are not.
func TestProbeSchemeMismatch(t *testing.T) {
	plain := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(9090)}}
	https := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(9090), Scheme: corev1.URISchemeHTTPS}}
	named := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("https")}}
	port := []corev1.ContainerPort{{ContainerPort: 9090}}
	tests := []struct {
		name    string
		handler corev1.ProbeHandler
		ports   []corev1.ContainerPort
		output  string
		log     string
		want    string // category suffix
	}{
		// Go net/http, as in https://github.com/Azure/adx-mon/pull/651.
		{"go net/http", plain, port, "HTTP probe failed with statuscode: 400",
			"2025/03/28 13:08:04 http: TLS handshake error from 10.224.0.6:37448: client sent an HTTP request to an HTTPS server\n", "SchemeMismatch"},
		// nginx's error log (src/http/ngx_http_request.c), e.g.
		// https://github.com/kubernetes/ingress-nginx/issues/1957.
		{"nginx", plain, port, "HTTP probe failed with statuscode: 400",
			`2026/11/21 14:59:50 [info] 31#31: *7 client sent plain HTTP request to HTTPS port while reading client request headers, client: 10.244.0.1, server: _, request: "GET /readyz HTTP/1.1"` + "\n", "SchemeMismatch"},
		// Netty's SslHandler closes the connection: the kubelet reads EOF.
		{"netty", plain, port, `Get "http://10.244.0.5:9090/readyz": EOF`,
			"io.netty.handler.ssl.NotSslRecordException: not an SSL/TLS record: 474554202f726561647a20485454502f312e310d0a\n", "SchemeMismatch"},
		{"port named https answers 400", named, []corev1.ContainerPort{{Name: "https", ContainerPort: 9090}}, "HTTP probe failed with statuscode: 400", "", "SchemeMismatch"},
		// Negative cases.
		{"probe already HTTPS", https, port, "HTTP probe failed with statuscode: 400",
			"http: TLS handshake error from 10.224.0.6:37448: client sent an HTTP request to an HTTPS server\n", "HTTPStatus"},
		{"the opposite: an HTTPS client on a plain port", plain, port, "HTTP probe failed with statuscode: 400",
			`level=error msg="Get \"https://db:5432\": http: server gave HTTP response to HTTPS client"` + "\n", "HTTPStatus"},
		{"another handshake error", plain, port, "HTTP probe failed with statuscode: 400",
			"http: TLS handshake error from 10.224.0.6:37448: EOF\n", "HTTPStatus"},
		{"400 from a plain port", plain, []corev1.ContainerPort{{Name: "http", ContainerPort: 9090}}, "HTTP probe failed with statuscode: 400", "", "HTTPStatus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := readinessProbeRun(t, tt.handler, tt.ports, tt.output, tt.log)
			if f == nil || f.Category != rule.Probe.Sub("Readiness", tt.want) {
				t.Fatalf("finding %+v, want category suffix %s", f, tt.want)
			}
			if tt.want == "SchemeMismatch" && (!strings.Contains(f.Culprit, "scheme") || !strings.Contains(f.Culprit, "HTTPS")) {
				t.Errorf("culprit does not name the scheme: %s", f.Culprit)
			}
		})
	}
}

// TestProbeAppError: a readiness probe that fails with nothing
// probe-specific is explained by the current log's decisive line when its
// class names a cause; a log without one leaves the probe's own finding.
func TestProbeAppError(t *testing.T) {
	exec := corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "curl -sf localhost:5601/app/kibana"}}}
	http := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080)}}
	port := []corev1.ContainerPort{{ContainerPort: 8080}}
	tests := []struct {
		name    string
		handler corev1.ProbeHandler
		output  string
		log     string
		want    string
		names   []string
	}{
		// Kibana against older Elasticsearch nodes
		// (https://github.com/elastic/helm-charts/issues/1061).
		{"kibana incompatible nodes", exec, "Error: Got HTTP code 503 but expected a 200",
			`{"type":"log","@timestamp":"2021-02-12T10:17:08+00:00","tags":["error","savedobjects-service"],"pid":6,"message":"This version of Kibana (v8.0.0-SNAPSHOT) is incompatible with the following Elasticsearch nodes in your cluster: v7.10.2 @ 10.0.2.3:9200 (10.0.2.3)"}` + "\n",
			"AppError", []string{"incompatible", "7.10.2"}},
		// Another program: a Spring service whose database login is refused
		// answers its health endpoint 503 (PostgreSQL's wording,
		// src/backend/libpq/auth.c).
		{"spring service, database login refused", http, "HTTP probe failed with statuscode: 503",
			"2026-11-21 14:59:01.120 ERROR 1 --- [main] o.h.e.j.s.SqlExceptionHelper : FATAL: password authentication failed for user \"orders\"\n",
			"AppError", []string{"password authentication failed"}},
		// Negative: a log that names no cause.
		{"log without a cause", http, "HTTP probe failed with statuscode: 503",
			"2026-11-21 14:59:01.120  INFO 1 --- [main] o.s.b.StartupInfoLogger : Started OrdersApplication in 4.2 seconds\n",
			"Unhealthy", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := readinessProbeRun(t, tt.handler, port, tt.output, tt.log)
			if f == nil || f.Category != rule.Probe.Sub("Readiness", tt.want) {
				t.Fatalf("finding %+v, want category suffix %s", f, tt.want)
			}
			if tt.want == "AppError" && f.Strength != rule.Explained {
				t.Errorf("strength %v, want Explained", f.Strength)
			}
			text := f.Title + "\n" + f.Culprit
			for _, n := range tt.names {
				if !strings.Contains(text, n) {
					t.Errorf("finding does not name %q:\n%s", n, text)
				}
			}
		})
	}
}
