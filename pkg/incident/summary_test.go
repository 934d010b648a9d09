package incident_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident/incidenttest"
)

func TestSummarizeConfidence(t *testing.T) {
	tests := []struct {
		ref       *incident.ReportRef
		wantLevel string
		wantText  string
	}{
		{nil, "", ""},
		{&incident.ReportRef{}, "", ""},
		{&incident.ReportRef{Confidence: 0.3}, "speculation", "speculation (0.30)"},
		{&incident.ReportRef{Confidence: 0.69}, "probable", "probable (0.69)"},
		{&incident.ReportRef{Confidence: 0.7}, "confident", "confident (0.70)"},
		{&incident.ReportRef{Confidence: 0.9, ConfidenceLevel: "verified"}, "verified", "verified (0.90)"},
		// The score decides the band, whatever the record says; a band
		// alone is kept.
		{&incident.ReportRef{Confidence: 0.95, ConfidenceLevel: "probable"}, "verified", "verified (0.95)"},
		{&incident.ReportRef{ConfidenceLevel: "probable"}, "probable", "probable"},
	}
	for _, tt := range tests {
		s := incident.Summarize(&incident.Incident{Status: incident.Resolved, Report: tt.ref})
		if s.ConfidenceLevel != tt.wantLevel || s.ConfidenceText() != tt.wantText {
			t.Errorf("%+v: level %q text %q, want %q %q", tt.ref, s.ConfidenceLevel, s.ConfidenceText(), tt.wantLevel, tt.wantText)
		}
	}
}

func TestSummarize(t *testing.T) {
	s := incident.Summarize(incidenttest.Resolved())
	if s.Cluster != "prod-admin" {
		t.Errorf("a fault naming no cluster is the context's: %q", s.Cluster)
	}
	if s.Duration != 83*time.Second || s.ReportPath == "" || !s.Resolved() || s.ResourceName() != "Pod/api-7d9f" {
		t.Errorf("summary %+v", s)
	}
	if !strings.HasPrefix(s.Headline(), "DATABASE_URL is unset") {
		t.Errorf("headline %q", s.Headline())
	}

	f := incident.Summarize(incidenttest.Failed())
	if f.Cluster != "prod-eu" || f.Headline() != "(timeout)" || f.Resolved() || f.ReportPath != "" || f.ConfidenceText() != "" {
		t.Errorf("failed summary %+v, headline %q", f, f.Headline())
	}

	ev, err := fault.Synthesize("prod", fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}, fault.TypeCrashLoop, fault.SeverityCritical, "restarting", incidenttest.Created)
	if err != nil {
		t.Fatal(err)
	}
	n := incident.SummarizeFault(ev, "prod", errors.New("connect to cluster \"prod\": connection refused"))
	if n.Status != "" || n.Headline() != `(connect to cluster "prod": connection refused)` || n.ResourceName() != "Pod/api" || n.Namespace != "shop" {
		t.Errorf("fault summary %+v", n)
	}
}

// Clean is what terminals and Slack print: no credential, no escape
// sequence, the rest as it was.
func TestSummaryClean(t *testing.T) {
	s := incident.Summarize(incidenttest.Resolved()).Clean()
	if strings.Contains(s.RootCause, incidenttest.Token) || strings.Contains(s.RootCause, "\x1b") {
		t.Errorf("root cause not cleaned: %q", s.RootCause)
	}
	if !strings.Contains(s.RootCause, "DATABASE_URL is unset: the app exits at start") {
		t.Errorf("cleaning lost the text: %q", s.RootCause)
	}
	raw := incident.Summarize(incidenttest.Resolved())
	if !strings.Contains(raw.RootCause, incidenttest.Token) {
		t.Error("Clean changed the Summary it was called on")
	}
}
