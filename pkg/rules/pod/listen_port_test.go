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

// TestListenPort: a failing readiness probe on a port other than the one
// the application's log says it listens on is traced to that port. The log
// lines are the frameworks' own:
//   - Spring Boot 2 TomcatWebServer.start: "Tomcat started on port(s): " +
//     getPortsDescription(true) + " with context path '…'";
//   - gunicorn arbiter.py: log.info("Listening at: %s (%s)", listeners, pid);
//   - Node's EADDRINUSE: "Error: listen EADDRINUSE: address already in use :::8080".
//
// The kubelet's event is prober.go's "%s probe failed: %s" with Go's HTTP
// client error as output.
func TestListenPort(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	spring := "2026-11-26T10:00:01.120Z 2026-11-26 10:00:01.120  INFO 1 --- [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port(s): 8081 (http) with context path ''\n" +
		"2026-11-26T10:00:01.130Z 2026-11-26 10:00:01.130  INFO 1 --- [           main] com.example.shop.ShopApplication         : Started ShopApplication in 4.2 seconds (JVM running for 4.9)\n"
	gunicorn := "[2026-11-26 10:00:01 +0000] [1] [INFO] Starting gunicorn 21.2.0\n[2026-11-26 10:00:01 +0000] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)\n[2026-11-26 10:00:01 +0000] [1] [INFO] Using worker: sync\n"
	for _, tt := range []struct {
		name, log string
		probePort intstr.IntOrString
		want      []string // in the culprit; nil: no finding
	}{
		{"spring on 8081, probe on 8080", spring, intstr.FromInt(8080), []string{"readinessProbe.httpGet.port 8080", "listens on 8081"}},
		{"gunicorn on 8000, probe on named http=8080", gunicorn, intstr.FromString("http"), []string{"8080", "listens on 8000", "containerPort 8080"}},
		{"spring on 8081, probe on 8081", spring, intstr.FromInt(8081), nil},
		{"an answering probe reached the right port", spring, intstr.FromInt(8080), nil},
		{"failed bind is no listen port", "Error: listen EADDRINUSE: address already in use :::9000\n", intstr.FromInt(8080), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1",
					Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: tt.probePort}}}}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: false,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-10 * time.Minute))}}}}}}
			port := tt.probePort.String()
			if port == "http" {
				port = "8080"
			}
			unhealthy := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "api.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 40,
				Message:        `Readiness probe failed: Get "http://10.0.0.7:` + port + `/healthz": dial tcp 10.0.0.7:` + port + `: connect: connection refused`,
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1", FieldPath: "spec.containers{app}"},
				LastTimestamp:  metav1.NewTime(now.Add(-10 * time.Second))}
			if strings.HasPrefix(tt.name, "an answering") {
				// prober's HTTP wording for a status outside 200-399
				unhealthy.Message = "Readiness probe failed: HTTP probe failed with statuscode: 503"
			}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{unhealthy},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "api", Container: "app", Text: tt.log}}}
			fs := ruletest.Run(ListenPort, b, now)
			if tt.want == nil {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s: %s", fs[0].Category, fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d", len(fs))
			}
			f := fs[0]
			if f.Category != rule.Probe.Sub("Readiness", "PortMismatch") || f.Strength != rule.Traced {
				t.Errorf("category %q strength %v", f.Category, f.Strength)
			}
			for _, s := range tt.want {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
			if cmds := strings.Join(f.Actions[0].Commands, " "); !strings.Contains(cmds, `"port":`+strings.Fields(strings.SplitAfter(tt.want[1], "listens on ")[1])[0]) {
				t.Errorf("fix %s does not point the probe at the listen port", cmds)
			}
			probe := ruletest.Root(ruletest.Run(Probe, b, now))
			if probe == nil || !rule.Outranks(&f, probe) {
				t.Errorf("does not outrank the probe finding %+v", probe)
			}
		})
	}
}
