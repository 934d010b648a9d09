// Package report is the investigation report: its data model, its markdown
// rendering (DESIGN.md §7) and the validity check applied to any agent's
// output.
package report

import (
	"fmt"
	"time"
)

// Verdict is the outcome of checking one hypothesis.
type Verdict string

const (
	Validated    Verdict = "validated"
	Refuted      Verdict = "refuted"
	Inconclusive Verdict = "inconclusive"
)

// Level names a confidence band (DESIGN.md §7).
type Level string

const (
	Speculation Level = "speculation"
	Probable    Level = "probable"
	Confident   Level = "confident"
	Verified    Level = "verified"
)

// LevelOf maps a confidence score in [0,1] to its band.
func LevelOf(score float64) Level {
	switch {
	case score >= 0.9:
		return Verified
	case score >= 0.7:
		return Confident
	case score >= 0.5:
		return Probable
	default:
		return Speculation
	}
}

// Milestones of an investigation (seed 004), in the order they are reported.
const (
	SymptomVerified     = "symptom_verified"
	ScopeAssessed       = "scope_assessed"
	TimelineEstablished = "timeline_established"
	ChangesIdentified   = "changes_identified"
	RootCauseIdentified = "root_cause_identified"
	SolutionProposed    = "solution_proposed"
)

// AllMilestones lists every milestone in report order.
var AllMilestones = []string{SymptomVerified, ScopeAssessed, TimelineEstablished, ChangesIdentified, RootCauseIdentified, SolutionProposed}

// Resource identifies the object the report is about.
type Resource struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

func (r Resource) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return fmt.Sprintf("%s/%s (%s)", r.Kind, r.Name, r.Namespace)
}

// Evidence is one observed fact and where it came from.
type Evidence struct {
	ID      string `json:"id"`                // E1, E2, …
	Fact    string `json:"fact"`              // what was seen
	Source  string `json:"source"`            // object/field, event or log line
	Command string `json:"command,omitempty"` // the kubectl command that shows it
}

// TimelineEntry is a dated fact.
type TimelineEntry struct {
	Time time.Time `json:"time"`
	Fact string    `json:"fact"`
}

// Hypothesis is a candidate explanation and the verdict on it.
type Hypothesis struct {
	Statement  string   `json:"statement"`
	Verdict    Verdict  `json:"verdict"`
	Confidence float64  `json:"confidence"`
	Evidence   []string `json:"evidence,omitempty"` // evidence IDs
}

// RootCause is the explanation the report stands behind.
type RootCause struct {
	Statement    string   `json:"statement"`
	Mechanism    string   `json:"mechanism,omitempty"`
	Culprit      string   `json:"culprit,omitempty"` // the object, field, key, image or line to blame
	Category     string   `json:"category,omitempty"`
	Contributing []string `json:"contributing,omitempty"`
	Evidence     []string `json:"evidence,omitempty"`
}

// ActionKind says when an action applies.
type ActionKind string

const (
	Immediate ActionKind = "immediate"
	LongTerm  ActionKind = "long-term"
	Check     ActionKind = "check" // something a human should look at next
)

// Action is a proposed step for a human. The plugin never executes it.
type Action struct {
	Kind        ActionKind `json:"kind"`
	Description string     `json:"description"`
	Commands    []string   `json:"commands,omitempty"`
	Risk        string     `json:"risk,omitempty"`
}

// Withheld is an action the safe-fix policy refused to propose, and why
// (pkg/safefix): the report shows it was considered and not offered.
type Withheld struct {
	Action Action `json:"action"`
	Reason string `json:"reason"`
}

// Report is the whole investigation.
type Report struct {
	IncidentID string        `json:"incidentId"`
	Cluster    string        `json:"cluster,omitempty"`
	Context    string        `json:"context,omitempty"`
	Agent      string        `json:"agent"`
	Time       time.Time     `json:"time"`
	Duration   time.Duration `json:"durationNanos"`
	Resource   Resource      `json:"resource"`

	Title           string   `json:"title"` // one-line root cause
	Summary         string   `json:"summary"`
	Confidence      float64  `json:"confidence"`
	ConfidenceLevel Level    `json:"confidenceLevel"`
	Severity        string   `json:"severity,omitempty"`
	Ongoing         bool     `json:"ongoing"`
	Healthy         bool     `json:"healthy"`
	Degraded        bool     `json:"degraded"`
	DegradedReasons []string `json:"degradedReasons,omitempty"`

	Symptoms   []string        `json:"symptoms"`
	Evidence   []Evidence      `json:"evidence"`
	Timeline   []TimelineEntry `json:"timeline"`
	Hypotheses []Hypothesis    `json:"hypotheses"`
	RootCause  RootCause       `json:"rootCause"`
	Actions    []Action        `json:"actions"`
	RuledOut   []string        `json:"ruledOut"`
	Withheld   []Withheld      `json:"withheld,omitempty"`
	Milestones []string        `json:"milestones"`      // completed ones
	Notes      []string        `json:"notes,omitempty"` // footer lines (sandbox, audit counts, …)
}

// SetConfidence sets the score and its band together so they never disagree.
func (r *Report) SetConfidence(score float64) {
	r.Confidence = score
	r.ConfidenceLevel = LevelOf(score)
}

// Complete marks a milestone as reached (once).
func (r *Report) Complete(m string) {
	for _, have := range r.Milestones {
		if have == m {
			return
		}
	}
	r.Milestones = append(r.Milestones, m)
}
