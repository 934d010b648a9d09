package claims

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// reads are what one agent run read: three gateway requests, and a bundle
// holding a ConfigMap, an event and the current log of pod api.
func reads(t *testing.T) []Read {
	t.Helper()
	podList := `{"kind":"Table","columnDefinitions":[{"name":"Name"},{"name":"Ready"},{"name":"Status"}],
		"rows":[{"cells":["api","0/1","CrashLoopBackOff"],"object":{"metadata":{"name":"api","namespace":"shop"}}},
		        {"cells":["web","1/1","Running"],"object":{"metadata":{"name":"web","namespace":"shop"}}}]}`
	out := []Read{
		FromGateway("GET", "/api/v1/namespaces/shop/pods", "limit=500", "pods", "", "shop", "", []byte(podList)),
		FromGateway("GET", "/api/v1/namespaces/shop/pods/api/log", "container=app&previous=true", "pods", "log", "shop", "api",
			[]byte("starting api v1.4.2\nFATAL config: required env DATABASE_URL is empty\n")),
		FromGateway("GET", "/api/v1/nodes/node-1", "", "nodes", "", "", "node-1", []byte(`{"kind":"Node","metadata":{"name":"node-1"}}`)),
		FromGateway("GET", "/openapi/v3", "", "", "", "", "", []byte(`{}`)),
	}
	b := &bundle.Bundle{
		Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "pod-uid"},
		Object: podObject("api"),
		ConfigMaps: []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "shop", UID: "cm-uid"},
			Data: map[string]string{"LOG_LEVEL": "debug"}}},
		Events: []corev1.Event{{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "shop"}, Reason: "BackOff",
			Message: "Back-off restarting failed container app in pod api_shop"}},
		Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "api", Container: "app", Text: "listening on :8080\n"}},
	}
	return append(out, FromBundle(b)...)
}

func TestCheckClaims(t *testing.T) {
	rs := reads(t)
	tests := []struct {
		name  string
		claim report.Claim
		ok    bool
		basis string // a substring of Basis
	}{
		{"a list the agent made", cmd("kubectl get pods -n shop"), true, "GET /api/v1/namespaces/shop/pods"},
		{"the namespace is the context's without -n", cmd("kubectl get pods"), true, "GET /api/v1/namespaces/shop/pods"},
		{"a named pod the list holds", cmd("kubectl get pod web -n shop -o wide"), true, "GET /api/v1/namespaces/shop/pods"},
		{"a pod no read holds", cmd("kubectl get pod ghost -n shop"), false, "no read of it"},
		{"another namespace", cmd("kubectl get pods -n other"), false, "no read of it"},
		{"a previous log read", cmd("kubectl logs api -n shop -c app --previous"), true, "previous=true"},
		{"a pipeline reads what its kubectl read", cmd("kubectl logs api -c app -p | grep FATAL"), true, "pods/api/log"},
		{"a log of another container", cmd("kubectl logs api -n shop -c sidecar --previous"), false, "no read of it"},
		{"the current log is in context", cmd("kubectl logs pod/api -n shop"), true, "context/logs.txt"},
		{"an object in context/resources", cmd("kubectl get configmap settings -n shop -o yaml"), true, "context/resources/configmap-settings.json"},
		{"a ConfigMap never read", cmd("kubectl get cm api-settings -n shop -o yaml"), false, "no read of it"},
		{"events in context", cmd("kubectl get events -n shop --sort-by=.lastTimestamp"), true, "context/events.json"},
		{"a cluster-scoped object", cmd("kubectl describe node/node-1"), true, "GET /api/v1/nodes/node-1"},
		{"explain reads the OpenAPI", cmd("kubectl explain pod.spec"), true, "/openapi"},
		{"a write is not evidence", cmd("kubectl delete pod api -n shop"), false, "not a read"},
		{"not kubectl", cmd("kubectl"), false, "not a kubectl command"},
		{"an object read", obj("Pod/api"), true, ""},
		{"an object in context", obj("cm/settings"), true, "context/resources"},
		{"an object never read", obj("deployment/api"), false, "no read of it"},
		{"a log line the agent got", quote("FATAL config: required env DATABASE_URL is empty"), true, "pods/api/log"},
		{"a log line whitespace aside", quote("  fatal config:   required env DATABASE_URL is empty "), true, "pods/api/log"},
		{"an event message in context", quote("Back-off restarting failed container app"), true, "context/events.json"},
		{"a table row laid out by kubectl", quote("web   1/1   Running"), true, "GET /api/v1/namespaces/shop/pods"},
		{"a line nobody logged", quote("panic: connection refused to db:5432"), false, "no response"},
		// The report was redacted before it was read; the log was not.
		{"a quoted line with a credential redacted", quote("FATAL config: required env [REDACTED] is empty"), true, "pods/api/log"},
		{"a redacted line that is not there", quote("FATAL db: password [REDACTED] rejected"), false, "no response"},
		{"a ConfigMap key in context", quote("LOG_LEVEL debug"), true, "context/resources/configmap-settings.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &report.Report{Evidence: []report.Evidence{{ID: "E1", Claims: []report.Claim{tt.claim}}}}
			res := Check(r, rs, "shop")
			c := r.Evidence[0].Claims[0]
			if got := c.Status == report.ClaimVerified; got != tt.ok {
				t.Errorf("verified = %v, want %v (basis %q)", got, tt.ok, c.Basis)
			}
			if !strings.Contains(c.Basis, tt.basis) {
				t.Errorf("basis %q lacks %q", c.Basis, tt.basis)
			}
			if res.Total() != 1 || (res.Verified == 1) != tt.ok {
				t.Errorf("counts %+v", res)
			}
		})
	}
}

func TestRootCauseCap(t *testing.T) {
	ran := cmd("kubectl get pods -n shop")
	never := cmd("kubectl get cm api-settings -n shop")
	tests := []struct {
		name      string
		evidence  [][]report.Claim // E1, E2, … claims
		cites     []string
		score     float64
		level     report.Level
		capped    bool
		wantLevel report.Level
	}{
		{"cites only an unverified item", [][]report.Claim{{ran}, {never}}, []string{"E2"}, 0.8, report.Confident, true, report.Speculation},
		{"cites a verified item", [][]report.Claim{{ran}, {never}}, []string{"E1", "E2"}, 0.8, report.Confident, false, report.Confident},
		{"cites nothing: all evidence, none verified", [][]report.Claim{{never}}, nil, 0.6, report.Probable, true, report.Speculation},
		{"cites nothing: all evidence, one verified", [][]report.Claim{{never}, {ran}}, nil, 0.6, report.Probable, false, report.Probable},
		{"a band without a score", [][]report.Claim{{never}}, []string{"E1"}, 0, report.Verified, true, report.Speculation},
		{"already speculation", [][]report.Claim{{never}}, []string{"E1"}, 0.3, report.Speculation, false, report.Speculation},
		{"nothing checkable", [][]report.Claim{nil}, []string{"E1"}, 0.8, report.Confident, false, report.Confident},
		{"cites an ID that does not exist", [][]report.Claim{{never}}, []string{"E9"}, 0.8, report.Confident, true, report.Speculation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &report.Report{Confidence: tt.score, ConfidenceLevel: tt.level, RootCause: report.RootCause{Statement: "x", Evidence: tt.cites}}
			for i, cs := range tt.evidence {
				r.Evidence = append(r.Evidence, report.Evidence{ID: "E" + string(rune('1'+i)), Claims: append([]report.Claim(nil), cs...)})
			}
			res := Check(r, reads(t), "shop")
			if res.Capped != tt.capped || r.ConfidenceLevel != tt.wantLevel {
				t.Errorf("capped %v level %s (%.2f), want %v %s", res.Capped, r.ConfidenceLevel, r.Confidence, tt.capped, tt.wantLevel)
			}
			if tt.capped && (r.Confidence >= 0.5 || r.ConfidenceCap == "" || !strings.Contains(res.Footer(), "capped at speculation")) {
				t.Errorf("a capped report: %.2f %q %q", r.Confidence, r.ConfidenceCap, res.Footer())
			}
		})
	}
}

func TestFooter(t *testing.T) {
	if got := (Result{}).Footer(); !strings.Contains(got, "cites no kubectl command") {
		t.Errorf("no claims: %q", got)
	}
	if got := (Result{Verified: 2, Unverified: 1}).Footer(); !strings.Contains(got, "3 of the report's claims") || !strings.Contains(got, "2 verified, 1 unverified") {
		t.Errorf("counts: %q", got)
	}
}

func cmd(s string) report.Claim   { return report.Claim{Kind: report.ClaimCommand, Text: s} }
func obj(s string) report.Claim   { return report.Claim{Kind: report.ClaimObject, Text: s} }
func quote(s string) report.Claim { return report.Claim{Kind: report.ClaimQuote, Text: s} }

func podObject(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "shop"}, "status": map[string]any{"phase": "Running"}}}
}
