// Package investigate is the builtin investigator: it runs the catalogue of
// rules (package registry; the contract is package rule) over a context
// bundle, each rule once, merges their findings across a workload's pods,
// picks the root cause by the contract's ranking and writes the report:
// symptoms, timeline, hypotheses with verdicts, evidence and actions. It
// needs no AI and no network: only the bundle.
package investigate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/health"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefix"
)

// Options for an investigation.
type Options struct {
	IncidentID string
	Agent      string
	Severity   string
	Now        time.Time
}

// Investigate runs the catalogue over the bundle and writes the report.
func Investigate(b *bundle.Bundle, opts Options) *report.Report {
	return Assess(b, opts).Report
}

// Assessment is an investigation with what went into its verdict: the
// health model's reading, and whether the root cause is a fault that
// ended. The engine hands it to an external agent as the builtin's
// findings, and applies the safe-fix policy to the agent's commands with
// the same History.
type Assessment struct {
	Report *report.Report
	Health health.Reading
	// History: the root cause is a fault that has ended (safefix.Apply).
	History bool
}

// Assess is Investigate with its Assessment.
func Assess(b *bundle.Bundle, opts Options) Assessment {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	c := rule.NewPass(b, opts.Now, Rules)
	r := &report.Report{
		IncidentID: opts.IncidentID,
		Cluster:    b.Cluster.Cluster,
		Context:    b.Cluster.Context,
		Agent:      opts.Agent,
		Time:       opts.Now.UTC(),
		Severity:   opts.Severity,
		Resource: report.Resource{
			APIVersion: b.Target.APIVersion, Kind: b.Target.Kind,
			Name: b.Target.Name, Namespace: b.Target.Namespace,
		},
	}

	symptoms := collectSymptoms(c)
	r.Symptoms = symptoms.lines
	r.Complete(report.SymptomVerified)
	if len(b.Pods) > 0 || b.Target.Kind == "Pod" {
		r.Complete(report.ScopeAssessed)
	}

	findings := merge(c.Run())

	r.Timeline = timeline(c)
	if len(r.Timeline) > 0 {
		r.Complete(report.TimelineEstablished)
	}
	if changes := changes(c); len(changes) > 0 {
		r.Complete(report.ChangesIdentified)
		r.Timeline = append(r.Timeline, changes...)
		sortTimeline(r.Timeline)
	}

	for _, f := range findings {
		r.Hypotheses = append(r.Hypotheses, report.Hypothesis{
			Statement: f.Hypothesis, Verdict: f.Verdict, Confidence: float64(f.Confidence), Evidence: f.Evidence,
		})
		if f.Verdict == report.Refuted {
			r.RuledOut = append(r.RuledOut, f.Hypothesis)
		}
	}
	r.RuledOut = append(r.RuledOut, ruledOut(c)...)
	r.RuledOut = kube.AppendUnique(r.RuledOut, symptoms.reading.Passed()...)
	r.RuledOut = append(r.RuledOut, symptoms.reading.Unchecked()...)

	best := rank(rankable(c, findings))
	switch {
	case best != nil && best.Recovered && symptoms.healthy:
		applyHealthy(r, c, symptoms.reading)
		addHistory(r, best)
	case best != nil:
		applyFinding(r, best, symptoms)
		if best.Resting && symptoms.healthy {
			applyResting(r, best)
		}
		addContext(r, best, findings)
		if b.Target.Kind == "Namespace" {
			summarizeNamespace(r, c, findings, best)
		}
	case len(symptoms.lines) == 0 || symptoms.healthy:
		applyHealthy(r, c, symptoms.reading)
	default:
		applyDegraded(r, c, symptoms, findings)
	}
	if len(b.Problems) > 0 {
		r.Degraded = true
		for _, p := range b.Problems {
			r.DegradedReasons = append(r.DegradedReasons, fmt.Sprintf("could not read %s (%s)", p.What, p.Error))
		}
	}
	r.Evidence = c.EvidenceList()
	pruneEvidence(r)
	history := best != nil && !best.Current
	safefix.Apply(r, b, history)
	return Assessment{Report: r, Health: symptoms.reading, History: history}
}

// rankable leaves out the findings about attempts a completed Job retried:
// they stay among the hypotheses, as history, but cannot be the cause of a
// Job that succeeded.
func rankable(c *rule.Pass, fs []rule.Finding) []rule.Finding {
	retried := map[string]bool{}
	for _, p := range c.B.Pods {
		if kube.RetriedAttempt(c, p) {
			retried[p.Name] = true
		}
	}
	if len(retried) == 0 {
		return fs
	}
	var out []rule.Finding
	for _, f := range fs {
		if !retried[f.SubjectPod()] {
			out = append(out, f)
		}
	}
	return out
}

// rank picks the root cause (see package rule for the order).
func rank(fs []rule.Finding) *rule.Finding { return rule.Rank(fs) }

// merge folds the same finding about several pods of a workload into one,
// naming the pods it covers; the first pod's evidence stands for all.
func merge(fs []rule.Finding) []rule.Finding {
	var out []rule.Finding
	index := map[string]int{}
	pods := map[string][]string{}
	for _, f := range fs {
		pod, _, _ := strings.Cut(f.Subject, "/")
		key := f.Rule + "\x00" + string(f.Category) + "\x00" + string(f.Verdict) + "\x00" + f.Hypothesis
		if pod != "" {
			key += "\x00" + strings.ReplaceAll(f.Culprit, pod, "*")
		} else {
			key += "\x00" + f.Culprit
		}
		if _, ok := index[key]; ok {
			pods[key] = append(pods[key], pod)
			continue
		}
		index[key] = len(out)
		pods[key] = []string{pod}
		out = append(out, f)
	}
	for key, i := range index {
		if names := pods[key]; len(names) > 1 {
			// One crash in each of several pods is a pattern, not a
			// recovery.
			out[i].Recovered = false
			out[i].Contributing = append(out[i].Contributing, fmt.Sprintf("The same cause is seen in %d pods of this workload: %s.", len(names), strings.Join(names, ", ")))
		}
	}
	return out
}

// pruneEvidence drops evidence no hypothesis or root cause cites (rules
// register facts for findings that merge() folded away) and renumbers the
// rest E1…En in order.
func pruneEvidence(r *report.Report) {
	used := map[string]bool{}
	for _, h := range r.Hypotheses {
		for _, id := range h.Evidence {
			used[id] = true
		}
	}
	for _, id := range r.RootCause.Evidence {
		used[id] = true
	}
	renumber := map[string]string{}
	var kept []report.Evidence
	for _, e := range r.Evidence {
		if !used[e.ID] {
			continue
		}
		renumber[e.ID] = fmt.Sprintf("E%d", len(kept)+1)
		e.ID = renumber[e.ID]
		kept = append(kept, e)
	}
	r.Evidence = kept
	fix := func(ids []string) []string {
		var out []string // ids may share a backing array with another list
		for _, id := range ids {
			if n, ok := renumber[id]; ok {
				out = append(out, n)
			}
		}
		return out
	}
	for i := range r.Hypotheses {
		r.Hypotheses[i].Evidence = fix(r.Hypotheses[i].Evidence)
	}
	r.RootCause.Evidence = fix(r.RootCause.Evidence)
}

func applyFinding(r *report.Report, f *rule.Finding, s symptomSet) {
	r.Title = f.Title
	r.Summary = f.Summary
	r.SetConfidence(float64(f.Confidence))
	// Ongoing needs something observed now, a fault or an observation (an
	// HPA at its limit, an Ingress without an address): a finding about
	// the present on an object that shows nothing is history.
	r.Ongoing = f.Current && len(s.lines) > 0
	r.RootCause = report.RootCause{
		Statement: f.Title, Mechanism: f.Mechanism, Culprit: f.Culprit, Category: string(f.Category),
		Contributing: slices.Clone(f.Contributing), Evidence: slices.Clone(f.Evidence),
	}
	r.Actions = slices.Clone(f.Actions)
	r.Complete(report.RootCauseIdentified)
	if len(f.Actions) > 0 {
		r.Complete(report.SolutionProposed)
	}
}

// addContext appends to the root cause what the other validated, current
// context findings know: a rollout's revision and template change, a Job
// that will not retry, a StatefulSet's blocked ordinals. Their facts are
// prefixed with their area ("Rollout context: …"); facts that restate the
// root cause itself are left out.
func addContext(r *report.Report, best *rule.Finding, fs []rule.Finding) {
	for i := range fs {
		f := &fs[i]
		if f == best || !f.Context || f.Verdict != report.Validated || !f.Current {
			continue
		}
		area := string(f.Category.Root())
		for _, line := range f.Contributing {
			if strings.Contains(line, best.Title) {
				continue
			}
			r.RootCause.Contributing = kube.AppendUnique(r.RootCause.Contributing, area+" context: "+line)
		}
		r.RootCause.Evidence = kube.AppendUnique(r.RootCause.Evidence, f.Evidence...)
		for _, a := range f.Actions {
			if a.Kind == report.Immediate {
				r.Actions = addAction(r.Actions, a)
			}
		}
	}
}

// addAction appends a unless the same step is listed; an action it makes
// precise (each of whose commands begins one of a's: "kubectl rollout undo
// deployment/x" and "… --to-revision=2") gives way to it.
func addAction(list []report.Action, a report.Action) []report.Action {
	var out []report.Action
	for _, have := range list {
		if have.Description == a.Description {
			return list
		}
		if !refines(a, have) {
			out = append(out, have)
		}
	}
	return append(out, a)
}

func refines(a, old report.Action) bool {
	if len(old.Commands) == 0 {
		return false
	}
	for _, oc := range old.Commands {
		if !slices.ContainsFunc(a.Commands, func(ac string) bool { return strings.HasPrefix(ac, oc) }) {
			return false
		}
	}
	return true
}

// applyHealthy states what was observed healthy: the health model's checks
// that apply all passed. Its confidence is a proof only when every one of
// them could be read; each that could not, and each collection problem,
// costs a band, and the summary says what was not checked.
func applyHealthy(r *report.Report, c *rule.Pass, h health.Reading) {
	r.Healthy = true
	r.Title = "healthy: no fault found"
	passed, unchecked := h.Passed(), h.Unchecked()
	r.Summary = fmt.Sprintf("%s looks healthy: %d health check(s) passed (listed under Ruled out), and no failing condition, waiting or crashing container, or warning event explains a fault.", r.Resource, len(passed))
	conf := h.Confidence()
	if len(c.B.Problems) > 0 && conf > rule.Plausible {
		conf = rule.Plausible
	}
	if len(unchecked) > 0 || len(c.B.Problems) > 0 {
		r.Summary += fmt.Sprintf(" Not everything could be checked (%d check(s) not read, %d collection problem(s)): the verdict is as good as what was read.", len(unchecked), len(c.B.Problems))
	}
	r.SetConfidence(float64(conf))
	r.RootCause = report.RootCause{
		Statement: "No fault found: the resource is healthy.",
		Mechanism: "Every health check that applies to it passed (see Ruled out); nothing needs fixing.",
		Category:  string(rule.Healthy),
	}
	// A warning declared harmless is a note under Ruled out, not a
	// contributing factor: the API server's own repair loop emits one at
	// random for a service created between two of its passes.
	warn := slices.DeleteFunc(kube.WarningEvents(c.B), func(e corev1.Event) bool { return health.Harmless(c.B, e) != "" })
	if len(warn) > 0 {
		r.RootCause.Contributing = append(r.RootCause.Contributing,
			fmt.Sprintf("%d older warning event(s) exist but do not describe the current state.", len(warn)))
	}
	r.RootCause.Contributing = append(r.RootCause.Contributing, unchecked...)
	r.Complete(report.RootCauseIdentified)
}

// addHistory makes a healthy report name the fault that ended (a Recovered
// finding, docs/DESIGN.md §7): its headline, evidence and the steps that
// keep it from happening again, which safefix marks as such.
func addHistory(r *report.Report, f *rule.Finding) {
	r.Title = "healthy now; " + f.Title
	r.Summary += " " + f.Summary
	r.RootCause.Statement = "No current fault: the resource is healthy. In the past: " + f.Title + "."
	r.RootCause.Culprit = f.Culprit
	r.RootCause.Evidence = slices.Clone(f.Evidence)
	r.Actions = slices.Clone(f.Actions)
}

// applyResting makes a healthy report of a resting-state finding (its
// category names the state; docs/DESIGN.md §7): nothing failed, so the
// state the finding explains is what the object is meant to be doing.
func applyResting(r *report.Report, f *rule.Finding) {
	r.Healthy, r.Ongoing = true, false
	r.RootCause.Mechanism += " The resource is healthy: this is its expected resting state and nothing needs fixing."
}

// applyDegraded is the fallback when something is wrong but no rule explains
// it: say so, list what was seen, and what a human should look at next.
func applyDegraded(r *report.Report, c *rule.Pass, s symptomSet, fs []rule.Finding) {
	r.Degraded = true
	r.DegradedReasons = append(r.DegradedReasons, "no rule in the builtin catalogue explains the symptoms")
	r.Ongoing = true
	r.Title = "cause not determined: " + s.lines[0]
	r.Summary = "The builtin investigator found symptoms but no rule explains them. The hypotheses below are speculation; the checks listed under recommended actions are where a human should look next."
	best := rule.Speculative
	var evidence []string
	// The failed health checks are the evidence that something is wrong,
	// whatever no rule could say about why.
	for _, res := range s.reading.Results {
		if res.Status == health.Fail {
			evidence = append(evidence, c.Evidence(res.Line, "health check "+res.Check, ""))
		}
	}
	for _, f := range fs {
		if f.Verdict == report.Inconclusive && f.Confidence > 0 {
			evidence = append(evidence, f.Evidence...)
		}
	}
	for _, e := range kube.WarningEvents(c.B) {
		count := e.Count
		if count == 0 {
			count = 1
		}
		evidence = append(evidence, c.Evidence(
			fmt.Sprintf("Warning %s ×%d: %s", e.Reason, count, e.Message),
			fmt.Sprintf("event on %s/%s", strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name),
			fmt.Sprintf("kubectl get events -n %s --field-selector involvedObject.name=%s", e.Namespace, e.InvolvedObject.Name)))
	}
	r.SetConfidence(float64(best))
	r.RootCause = report.RootCause{
		Statement: "Undetermined (speculation): " + s.lines[0],
		Mechanism: "No rule validated a cause; see the symptoms and the warning events.",
		Category:  string(rule.Unknown),
		Evidence:  evidence,
	}
	ref := r.Resource
	ns := ""
	if ref.Namespace != "" {
		ns = " -n " + ref.Namespace
	}
	r.Actions = append(r.Actions,
		report.Action{Kind: report.Check, Description: "Read the full object description and its recent events.",
			Commands: []string{fmt.Sprintf("kubectl describe %s %s%s", strings.ToLower(ref.Kind), ref.Name, ns)}},
		report.Action{Kind: report.Check, Description: "Look at recent warning events in the namespace for related failures.",
			Commands: []string{fmt.Sprintf("kubectl get events%s --field-selector type=Warning --sort-by=.lastTimestamp", ns)}},
	)
	if ref.Kind == "Pod" {
		r.Actions = append(r.Actions, report.Action{Kind: report.Check, Description: "Read the logs of every container, including the previous instance.",
			Commands: []string{fmt.Sprintf("kubectl logs %s%s --all-containers --previous", ref.Name, ns), fmt.Sprintf("kubectl logs %s%s --all-containers", ref.Name, ns)}})
	}
}

// ---------------------------------------------------------------------------
// Helpers shared by the rule areas.
