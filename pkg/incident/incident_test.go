package incident

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func TestNewFlattensWithoutTouchingTheEvent(t *testing.T) {
	at := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	ev, err := fault.Synthesize("prod", fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "u1"}, fault.TypeCrashLoop, fault.SeverityCritical, "restarting", at)
	if err != nil {
		t.Fatal(err)
	}
	raw := string(ev.Raw)
	inc := New("id-1", ev, "prod-ctx", "builtin", at.Add(time.Second))
	if inc.TriggeringEventID != ev.EventID || inc.Status != Investigating || inc.Agent.State != AgentCreated {
		t.Errorf("new incident: %+v", inc)
	}
	if inc.Namespace != "shop" || inc.Resource.Name != "api" || inc.FaultType != fault.TypeCrashLoop || inc.Severity != "critical" || inc.Message != "restarting" || !inc.Timestamp.Equal(at) {
		t.Errorf("event not flattened: %+v", inc)
	}
	inc.Resource.Name = "changed"
	if string(ev.Raw) != raw || ev.Resource.Name != "api" {
		t.Errorf("the incident shares memory with the event")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	code := 0
	now := time.Now().UTC().Truncate(time.Second)
	in := &Incident{IncidentID: "x", Status: Resolved, Agent: Agent{Name: "builtin", State: AgentSuccess, ExitCode: &code}, CompletedAt: &now,
		Report: &ReportRef{Path: "/w/output/investigation.md", RootCause: "r", Confidence: 0.9, ConfidenceLevel: "verified"}}
	if err := Save(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != Resolved || *out.Agent.ExitCode != 0 || !out.CompletedAt.Equal(now) || out.Report.RootCause != "r" {
		t.Errorf("round trip: %+v", out)
	}
	// camelCase field names per DESIGN.md §4.
	var m map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"incidentId", "triggeringEventId", "status", "resource", "faultType", "createdAt", "completedAt", "agent", "workspace", "report"} {
		if _, ok := m[k]; !ok {
			t.Errorf("incident.json lacks %q: %s", k, data)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}
