package secondopinion

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

func missingKey() *Findings {
	return &Findings{
		Resource: report.Resource{Kind: "Pod", Name: "reports", Namespace: "shop"},
		Verdict:  Fault,
		RootCause: RootCause{Statement: "container app cannot start: ConfigMap app-config has no key LOG_LEVEL",
			Culprit:    "configmap app-config key LOG_LEVEL, referenced by pod/reports container app env LOG_LEVEL (CrashLoopBackOff)",
			Confidence: 0.97, ConfidenceLevel: report.Verified, Evidence: []string{"E1"}},
		Evidence:     []report.Evidence{{ID: "E1", Fact: "ConfigMap app-config has keys PORT, log_level", Source: "configmap/app-config .data", Command: "kubectl get configmap app-config -n shop -o yaml"}},
		FailedChecks: []Check{{Check: "pod-status", Line: "Container app is waiting: CreateContainerConfigError"}},
	}
}

func TestCulpritTerms(t *testing.T) {
	// Not the symptom, not the target itself, each term once.
	want := []string{"app-config", "LOG_LEVEL"}
	if got := culpritTerms(missingKey()); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCompare(t *testing.T) {
	healthy := &Findings{Resource: report.Resource{Kind: "Pod", Name: "web"}, Verdict: Healthy,
		RootCause: RootCause{Statement: "No fault found: the resource is healthy."}}
	undetermined := &Findings{Resource: report.Resource{Kind: "Pod", Name: "web"}, Verdict: Undetermined,
		RootCause: RootCause{Statement: "Undetermined (speculation): container app is not ready"}}
	agent := func(stmt string, stance report.Stance) *report.Report {
		return &report.Report{RootCause: report.RootCause{Statement: stmt}, OnBuiltin: stance}
	}
	tests := []struct {
		name  string
		f     *Findings
		agent *report.Report
		want  incident.Agreement
		basis string
	}{
		{"names the culprit's key", missingKey(), agent("The env var log_level is read from the wrong key", ""), incident.Agree, "LOG_LEVEL"},
		{"names another cause", missingKey(), agent("The image tag api:v2 does not exist", ""), incident.Differ, "none of the builtin"},
		{"the pod's name is not the culprit", missingKey(), agent("pod/reports runs out of memory (OOMKilled)", ""), incident.Differ, "none of"},
		{"the agent's verdict decides: refuted", missingKey(), agent("LOG_LEVEL is set; the node is out of disk", report.StanceRefuted), incident.Differ, "refuted"},
		{"the agent's verdict decides: extended", missingKey(), agent("Also the probe is wrong", report.StanceExtended), incident.Agree, "extended"},
		{"builtin healthy, the agent names a fault", healthy, agent("The pod leaks memory", ""), incident.BuiltinHealthy, "found the resource healthy"},
		{"both healthy", healthy, agent("No fault: pod/web is healthy", ""), incident.Agree, "both"},
		{"the agent calls a failing pod healthy", missingKey(), agent("The pod is healthy", ""), incident.Differ, "the agent found"},
		{"unhealthy is not healthy", healthy, agent("The pod is unhealthy: its probe fails", ""), incident.BuiltinHealthy, ""},
		{"builtin undetermined", undetermined, agent("The readiness probe points at the wrong port", ""), incident.BuiltinUndetermined, "no rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := Compare(tt.f, tt.agent, true)
			if op.Agreement != tt.want || !strings.Contains(op.Basis, tt.basis) {
				t.Errorf("%s (%s), want %s (%s)", op.Agreement, op.Basis, tt.want, tt.basis)
			}
			if op.BuiltinRootCause != tt.f.RootCause.Statement || op.AgentRootCause != tt.agent.RootCause.Statement || !op.Hinted {
				t.Errorf("record %+v", op)
			}
		})
	}
}

// TestAddendum: a differing opinion shows both root causes with their
// evidence; an agreeing one adds nothing but the footer line.
func TestAddendum(t *testing.T) {
	f := missingKey()
	agent := &report.Report{ConfidenceLevel: report.Speculation, Confidence: 0.45,
		RootCause: report.RootCause{Statement: "The image tag is wrong", Evidence: []string{"E2"}},
		Evidence: []report.Evidence{
			{ID: "E1", Fact: "restarts", Claims: []report.Claim{{Kind: report.ClaimCommand, Text: "kubectl get pods", Status: report.ClaimVerified}}},
			{ID: "E2", Fact: "the tag is v2", Claims: []report.Claim{{Kind: report.ClaimCommand, Text: "kubectl get cm api-settings", Status: report.ClaimUnverified}}},
		}}
	op := Compare(f, agent, false)
	md := Addendum(op, f, agent, "claude")
	for _, want := range []string{
		"## Second opinion", "differs from the builtin investigator's",
		"| Agent (claude) | The image tag is wrong | speculation (0.45) |",
		"| Builtin investigator | container app cannot start: ConfigMap app-config has no key LOG_LEVEL | verified (0.97) |",
		"**E2** the tag is v2 — unverified `kubectl get cm api-settings`",
		"failed check pod-status: Container app is waiting",
		"**B1** ConfigMap app-config has keys PORT, log_level", "`kubectl get configmap app-config -n shop -o yaml`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("addendum lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "**E1**") {
		t.Errorf("evidence the root cause does not cite is shown:\n%s", md)
	}
	if line := Footer(op); !strings.Contains(line, "ran blind") || !strings.Contains(line, "Second opinion") {
		t.Errorf("footer %q", line)
	}
	agree := Compare(f, &report.Report{RootCause: report.RootCause{Statement: "LOG_LEVEL is missing"}}, true)
	if md := Addendum(agree, f, agent, "claude"); md != "" {
		t.Errorf("an agreeing opinion adds a section:\n%s", md)
	}
	if line := Footer(agree); !strings.Contains(line, "second opinion: agree (") {
		t.Errorf("footer %q", line)
	}
}
