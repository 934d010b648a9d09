package rule

import (
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Rule is one check of the catalogue: what it is, and the check itself.
type Rule struct {
	Meta
	// Check returns the rule's findings about the bundle in p. The engine
	// fills in each finding's Rule and Layer.
	Check func(p *Pass) []Finding
}

// Meta declares a rule: the engine, the collector and the documentation
// read it; the rule's code does not.
type Meta struct {
	// ID is "area/name" ("network/service-endpoints"): stable, unique,
	// the last tie-break of the ranking.
	ID string
	// Kinds are the target kinds the rule applies to; nil means any kind.
	Kinds []string
	// Layer is where in the stack the causes it finds live.
	Layer Layer
	// Requires are the rules whose findings it reads with Pass.ResultOf.
	Requires []*Rule
	// Needs are the evidence kinds it reads from the bundle.
	Needs []Need
	// Doc says in a sentence or two what the rule detects.
	Doc string
}

// AppliesTo reports whether the rule applies to a target of this kind.
func (m *Meta) AppliesTo(kind string) bool {
	if m.Kinds == nil {
		return true
	}
	for _, k := range m.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Kinds groups.
var (
	// WorkloadKinds are the controllers whose bundle holds their pods.
	WorkloadKinds = []string{"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob"}
	// PodKinds are the kinds whose bundle holds pods: a Pod and the
	// workloads that own pods.
	PodKinds = append([]string{"Pod"}, WorkloadKinds...)
)

// Layer is where in the stack a rule's causes live; a lower layer explains
// the faults of the layers above it, so it ranks higher (see the package
// documentation).
type Layer int

// The layers, from the top of the stack down; a greater value ranks first.
const (
	ServiceLayer Layer = iota + 1
	WorkloadLayer
	PodLayer
	PlacementLayer
	InfrastructureLayer
)

func (l Layer) String() string {
	switch l {
	case ServiceLayer:
		return "service"
	case WorkloadLayer:
		return "workload"
	case PodLayer:
		return "pod"
	case PlacementLayer:
		return "placement"
	case InfrastructureLayer:
		return "infrastructure"
	}
	return "none"
}

// Strength is how much of the causal chain a finding's own evidence covers
// (see the package documentation); a stronger finding ranks first.
type Strength int

const (
	// Symptom restates a fault another rule explains.
	Symptom Strength = iota
	// Observed: the fault is seen, its cause is not named.
	Observed
	// Explained: the evidence names the cause.
	Explained
	// Traced: it names the cause behind what another rule explains.
	Traced
)

// Finding is one rule's verdict on one hypothesis.
type Finding struct {
	// Rule is the ID of the rule that found it; Layer its layer. The
	// engine sets both.
	Rule  string
	Layer Layer

	Category   Category // root-cause class, e.g. "CrashLoop/MissingEnv", "OOMKilled"
	Hypothesis string
	Verdict    report.Verdict
	Confidence Confidence
	Evidence   []string // evidence IDs

	// For validated findings: what the report says when this one wins.
	Title        string
	Summary      string
	Mechanism    string
	Culprit      string
	Contributing []string
	Actions      []report.Action

	// Current is true when the finding explains the present state, false
	// when it is history (an old event, a past restart).
	Current bool
	// Strength is how much of the causal chain its evidence covers.
	Strength Strength
	// Subject is what the finding is about (pod/container), for merging
	// the same finding across a workload's pods.
	Subject string
	// Context marks a workload finding that defers to a pod's own cause
	// (a rollout, a Job, a StatefulSet ordinal…): when another finding is
	// the root cause, its contributing facts, evidence and immediate
	// actions still reach the root cause, so the report says which
	// revision introduced the fault or that a failed Job must be re-run.
	Context bool
	// Resting marks a validated finding that explains what the health model
	// noted as the object's expected resting state (an HPA holding its
	// minReplicas at low load, an autoscaler paused at zero replicas): when
	// it is the root cause and no health check failed, the report is
	// healthy, the finding its explanation (docs/DESIGN.md §7).
	Resting bool
	// Recovered marks a history finding about a fault that ended and did
	// not come back: one crash beyond the restart window, the container
	// running and ready since. When it is the root cause and no health
	// check failed, the report is healthy and names the fault as history
	// (docs/DESIGN.md §7); a fault that recurred stays the root cause.
	Recovered bool
}

// SubjectPod is the pod part of the finding's subject ("pod/container").
func (f *Finding) SubjectPod() string {
	pod, _, _ := strings.Cut(f.Subject, "/")
	return pod
}
