package pod

import (
	"strconv"
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

// TestProbeAppReason: an HTTP probe answered 4xx is explained by the
// application's own log line at the probe's requests, on other material
// than the e2e scenarios; a log line that says something else, or one
// written long before the failures, leaves the status-code finding.
func TestProbeAppReason(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	stamp := func(at time.Time, lines ...string) string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(at.Format(time.RFC3339Nano) + " " + l + "\n")
		}
		return b.String()
	}
	tests := []struct {
		name, source, path string
		code               int
		log                string
		mount              *corev1.VolumeMount
		want               string // category suffix
		names              []string
	}{
		{"homepage-pod-ip-host", "https://github.com/M0NsTeRRR/helm-charts/pull/431", "/api/healthcheck", 400,
			stamp(now.Add(-20*time.Second), "[2026-06-15T08:01:12.004Z] error: Host validation failed for: 192.168.10.106:3000. Hint: Set the HOMEPAGE_ALLOWED_HOSTS environment variable to allow requests from this host / port."),
			nil, "HostRejected", []string{"HOMEPAGE_ALLOWED_HOSTS", "Host"}},
		{"bitnami-nginx-pv-over-root", "https://github.com/bitnami/bitnami-docker-nginx/issues/95 (the 2019 comment: a persistent volume mounted in Kubernetes)", "/", 403,
			stamp(now.Add(-20*time.Second), `2018/01/21 02:47:27 [error] 29#0: *1 directory index of "/opt/bitnami/nginx/html/" is forbidden, client: 192.168.2.227, server: , request: "GET / HTTP/1.1", host: "xxx.com"`),
			&corev1.VolumeMount{Name: "html", MountPath: "/opt/bitnami/nginx/html"}, "DirectoryIndex", []string{"PVC site-html", "/opt/bitnami/nginx/html"}},
		// A permission error on the index file is no empty root: the
		// status-code finding stands.
		{"nginx-index-permission-denied", "https://github.com/nre-learning/antidote-selfmedicate/issues/71", "/", 403,
			stamp(now.Add(-20*time.Second), `2020/04/27 19:23:00 [error] 9#9: *1 open() "/usr/share/nginx/html/index.html" failed (13: Permission denied), client: 10.32.0.1, server: localhost, request: "GET / HTTP/1.1", host: "10.32.0.8:80"`,
				`10.32.0.1 - - [27/Apr/2020:19:23:00 +0000] "GET / HTTP/1.1" 403 153 "-" "kube-probe/1.14" "-"`),
			nil, "AuthRequired", nil},
		// A host rejection written an hour before the failures is not the
		// probe's answer.
		{"django-disallowed-host-long-before", "Django django/http/request.py get_host wording; https://github.com/edx/commerce-coordinator/pull/27 (ALLOWED_HOSTS against the pod IP)", "/health", 400,
			stamp(now.Add(-time.Hour), "Invalid HTTP_HOST header: '10.42.0.9:8000'. You may need to add '10.42.0.9' to ALLOWED_HOSTS."),
			nil, "HTTPStatus", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctr := corev1.Container{Name: "app", Image: "web:1", Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: tt.path, Port: intstr.FromInt(8080)}}}}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "site", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.5", ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: false,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-10 * time.Minute))}}}}}}
			if tt.mount != nil {
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{*tt.mount}
				p.Spec.Volumes = []corev1.Volume{{Name: tt.mount.Name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "site-html"}}}}
			}
			ev := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "site"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 30,
				Message:        "Readiness probe failed: HTTP probe failed with statuscode: " + strconv.Itoa(tt.code),
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web", Namespace: "site", UID: "p1", FieldPath: "spec.containers{app}"},
				FirstTimestamp: metav1.NewTime(now.Add(-5 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-10 * time.Second))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "web", Namespace: "site", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{ev},
				Logs: []bundle.ContainerLog{{Namespace: "site", Pod: "web", Container: "app", Text: tt.log}}}
			f := ruletest.Root(ruletest.Run(Probe, b, now))
			if f == nil || f.Category != rule.Probe.Sub("Readiness", tt.want) {
				t.Fatalf("finding %+v, want category suffix %s (%s)", f, tt.want, tt.source)
			}
			text := f.Title + "\n" + f.Culprit + "\n" + f.Hypothesis
			for _, n := range tt.names {
				if !strings.Contains(text, n) {
					t.Errorf("finding does not name %q:\n%s", n, text)
				}
			}
		})
	}
}
