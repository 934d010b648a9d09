package investigate

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/health"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// A Namespace target is the question "what is broken in here?": the report
// counts the failing pods, groups them by workload, ranks the workloads
// (worst state first, then most pods) and explains each from the pod the
// collector read in full for it. The root cause is the first workload's.

// workloadGroup is one workload's failing pods, with the cause found for
// the pod the collector read in full for it.
type workloadGroup struct {
	name     string // "deployment checkout", or "pod api" for a bare pod
	pods     []*corev1.Pod
	severity int
	cause    *rule.Finding // its explained pod's root cause, if any
}

// failingWorkloads groups the namespace's failing pods by workload, worst
// first, each with the cause found for its explained pod.
func failingWorkloads(c *rule.Pass, findings []rule.Finding) []*workloadGroup {
	var out []*workloadGroup
	for _, g := range health.FailingWorkloads(c) {
		out = append(out, &workloadGroup{name: g.Name, pods: g.Pods, severity: g.Severity})
	}
	for _, g := range out {
		for _, p := range g.pods {
			if f := rank(findingsAbout(findings, p.Name)); f != nil {
				g.cause = f
				break
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.cause != nil) != (b.cause != nil) {
			return a.cause != nil
		}
		if a.severity != b.severity {
			return a.severity > b.severity
		}
		if len(a.pods) != len(b.pods) {
			return len(a.pods) > len(b.pods)
		}
		return a.name < b.name
	})
	return out
}

func findingsAbout(fs []rule.Finding, pod string) []rule.Finding {
	var out []rule.Finding
	for _, f := range fs {
		if p, _, _ := strings.Cut(f.Subject, "/"); p == pod {
			out = append(out, f)
		}
	}
	return out
}

// summarizeNamespace heads the report with the ranked list of failing
// workloads; the root cause stays the first one's, and the others' causes
// are contributing facts.
func summarizeNamespace(r *report.Report, c *rule.Pass, findings []rule.Finding, best *rule.Finding) {
	groups := failingWorkloads(c, findings)
	if len(groups) == 0 {
		return
	}
	// The root cause's workload leads, whatever the state order says.
	same := func(f *rule.Finding) bool {
		return f != nil && best != nil && f.Rule == best.Rule && f.Subject == best.Subject && f.Category == best.Category
	}
	for i, g := range groups {
		if same(g.cause) && i > 0 {
			groups = append(append([]*workloadGroup{g}, groups[:i]...), groups[i+1:]...)
			break
		}
	}
	failing := 0
	var lines []string
	for i, g := range groups {
		failing += len(g.pods)
		what := "not explained: its pods were not read in full (kubectl triage " + strings.Replace(g.name, " ", "/", 1) + " -n " + c.B.Target.Name + ")"
		if g.cause != nil {
			what = g.cause.Title
		}
		lines = append(lines, fmt.Sprintf("%d. %s, %d pod(s) failing: %s", i+1, g.name, len(g.pods), what))
		if i > 0 && g.cause != nil && !same(g.cause) {
			r.RootCause.Contributing = append(r.RootCause.Contributing, fmt.Sprintf("Also failing in namespace %s: %s (%d pod(s)): %s.", c.B.Target.Name, g.name, len(g.pods), g.cause.Title))
			for _, a := range g.cause.Actions {
				if a.Kind == report.Immediate {
					a.Description = "For " + g.name + ": " + a.Description
					r.Actions = addAction(r.Actions, a)
				}
			}
		}
	}
	head := fmt.Sprintf("%d of %d pods in namespace %s are failing, in %d workload(s), worst first:\n%s", failing, len(c.B.NamespacePods), c.B.Target.Name, len(groups), strings.Join(lines, "\n"))
	r.Summary = head + "\n\n" + r.Summary
	if same(groups[0].cause) {
		r.Title = fmt.Sprintf("%s: %s", groups[0].name, best.Title)
		if len(groups) > 1 {
			r.Title += fmt.Sprintf(" (and %d more failing workload(s) in namespace %s)", len(groups)-1, c.B.Target.Name)
		}
		r.RootCause.Statement = r.Title
	}
}
