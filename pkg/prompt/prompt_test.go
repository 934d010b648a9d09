package prompt

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/secondopinion"
)

func TestBuild(t *testing.T) {
	inc := &incident.Incident{IncidentID: "id-1", Cluster: "prod", Context: "prod-ctx", FaultType: "CrashLoop", Severity: "critical",
		Resource: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop"}, Timestamp: time.Now()}
	p := Build(inc, Options{ClusterAccess: true})
	for _, want := range []string{"Pod/api in namespace shop", "id-1", "CRITICAL", "context/logs.txt", "context/events.json",
		"READ-ONLY triage mode", "## Root cause", "## Summary", "output/investigation.md", "untrusted"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	inc.Severity = "info"
	if low := Build(inc, Options{}); strings.Contains(low, "CRITICAL") || !strings.Contains(low, "thoroughly") {
		t.Errorf("a low-severity prompt should ask for depth, not urgency")
	}
	if !strings.Contains(p, "read-only: use it with kubectl") || strings.Contains(Build(inc, Options{}), "use it with kubectl") {
		t.Errorf("the prompt must say whether KUBECONFIG reaches the cluster")
	}
}

// TestBuildBuiltinFindings: with the builtin's findings the prompt asks for
// a second opinion on them; without (--no-builtin-hints) it says nothing
// of them.
func TestBuildBuiltinFindings(t *testing.T) {
	inc := &incident.Incident{IncidentID: "id-1", Severity: "warning", Resource: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}}
	f := &secondopinion.Findings{Verdict: secondopinion.Fault,
		RootCause:    secondopinion.RootCause{Statement: "env DATABASE_URL is empty", Confidence: 0.9, ConfidenceLevel: report.Verified, Evidence: []string{"E1", "E2"}},
		FailedChecks: []secondopinion.Check{{Check: "pod-status", Line: "container app is in CrashLoopBackOff"}},
	}
	p := Build(inc, Options{Builtin: f})
	for _, want := range []string{"context/builtin-findings.json", "Root cause (verified, 0.90): env DATABASE_URL is empty", "Based on evidence E1, E2",
		"Failed check: container app is in CrashLoopBackOff", "`## Builtin findings`", "Verdict: refuted", "marks the rest unverified"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	healthy := Build(inc, Options{Builtin: &secondopinion.Findings{Verdict: secondopinion.Healthy, RuledOut: []string{"a", "b"}}})
	if !strings.Contains(healthy, "**healthy**") {
		t.Errorf("a healthy verdict is not stated:\n%s", healthy)
	}
	if blind := Build(inc, Options{}); strings.Contains(blind, "builtin-findings") || strings.Contains(blind, "## Builtin findings") {
		t.Errorf("a blind prompt mentions the builtin's findings")
	}
}
