package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/watcher"
)

// What watch mode prints on stdout per incident: one line, text or JSON,
// both made from the incident's Summary (the values -o json, list and Slack
// show), cleaned: every field comes from the cluster, an MCP server or an
// agent, so it is printed redacted and without anything a terminal would
// act on.

// watchLine is the JSON line printed per incident with -o json.
type watchLine struct {
	IncidentID      string  `json:"incidentId,omitempty"`
	EventID         string  `json:"eventId"`
	Status          string  `json:"status"`
	Cluster         string  `json:"cluster,omitempty"`
	Namespace       string  `json:"namespace,omitempty"`
	Kind            string  `json:"kind"`
	Name            string  `json:"name"`
	FaultType       string  `json:"faultType"`
	Severity        string  `json:"severity"`
	RootCause       string  `json:"rootCause,omitempty"`
	Confidence      float64 `json:"confidence,omitempty"`
	ConfidenceLevel string  `json:"confidenceLevel,omitempty"`
	FailureReason   string  `json:"failureReason,omitempty"`
	DurationSeconds float64 `json:"durationSeconds"`
	Workspace       string  `json:"workspace,omitempty"`
	Report          string  `json:"report,omitempty"`
	Stored          string  `json:"stored,omitempty"` // where --store put it
	Error           string  `json:"error,omitempty"`
}

// statusError is the status of a fault no incident could be created for.
const statusError = "error"

// summarize is the outcome's Summary: the incident's, or the fault's when
// none could be created; took is the watcher's measure.
func summarize(out watcher.Outcome) incident.Summary {
	var s incident.Summary
	if out.Incident != nil {
		s = incident.Summarize(out.Incident)
	} else {
		s = incident.SummarizeFault(out.Event, out.Cluster, out.Err)
	}
	s.Duration = out.Took
	return s.Clean()
}

// newWatchLine lays a (clean) Summary out as the JSON line.
func newWatchLine(s incident.Summary) watchLine {
	l := watchLine{
		IncidentID: s.IncidentID, EventID: s.EventID, Status: string(s.Status), Cluster: s.Cluster, Namespace: s.Namespace,
		Kind: s.Resource.Kind, Name: s.Resource.Name, FaultType: s.FaultType, Severity: s.Severity,
		RootCause: s.RootCause, Confidence: s.Confidence, ConfidenceLevel: s.ConfidenceLevel, FailureReason: s.FailureReason,
		DurationSeconds: s.Duration.Round(time.Millisecond).Seconds(), Workspace: s.Workspace, Stored: s.Stored, Error: s.Error,
	}
	if l.Status == "" {
		l.Status = statusError
	}
	if s.Resolved() {
		l.Report = s.ReportPath
	}
	return l
}

// watchText lays a (clean) Summary out as the text line, at time now.
func watchText(s incident.Summary, now time.Time) string {
	what := s.ResourceName()
	if s.Namespace != "" {
		what = s.Namespace + "/" + what
	}
	id := s.IncidentID
	if len(id) > 8 {
		id = id[:8]
	}
	if id == "" {
		id = "-"
	}
	status := string(s.Status)
	var detail string
	switch {
	case status == "":
		status, detail = statusError, s.Error
	case !s.Resolved():
		detail = s.FailureReason
		if detail == "" {
			detail = "no valid report"
		}
	case s.ConfidenceText() != "":
		detail = s.ConfidenceText() + ": " + s.RootCause
	default:
		detail = s.RootCause
	}
	took := s.Duration.Round(time.Millisecond)
	return fmt.Sprintf("%s  %-8s  %-12s  %s  %s  %s  %s\n", now.Format(time.TimeOnly), id, status, what, s.FaultType, took, oneLine(detail))
}

// printSummary writes the incident's line on stdout.
func (o *WatchOptions) printSummary(_ context.Context, out watcher.Outcome) {
	s := summarize(out)
	o.outMu.Lock()
	defer o.outMu.Unlock()
	if o.Output == "json" {
		// Unescaped <, > and &: the markers of hidden characters
		// (<U+202E>) stay readable, as in -o json.
		enc := json.NewEncoder(o.Out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(newWatchLine(s))
		return
	}
	fmt.Fprint(o.Out, watchText(s, time.Now()))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:157]) + "..."
	}
	return s
}
