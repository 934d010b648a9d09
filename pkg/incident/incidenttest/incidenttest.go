// Package incidenttest holds the incidents the renderings of an incident's
// Summary are tested with (-o json, watch lines, list, Slack): each
// rendering's golden files are made from these same records, so a reader
// can put them side by side.
package incidenttest

import (
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// Created is when the fixtures' incidents were created.
var Created = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

// Token is a credential quoted by the fixtures' free text: no rendering
// may show it.
const Token = "ghp_" + "R4nd0mT0k3nValue1234567890abcdefABCD"

// Resolved is a resolved incident whose record carries a band that
// disagrees with its score (an external agent's investigation.json said
// "probable" for 0.95): every rendering shows the band of the score,
// "verified". Its fault named no cluster, so the context names it. Its
// root cause quotes a credential and an escape sequence.
func Resolved() *incident.Incident {
	done := Created.Add(83 * time.Second)
	started := Created.Add(2 * time.Second)
	code := 0
	return &incident.Incident{
		IncidentID: "0f8fad5b-d9cb-469f-a165-70867728950e", TriggeringEventID: "8c1b7f0e-3f8a-4b8e-9d55-1f9e2a1b2c3d",
		Status: incident.Resolved, Context: "prod-admin", Namespace: "shop",
		Resource:  fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api-7d9f", Namespace: "shop", UID: "u1"},
		FaultType: "CrashLoop", Severity: "critical", Message: "Back-off restarting failed container api",
		Timestamp: Created.Add(-time.Minute), CreatedAt: Created, StartedAt: &started, CompletedAt: &done,
		Agent:     incident.Agent{Name: "claude", Model: "sonnet", State: incident.AgentSuccess, PID: 4242, ExitCode: &code},
		Workspace: "/state/incidents/0f8fad5b-d9cb-469f-a165-70867728950e",
		Report: &incident.ReportRef{
			Path:       "/state/incidents/0f8fad5b-d9cb-469f-a165-70867728950e/output/investigation.md",
			RootCause:  "DATABASE_URL is unset: the app exits \x1b[31mat start\x1b[0m (token " + Token + " in its log)",
			Confidence: 0.95, ConfidenceLevel: "probable",
		},
	}
}

// Failed is an incident whose agent timed out.
func Failed() *incident.Incident {
	done := Created.Add(10 * time.Minute)
	return &incident.Incident{
		IncidentID: "3b241101-e2bb-4255-8caf-4136c566a962", TriggeringEventID: "c0ffee00-1111-4222-8333-944455556666",
		Status: incident.Failed, FailureReason: incident.ReasonTimeout, Cluster: "prod-eu", Context: "prod-admin", Namespace: "batch",
		Resource:  fault.Resource{APIVersion: "batch/v1", Kind: "Job", Name: "nightly-report", Namespace: "batch", UID: "u2"},
		FaultType: "JobFailed", Severity: "warning", Message: "Job has reached the specified backoff limit",
		Timestamp: Created.Add(-time.Minute), CreatedAt: Created, CompletedAt: &done,
		Agent:     incident.Agent{Name: "builtin", State: incident.AgentTimeout},
		Workspace: "/state/incidents/3b241101-e2bb-4255-8caf-4136c566a962",
	}
}

// All are the fixtures by name, for golden file names.
func All() map[string]*incident.Incident {
	return map[string]*incident.Incident{"resolved": Resolved(), "failed": Failed()}
}
