package incident

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Summary is an incident as every short rendering of it shows it:
// `kubectl triage -o json`, watch mode's lines (text and JSON), `kubectl
// triage list` and status, and Slack. Each of them takes its values from
// one Summary, made by Summarize, so they cannot disagree (the confidence
// band, the cluster's name, what stands in for a missing root cause); what
// each adds is only its own layout and escaping.
type Summary struct {
	IncidentID string
	EventID    string
	// Status is empty when no incident could be created (watch mode: the
	// cluster refused the connection); Error says why.
	Status        Status
	FailureReason string
	Error         string

	// Cluster is the fault's cluster, else the kubeconfig context.
	Cluster   string
	Context   string
	Namespace string
	Resource  fault.Resource
	FaultType string
	Severity  string
	// Message is what the fault said.
	Message string

	Agent      string
	AgentModel string

	RootCause string
	// Confidence is the report's score; ConfidenceLevel its band, derived
	// from the score whenever there is one (DESIGN.md §7), else the band
	// the report gave alone.
	Confidence      float64
	ConfidenceLevel string

	Workspace string
	// Stored is where watch --store put the incident (URL/path), once it
	// is there.
	Stored string
	// ReportPath is output/investigation.md, when the incident has a
	// report.
	ReportPath string

	CreatedAt time.Time
	// Duration is how long the triage took: from creation to completion,
	// unless the caller measured it otherwise; zero while unknown.
	Duration time.Duration
}

// Summarize makes the Summary of a record.
func Summarize(inc *Incident) Summary {
	s := Summary{
		IncidentID: inc.IncidentID, EventID: inc.TriggeringEventID,
		Status: inc.Status, FailureReason: inc.FailureReason,
		Cluster: inc.ClusterName(), Context: inc.Context, Namespace: inc.Namespace,
		Resource: inc.Resource, FaultType: inc.FaultType, Severity: inc.Severity, Message: inc.Message,
		Agent: inc.Agent.Name, AgentModel: inc.Agent.Model,
		Workspace: inc.Workspace, CreatedAt: inc.CreatedAt, Stored: inc.StoredAt(),
	}
	if s.Namespace == "" {
		s.Namespace = inc.Resource.Namespace
	}
	if inc.CompletedAt != nil {
		s.Duration = inc.CompletedAt.Sub(inc.CreatedAt)
	}
	if r := inc.Report; r != nil {
		s.RootCause, s.Confidence, s.ConfidenceLevel, s.ReportPath = r.RootCause, r.Confidence, r.ConfidenceLevel, r.Path
		if r.Confidence > 0 {
			s.ConfidenceLevel = string(report.LevelOf(r.Confidence))
		}
	}
	return s
}

// SummarizeFault is the Summary of a fault no incident could be created
// for: err says why.
func SummarizeFault(ev *fault.Event, cluster string, err error) Summary {
	s := Summary{EventID: ev.EventID, Cluster: cluster, Namespace: ev.Namespace(), FaultType: ev.FaultType, Severity: ev.Severity, Message: ev.Context}
	if ev.Resource != nil {
		s.Resource = *ev.Resource
	}
	if err != nil {
		s.Error = err.Error()
	}
	return s
}

// Resolved reports whether the incident ended with a valid report.
func (s Summary) Resolved() bool { return s.Status == Resolved }

// ConfidenceText is the confidence as every rendering prints it:
// "verified (0.95)", the band or the score alone when that is all there
// is, "" when there is none.
func (s Summary) ConfidenceText() string {
	switch {
	case s.Confidence == 0:
		return s.ConfidenceLevel
	case s.ConfidenceLevel == "":
		return strconv.FormatFloat(s.Confidence, 'f', 2, 64)
	}
	return fmt.Sprintf("%s (%.2f)", s.ConfidenceLevel, s.Confidence)
}

// Headline is the line that stands for the outcome: the root cause, or
// why there is none.
func (s Summary) Headline() string {
	switch {
	case s.RootCause != "":
		return s.RootCause
	case s.Error != "":
		return "(" + s.Error + ")"
	case s.FailureReason != "":
		return "(" + s.FailureReason + ")"
	}
	return ""
}

// Kind/name, or the name alone for a resource of unknown kind.
func (s Summary) ResourceName() string {
	if s.Resource.Kind == "" {
		return s.Resource.Name
	}
	return s.Resource.Kind + "/" + s.Resource.Name
}

// Clean is the Summary with every text field through redact.Clean:
// credentials masked, nothing a terminal would act on, hidden characters
// shown. The fields come from the cluster, an MCP server or an agent, and
// the renderings that print them (terminal lines, tables, Slack) print
// this form.
func (s Summary) Clean() Summary {
	for _, f := range []*string{&s.IncidentID, &s.EventID, &s.FailureReason, &s.Error, &s.Cluster, &s.Context, &s.Namespace,
		&s.Resource.Kind, &s.Resource.Name, &s.Resource.Namespace, &s.FaultType, &s.Severity, &s.Message,
		&s.Agent, &s.AgentModel, &s.RootCause, &s.ConfidenceLevel, &s.Workspace, &s.Stored, &s.ReportPath} {
		*f = redact.Clean(*f)
	}
	s.Status = Status(redact.Clean(string(s.Status)))
	return s
}
