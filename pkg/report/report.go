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

// Milestones of an investigation (DESIGN.md §7), in the order they are reported.
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
	// Claims are what an external agent's evidence item says was read,
	// found by Parse and checked by pkg/claims; the builtin agent's
	// evidence comes from the bundle by construction and has none.
	Claims []Claim `json:"claims,omitempty"`
	// Line is where the item starts in Source (1-based; 0: not parsed).
	Line int `json:"-"`
}

// ClaimKind is what a claim cites.
type ClaimKind string

const (
	ClaimCommand ClaimKind = "command" // a kubectl command said to have been run
	ClaimObject  ClaimKind = "object"  // an object said to have been seen (kind/name)
	ClaimQuote   ClaimKind = "quote"   // a log or output line quoted
)

// ClaimStatus is a claim's check outcome.
type ClaimStatus string

const (
	ClaimUnchecked  ClaimStatus = ""           // not checked (yet)
	ClaimVerified   ClaimStatus = "verified"   // a read the agent made, or the context files, back it
	ClaimUnverified ClaimStatus = "unverified" // nothing the agent read backs it
)

// Claim is one citation of an evidence item.
type Claim struct {
	Kind ClaimKind `json:"kind"`
	// Text is the command line, the kind/name, or the quoted line.
	Text string `json:"text"`
	// Line is where the claim is in Source (1-based).
	Line   int         `json:"line,omitempty"`
	Status ClaimStatus `json:"status,omitempty"`
	// Basis says what backs a verified claim (the gateway request or the
	// context file), or why an unverified one is not backed.
	Basis string `json:"basis,omitempty"`
}

// Stance is an agent's answer to the builtin investigator's findings it
// was given (DESIGN.md §6).
type Stance string

const (
	StanceConfirmed Stance = "confirmed"
	StanceRefuted   Stance = "refuted"
	StanceExtended  Stance = "extended"
)

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
	// Lines are the first and last line of the action in Source (1-based;
	// zero: not parsed), so a withheld one can be taken out of it.
	Lines [2]int `json:"-"`
}

// Withheld is an action the safe-fix policy refused to propose, and why
// (pkg/safefix): the report shows it was considered and not offered.
type Withheld struct {
	Action Action `json:"action"`
	Reason string `json:"reason"`
}

// BuiltinAgent is the Agent of a report the builtin investigator wrote
// (the agent package's default agent).
const BuiltinAgent = "builtin"

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

	// OnBuiltin is what an external agent said of the builtin
	// investigator's findings it was given (its "## Builtin findings"
	// section), empty when it said nothing.
	OnBuiltin Stance `json:"onBuiltin,omitempty"`
	// ConfidenceCap says why kubectl-triage lowered the report's
	// confidence (its root cause rests only on unverified claims).
	ConfidenceCap string `json:"confidenceCap,omitempty"`
	// Addenda are markdown sections kubectl-triage appends to an external
	// agent's report (the second opinion), before the footer.
	Addenda []string `json:"-"`

	// Source is the markdown an external agent wrote, when the report was
	// parsed from it (Parse): it is rendered as written, with
	// kubectl-triage's marks (unverified claims, withheld actions, a
	// capped confidence), the addenda and the notes as its footer.
	Source string `json:"-"`
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
