package gone

import (
	"fmt"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// ResourceGone is the rule gone/resource-gone.
var ResourceGone = &rule.Rule{
	Meta: rule.Meta{
		ID:    "gone/resource-gone",
		Layer: rule.WorkloadLayer,
		Needs: []rule.Need{rule.Events},
		Doc:   "The target no longer exists: its deletion, and what its events said before it went.",
	},
	Check: checkGone,
}

// checkGone reports that the resource is gone and what the event and the
// events that outlived it say, with the decisive line of any log excerpt the
// event carried.
func checkGone(c *rule.Pass) []rule.Finding {
	b := c.B
	if !b.Gone() {
		return nil
	}
	ref := b.Target
	evidence := []string{c.Evidence(fmt.Sprintf("%s/%s no longer exists in namespace %s", ref.Kind, ref.Name, ref.Namespace),
		"the API server (404 when resolving the fault's resource)",
		fmt.Sprintf("kubectl get %s %s -n %s", strings.ToLower(ref.Kind), ref.Name, ref.Namespace))}
	f := rule.Finding{
		Category: rule.Gone, Verdict: report.Validated, Confidence: rule.Even, Current: true, Strength: rule.Observed, Subject: ref.Name,
		Hypothesis: fmt.Sprintf("%s/%s failed and was then deleted or replaced", ref.Kind, ref.Name),
		Title:      fmt.Sprintf("%s/%s no longer exists; the fault can only be read from what the event carried", ref.Kind, ref.Name),
		Summary:    fmt.Sprintf("%s/%s was gone by the time of the triage (deleted, or replaced by its controller), so its status could not be read.", ref.Kind, ref.Name),
		Mechanism:  "Controllers replace failed pods and completed rollouts remove old ones; the evidence left is the fault event, any log excerpt it carried, and events that outlive the object (about an hour).",
		Culprit:    fmt.Sprintf("%s/%s (gone)", strings.ToLower(ref.Kind), ref.Name),
	}
	for _, l := range b.Logs {
		if !l.FromEvent {
			continue
		}
		if d := logs.FindDecisive(l.Text); d != nil && !d.Pattern.Generic() {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Log excerpt in the fault event: %q", d.Line),
				fmt.Sprintf("context/event.json logs[] (container %s)", l.Container), ""))
			subject := logs.SubjectOf(d.Pattern.Class, d.Line)
			if subject != "" {
				subject = " (" + subject + ")"
			}
			f.Category = rule.Gone.Sub(d.Pattern.Class.String())
			f.Title = fmt.Sprintf("%s/%s no longer exists; before it went, container %s failed because %s%s", ref.Kind, ref.Name, l.Container, d.Pattern.Explains, subject)
			f.Summary += fmt.Sprintf(" The fault event carried its last log line: %q.", d.Line)
			f.Confidence = rule.Plausible
			f.Actions = append(f.Actions, report.Action{Kind: report.Immediate, Description: d.Pattern.Fix})
			break
		}
	}
	for _, e := range kube.WarningEvents(b) {
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Warning %s ×%d: %s", e.Reason, max(e.Count, 1), e.Message),
			fmt.Sprintf("event on %s/%s (outlived the object)", strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name),
			fmt.Sprintf("kubectl get events -n %s --field-selector involvedObject.name=%s", e.Namespace, e.InvolvedObject.Name)))
	}
	f.Evidence = evidence
	f.Actions = append(f.Actions, report.Action{Kind: report.Check,
		Description: "Find what replaced it and whether the replacement shows the same fault.",
		Commands:    []string{fmt.Sprintf("kubectl get pods -n %s --sort-by=.metadata.creationTimestamp", ref.Namespace), fmt.Sprintf("kubectl get events -n %s --sort-by=.lastTimestamp", ref.Namespace)}})
	return []rule.Finding{f}
}
