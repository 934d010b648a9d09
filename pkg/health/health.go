// Package health is the positive health model: for each kind of target,
// what must be observed to call it healthy. Every check reads the bundle and
// says, for what it covers, one of four things: it passed (and what was
// seen), it is worth noting but not a fault, it failed (the symptom), or it
// could not be checked (and why). The investigator calls a target healthy
// only when every check that applies ran and none failed; a failing check
// that no rule explains makes the report "cause not determined", never
// "healthy". See docs/DESIGN.md §7 (the health model).
package health

import (
	"slices"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// Status is one check's outcome for what it covers.
type Status uint8

const (
	// Pass: observed healthy. Its line is a "Ruled out" fact.
	Pass Status = iota + 1
	// Note: observed, worth saying, not a fault on its own (an HPA at its
	// maxReplicas, an Ingress without an address).
	Note
	// Fail: observed unhealthy. Its line is a symptom.
	Fail
	// Unchecked: the evidence could not be read (a list refused, logs not
	// available). Its line says what was not checked and why; a healthy
	// verdict loses confidence for each.
	Unchecked
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "pass"
	case Note:
		return "note"
	case Fail:
		return "fail"
	case Unchecked:
		return "unchecked"
	}
	return "unknown"
}

// Result is one check's reading of one subject.
type Result struct {
	Check  string
	Status Status
	Line   string
}

// Check is one thing that must be observed. Kinds are the target kinds it
// applies to; Pods marks a check of every pod the bundle holds in full (the
// target pod, or a workload's pods), whatever the target's kind.
type Check struct {
	ID    string
	Kinds []string
	Pods  bool
	// Fallback checks run only when no earlier check failed: generic
	// readings (status conditions, recent warnings) for a kind whose
	// dedicated checks show nothing.
	Fallback bool
	Doc      string
	Run      func(c *rule.Pass) []Result
}

// AppliesTo reports whether the check reads a target of this kind.
func (k *Check) AppliesTo(kind string) bool {
	return k.Pods || k.Fallback || slices.Contains(k.Kinds, kind)
}

// Reading is every result of one investigation, in catalogue order.
type Reading struct {
	Results []Result
}

func (r Reading) lines(s Status) []string {
	var out []string
	for _, res := range r.Results {
		if res.Status == s {
			out = append(out, res.Line)
		}
	}
	return out
}

// Faults are the failed checks' lines: what is observably wrong.
func (r Reading) Faults() []string { return r.lines(Fail) }

// Notes are observations that are not faults.
func (r Reading) Notes() []string { return r.lines(Note) }

// Passed are the facts observed healthy.
func (r Reading) Passed() []string { return r.lines(Pass) }

// Unchecked says what could not be checked, and why.
func (r Reading) Unchecked() []string { return r.lines(Unchecked) }

// Healthy is true when nothing failed.
func (r Reading) Healthy() bool { return len(r.Faults()) == 0 }

// Confidence of a healthy verdict: a proof only when every check that
// applies could be read; each check that could not costs a band.
func (r Reading) Confidence() rule.Confidence {
	switch n := len(r.Unchecked()); {
	case n == 0:
		return rule.Strong
	case n == 1:
		return rule.Likely
	case n == 2:
		return rule.Plausible
	default:
		return rule.Fair
	}
}

// Catalogue is every check, in the order their lines are reported: the
// target kind's own reading first, then its pods, then the correlations
// with what selects or isolates them, then the generic fallbacks.
var Catalogue = []*Check{
	deploymentReplicas, statefulSetReplicas, daemonSetCoverage, daemonSetNodes, replicaSetReplicas, workloadUpToDate,
	jobOutcome, cronJobRuns,
	serviceEndpoints, serviceSelector, serviceType, ingressBackends, ingressTLS, ingressController, hpaScaling,
	nodeTarget, namespacePods,
	podStatus, podStarting, podRestarts, podLogErrors,
	podServices, podPolicies,
	claimBound,
	statusConditions, recentWarnings,
}

// Run reads the bundle with every check that applies to its target.
func Run(c *rule.Pass) Reading {
	var r Reading
	kind := c.B.Target.Kind
	for _, k := range Catalogue {
		if !k.AppliesTo(kind) {
			continue
		}
		if k.Fallback && len(r.Faults()) > 0 {
			continue
		}
		for _, res := range k.Run(c) {
			res.Check = k.ID
			r.Results = append(r.Results, res)
		}
	}
	return r
}

func pass(format string, a ...any) Result { return Result{Status: Pass, Line: sprintf(format, a...)} }
func note(format string, a ...any) Result { return Result{Status: Note, Line: sprintf(format, a...)} }
func fail(format string, a ...any) Result { return Result{Status: Fail, Line: sprintf(format, a...)} }

// failed: the result is a failed check.
func failed(r Result) bool { return r.Status == Fail }
func unchecked(format string, a ...any) Result {
	return Result{Status: Unchecked, Line: sprintf(format, a...)}
}
