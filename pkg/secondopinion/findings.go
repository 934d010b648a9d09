// Package secondopinion makes an external AI agent a checked second
// opinion of the builtin investigator (DESIGN.md §6): the builtin's
// findings, written to context/builtin-findings.json for the agent to
// confirm, refute or extend, and the comparison of the agent's root cause
// with the builtin's that incident.json records and the report shows.
package secondopinion

import (
	"encoding/json"

	"github.com/kubectl-triage/kubectl-triage/pkg/health"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// Verdict is the builtin's overall finding.
type Verdict string

const (
	// Fault: a rule explains what failed; RootCause says what.
	Fault Verdict = "fault"
	// Healthy: every health check that applies passed.
	Healthy Verdict = "healthy"
	// Undetermined: checks failed and no rule explains them.
	Undetermined Verdict = "undetermined"
)

// Findings are context/builtin-findings.json: what the builtin
// investigator concluded from the same bundle the agent gets.
type Findings struct {
	Investigator string          `json:"investigator"`
	Resource     report.Resource `json:"resource"`
	Verdict      Verdict         `json:"verdict"`
	RootCause    RootCause       `json:"rootCause"`
	// Hypotheses are every rule's verdict, citing Evidence by ID.
	Hypotheses []report.Hypothesis `json:"hypotheses"`
	Evidence   []report.Evidence   `json:"evidence"`
	// FailedChecks and UncheckedChecks are the health model's (pkg/health):
	// what was observed wrong, and what could not be read.
	FailedChecks    []Check `json:"failedChecks"`
	UncheckedChecks []Check `json:"uncheckedChecks"`
	// RuledOut is what was checked and found healthy.
	RuledOut []string `json:"ruledOut"`
	// Degraded says the collection was incomplete, and why.
	Degraded []string `json:"degraded,omitempty"`
}

// RootCause is the builtin's root cause.
type RootCause struct {
	Statement       string       `json:"statement"`
	Mechanism       string       `json:"mechanism,omitempty"`
	Culprit         string       `json:"culprit,omitempty"`
	Category        string       `json:"category,omitempty"`
	Confidence      float64      `json:"confidence"`
	ConfidenceLevel report.Level `json:"confidenceLevel"`
	Evidence        []string     `json:"evidence,omitempty"`
}

// Check is one health check's line.
type Check struct {
	Check string `json:"check"`
	Line  string `json:"line"`
}

// FromAssessment makes the findings of a builtin investigation.
func FromAssessment(a investigate.Assessment) *Findings {
	r := a.Report
	f := &Findings{
		Investigator: "builtin",
		Resource:     r.Resource,
		Verdict:      verdictOf(r),
		RootCause: RootCause{Statement: r.RootCause.Statement, Mechanism: r.RootCause.Mechanism, Culprit: r.RootCause.Culprit,
			Category: r.RootCause.Category, Confidence: r.Confidence, ConfidenceLevel: r.ConfidenceLevel, Evidence: r.RootCause.Evidence},
		Hypotheses: nonNil(r.Hypotheses), Evidence: nonNil(r.Evidence),
		FailedChecks: checks(a.Health, health.Fail), UncheckedChecks: checks(a.Health, health.Unchecked),
		RuledOut: nonNil(r.RuledOut),
	}
	if r.Degraded {
		f.Degraded = r.DegradedReasons
	}
	return f
}

func verdictOf(r *report.Report) Verdict {
	switch {
	case r.Healthy:
		return Healthy
	case r.RootCause.Category == string(rule.Unknown):
		return Undetermined
	}
	return Fault
}

func checks(h health.Reading, s health.Status) []Check {
	out := []Check{}
	for _, res := range h.Results {
		if res.Status == s {
			out = append(out, Check{Check: res.Check, Line: res.Line})
		}
	}
	return out
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// JSON is the file's content.
func (f *Findings) JSON() []byte {
	data, _ := json.MarshalIndent(f, "", "  ")
	return append(data, '\n')
}
