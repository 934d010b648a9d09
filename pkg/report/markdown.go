package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Markdown renders the report in the section order of DESIGN.md §7.
func (r *Report) Markdown() string {
	var b strings.Builder
	r.WriteMarkdown(&b)
	return b.String()
}

// WriteMarkdown writes the rendered report to w.
func (r *Report) WriteMarkdown(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if r.Source != "" {
		p("%s", r.amendedSource())
		for _, a := range r.Addenda {
			p("\n%s", strings.TrimRight(a, "\n")+"\n")
		}
		if len(r.Notes) > 0 {
			p("\n---\n%s\n", strings.Join(r.Notes, "  \n"))
		}
		return
	}

	p("# Triage: %s — %s\n", r.Resource, oneLine(r.Title))
	header := []string{"incident " + r.IncidentID}
	if where := clusterLabel(r.Cluster, r.Context); where != "" {
		header = append(header, where)
	}
	header = append(header, r.Time.UTC().Format(time.RFC3339), "agent "+r.Agent, formatDuration(r.Duration))
	p("%s\n", strings.Join(header, " · "))

	p("\n## Summary\n\n%s\n\n", strings.TrimSpace(r.Summary))
	facts := []string{fmt.Sprintf("Confidence: **%s** (%.2f)", r.ConfidenceLevel, r.Confidence)}
	if r.Severity != "" {
		facts = append(facts, "Severity: "+r.Severity)
	}
	switch {
	case r.Healthy:
		facts = append(facts, "State: healthy")
	case r.Ongoing:
		facts = append(facts, "State: ongoing")
	default:
		facts = append(facts, "State: historical")
	}
	p("%s\n", strings.Join(facts, " · "))
	if r.Degraded {
		p("\n> **Degraded: limited data.** %s\n", strings.Join(r.DegradedReasons, "; "))
	}

	p("\n## Symptom\n\n")
	list(w, r.Symptoms, "No abnormal status was observed.")

	p("\n## Evidence\n\n")
	if len(r.Evidence) == 0 {
		p("No evidence was collected.\n")
	}
	for _, e := range r.Evidence {
		p("- **%s** %s  \n  _Source:_ %s", e.ID, oneLine(e.Fact), oneLine(e.Source))
		if e.Command != "" {
			p(" · `%s`", e.Command)
		}
		p("\n")
	}

	p("\n## Timeline\n\n")
	if len(r.Timeline) == 0 {
		p("No dated facts were found.\n")
	} else {
		p("| Time (UTC) | Fact |\n|---|---|\n")
		for _, t := range r.Timeline {
			p("| %s | %s |\n", t.Time.UTC().Format("2006-01-02 15:04:05"), cell(t.Fact))
		}
	}

	p("\n## Hypotheses\n\n")
	if len(r.Hypotheses) == 0 {
		p("No hypothesis applied.\n")
	} else {
		p("| Hypothesis | Verdict | Confidence | Evidence |\n|---|---|---|---|\n")
		for _, h := range r.Hypotheses {
			p("| %s | %s | %.2f | %s |\n", cell(h.Statement), h.Verdict, h.Confidence, strings.Join(h.Evidence, ", "))
		}
	}

	p("\n## Root cause\n\n")
	p("**%s**\n", oneLine(r.RootCause.Statement))
	if r.RootCause.Mechanism != "" {
		p("\nMechanism: %s\n", strings.TrimSpace(r.RootCause.Mechanism))
	}
	if r.RootCause.Culprit != "" {
		p("\nCulprit: `%s`\n", r.RootCause.Culprit)
	}
	if len(r.RootCause.Contributing) > 0 {
		p("\nContributing factors:\n\n")
		list(w, r.RootCause.Contributing, "")
	}
	p("\nConfidence: %s (%.2f)", r.ConfidenceLevel, r.Confidence)
	if len(r.RootCause.Evidence) > 0 {
		p(" · based on %s", strings.Join(r.RootCause.Evidence, ", "))
	}
	p("\n")

	p("\n## Recommended actions\n\n")
	if len(r.Actions) == 0 {
		p("None: nothing needs fixing.\n")
	}
	for _, group := range []struct {
		kind  ActionKind
		title string
	}{{Immediate, "Immediate mitigation"}, {LongTerm, "Long-term fix"}, {Check, "What to check next"}} {
		n := 0
		for _, a := range r.Actions {
			if a.Kind != group.kind {
				continue
			}
			if n == 0 {
				p("### %s\n\n", group.title)
			}
			n++
			p("%d. %s", n, oneLine(a.Description))
			if a.Risk != "" {
				p(" _Risk: %s_", oneLine(a.Risk))
			}
			p("\n")
			if len(a.Commands) > 0 {
				p("   ```sh\n")
				for _, c := range a.Commands {
					p("   %s\n", c)
				}
				p("   ```\n")
			}
		}
		if n > 0 {
			p("\n")
		}
	}
	if len(r.Withheld) > 0 {
		p("### Not proposed\n\n")
		for _, w := range r.Withheld {
			p("- %s _Withheld: %s._\n", oneLine(w.Action.Description), oneLine(w.Reason))
		}
		p("\n")
	}
	if len(r.Actions) > 0 {
		p("_kubectl-triage proposes these commands; it has not run them._\n")
	}

	p("\n## Ruled out\n\n")
	list(w, r.RuledOut, "Nothing was ruled out.")

	p("\n## Milestones\n\n")
	done := map[string]bool{}
	for _, m := range r.Milestones {
		done[m] = true
	}
	for _, m := range AllMilestones {
		mark := " "
		if done[m] {
			mark = "x"
		}
		p("- [%s] %s\n", mark, m)
	}

	if len(r.Notes) > 0 {
		p("\n---\n")
		for _, n := range r.Notes {
			p("%s  \n", oneLine(n))
		}
	}
}

func list(w io.Writer, items []string, empty string) {
	if len(items) == 0 {
		if empty != "" {
			fmt.Fprintf(w, "%s\n", empty)
		}
		return
	}
	for _, it := range items {
		fmt.Fprintf(w, "- %s\n", oneLine(it))
	}
}

func clusterLabel(cluster, context string) string {
	switch {
	case cluster == "" || cluster == context:
		return context
	case context == "":
		return cluster
	default:
		return cluster + "/" + context
	}
}

// oneLine folds a value onto one line so it cannot break the markdown
// structure (log lines and event messages often carry newlines).
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}

func cell(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}
