package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestDependencyEndpoints: a crashing pod whose log fails to reach a host
// that is a Service of its namespace makes the collector read that
// Service's EndpointSlices (one request, label-selected), and the triage
// names the Service's unready pod; a host that is no Service costs no
// request. Either way one-pod triage stays within 15 requests.
func TestDependencyEndpoints(t *testing.T) {
	c := testcluster.Get(t)
	for _, tt := range []struct {
		name, host string
		slices     int // endpointslices requests wanted
		want       string
	}{
		{"log names a Service", "postgres", 1, "its pod postgres-0 is CrashLoopBackOff"},
		{"log names no Service", "db.example.com", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns := c.Namespace(t)
			ready := false
			c.Create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "postgres", Namespace: ns},
				Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "postgres"}, Ports: []corev1.ServicePort{{Port: 5432}}}})
			port := int32(5432)
			c.Create(t, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "postgres-x", Namespace: ns, Labels: map[string]string{discoveryv1.LabelServiceName: "postgres"}},
				AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Port: &port}},
				Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.40"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
					TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "postgres-0"}}}})
			// The Service's own pod, crash-looping on a data directory
			// initialized by another major version (the postgres image's
			// own words): what the caller's refusal comes from.
			c.CreatePod(t, simplePod("postgres-0", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Labels = map[string]string{"app": "postgres"}
				p.Status = crashStatus("app", 1, "Error", 6)
			}))
			c.SetLogs(ns, "postgres-0", "app", true, "2024-10-01 08:00:00.000 UTC [1] FATAL:  database files are incompatible with server\n"+
				"2024-10-01 08:00:00.000 UTC [1] DETAIL:  The data directory was initialized by PostgreSQL version 16, which is not compatible with this version 17.0.\n")
			p := c.CreatePod(t, simplePod("web", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Status = crashStatus("app", 1, "Error", 4)
			}))
			c.SetLogs(ns, "web", "app", true, "psycopg2.OperationalError: could not connect to server: Connection refused\n"+
				"\tIs the server running on host \""+tt.host+"\" (10.96.40.12) and accepting\n\tTCP/IP connections on port 5432?\n")
			c.SetLogs(ns, "web", "app", false, "")
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 9, First: time.Now().Add(-10 * time.Minute), FieldPath: "spec.containers{app}",
				Message: "Back-off restarting failed container app in pod web_" + ns})

			mark := c.AuditMark()
			r := triage(t, c, ns, "pod/web")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			requests := assertReadOnly(t, c, mark)
			slices := 0
			for _, e := range c.AuditSince(t, mark, c.UserName) {
				if e.Resource == "endpointslices" {
					slices++
					if !strings.Contains(e.RequestURI, "labelSelector=kubernetes.io%2Fservice-name%3Dpostgres") {
						t.Errorf("endpointslices request not selected by the Service: %s", e.RequestURI)
					}
				}
			}
			if slices != tt.slices {
				t.Errorf("%d endpointslices requests, want %d", slices, tt.slices)
			}
			if requests > 15 {
				t.Errorf("%d API requests for one pod, want at most 15", requests)
			}
			if tt.want != "" && !strings.Contains(r.stdout, "database files are incompatible with server") {
				t.Errorf("report does not quote the dependency pod's log:\n%s", r.stdout)
			}
			if tt.want != "" && !strings.Contains(r.stdout, tt.want) {
				t.Errorf("report does not say %q:\n%s", tt.want, r.stdout)
			}
			t.Logf("%d API requests", requests)
		})
	}
}
