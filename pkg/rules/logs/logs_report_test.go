package logs_test

import (
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
)

// TestStructuredLogDrivesRootCause: a crash whose reason is only in a
// logrus-text record's msg field (github.com/knative/infra/issues/222)
// is reported with that reason, not as a generic exit code 1.
func TestStructuredLogDrivesRootCause(t *testing.T) {
	log := `2026-11-26T09:34:01.1Z time="2023-09-24T09:41:34Z" level=error msg="client list: listing pods in : pods is forbidden: User \"system:serviceaccount:test-pods:nightly\" cannot list resource \"pods\" in API group \"\" at the cluster scope" cmp=lister` + "\n" +
		`2026-11-26T09:34:01.2Z kail: error: Unable to initialize data source` + "\n"
	r := investigate.Investigate(bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")), bundletest.WithLogs(true, log)), investigate.Options{Now: bundletest.Now})
	if r.RootCause.Category != "CrashLoop/Exit1/Forbidden" {
		t.Fatalf("category %q (%s)", r.RootCause.Category, r.RootCause.Statement)
	}
	if !strings.Contains(r.RootCause.Statement, "serviceaccount test-pods/nightly cannot list pods") {
		t.Errorf("statement %q", r.RootCause.Statement)
	}
}

// TestExitZeroReadsLastWords: a container that exits 0 and is restarted
// is reported with what it printed last; here the literal a pod prints
// when its args reference an undefined variable
// (github.com/kubernetes/kubernetes/issues/57726).
func TestExitZeroReadsLastWords(t *testing.T) {
	r := investigate.Investigate(bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(0, "Completed")), bundletest.WithLogs(true, "2026-11-26T09:34:01.1Z $(HOSTNAME)\n")), investigate.Options{Now: bundletest.Now})
	if r.RootCause.Category != "CrashLoop/Exit0" {
		t.Fatalf("category %q (%s)", r.RootCause.Category, r.RootCause.Statement)
	}
	found := false
	for _, e := range r.Evidence {
		found = found || strings.Contains(e.Fact, `"$(HOSTNAME)"`)
	}
	if !found {
		t.Errorf("no evidence of the last words: %+v", r.Evidence)
	}
}

// TestGenericExitReadsLastWords: an exit 1 whose log holds no error-like
// line still reports what the application said last
// (github.com/jhipster/generator-jhipster/issues/7334).
func TestGenericExitReadsLastWords(t *testing.T) {
	log := "waiting for kafka to be ready\nwaiting for kafka to be ready\nwaiting for kafka to be ready\n"
	r := investigate.Investigate(bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")), bundletest.WithLogs(true, log)), investigate.Options{Now: bundletest.Now})
	if !strings.Contains(r.RootCause.Statement+r.Summary, `"waiting for kafka to be ready"`) {
		t.Errorf("statement %q, summary %q", r.RootCause.Statement, r.Summary)
	}
}
