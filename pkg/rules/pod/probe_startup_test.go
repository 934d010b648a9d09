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

// TestProbeStartupFailure: a probe answered 404 (or refused) by a process
// whose application failed to start in this instance is explained by the
// log's cause, on other material than the e2e scenarios; a log that says
// start-up failed without a cause, or a cause without a start-up failure,
// leaves the status-code finding.
func TestProbeStartupFailure(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		name, source, output, log string
		want                      string // category suffix
		names                     []string
	}{
		{"tomcat-listener-class-not-found", "https://github.com/zengkid/SmartTomcat/issues/113",
			"HTTP probe failed with statuscode: 404",
			"20-Sep-2023 11:32:24.926 SEVERE [localhost-startStop-1] org.apache.catalina.core.StandardContext.listenerStart Error configuring application listener of class [org.springframework.web.context.ContextLoaderListener]\n" +
				"\tjava.lang.ClassNotFoundException: org.springframework.web.context.ContextLoaderListener\n" +
				"\t\tat org.apache.catalina.loader.WebappClassLoaderBase.loadClass(WebappClassLoaderBase.java:1420)\n" +
				"20-Sep-2023 11:32:24.926 SEVERE [localhost-startStop-1] org.apache.catalina.core.StandardContext.startInternal One or more listeners failed to start. Full details will be found in the appropriate container log file\n" +
				"20-Sep-2023 11:32:24.942 SEVERE [localhost-startStop-1] org.apache.catalina.core.StandardContext.startInternal Context [/my-app] startup failed due to previous errors\n",
			"StartupFailed", []string{"ContextLoaderListener", "failed to start"}},
		{"geoserver-servlet-api-missing-refused", "https://github.com/kartoza/docker-geoserver/issues/301",
			"Get \"http://10.244.0.5:8080/geoserver/web\": dial tcp 10.244.0.5:8080: connect: connection refused",
			"20-Sep-2021 02:37:42.328 SEVERE [main] org.apache.catalina.core.StandardContext.listenerStart Error configuring application listener of class [org.geoserver.logging.LoggingStartupContextListener]\n" +
				"\tjava.lang.NoClassDefFoundError: javax/servlet/ServletContextListener\n" +
				"\t\tat java.base/java.lang.ClassLoader.defineClass1(Native Method)\n" +
				"20-Sep-2021 02:37:42.401 SEVERE [main] org.apache.catalina.core.StandardContext.startInternal Context [/geoserver] startup failed due to previous errors\n",
			"StartupFailed", []string{"ServletContextListener", "no connection"}},
		// Only Tomcat's summary lines: start-up failed, the cause is in
		// another file; the path finding stands.
		{"bimserver-markers-only", "https://github.com/bigdoods/docker-bimserver/issues/1",
			"HTTP probe failed with statuscode: 404",
			"30-Nov-2015 12:05:42.835 SEVERE [localhost-startStop-1] org.apache.catalina.core.StandardContext.startInternal One or more listeners failed to start. Full details will be found in the appropriate container log file\n" +
				"30-Nov-2015 12:05:42.846 SEVERE [localhost-startStop-1] org.apache.catalina.core.StandardContext.startInternal Context [/BIMserver] startup failed due to previous errors\n",
			"PathNotFound", nil},
		// A class error the application handled, with no start-up failure.
		{"cause-without-startup-failure", "negative",
			"HTTP probe failed with statuscode: 404",
			"20-Sep-2023 11:32:24.926 SEVERE [main] com.example.Plugins load skipped plugin\n\tjava.lang.ClassNotFoundException: com.example.OptionalPlugin\n",
			"PathNotFound", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctr := corev1.Container{Name: "app", Image: "web:1", Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt(8080)}}}}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "site", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.5", ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: false,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-10 * time.Minute))}}}}}}
			ev := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "site"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 30,
				Message:        "Readiness probe failed: " + tt.output,
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
