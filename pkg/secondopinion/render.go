package secondopinion

import (
	"fmt"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// maxShown bounds the evidence and checks listed per side.
const maxShown = 8

// Footer is the report footer's line about the comparison.
func Footer(op incident.SecondOpinion) string {
	hinted := "it was given the builtin's findings"
	if !op.Hinted {
		hinted = "it ran blind (--no-builtin-hints)"
	}
	if op.Agreement == incident.Agree {
		return fmt.Sprintf("kubectl-triage: second opinion: agree (%s; %s): %s", op.Basis, hinted, oneLine(op.BuiltinRootCause))
	}
	return fmt.Sprintf("kubectl-triage: second opinion: %s (%s; %s); both root causes are shown under \"Second opinion\".", op.Agreement, op.Basis, hinted)
}

// Addendum is the report's "Second opinion" section when the agent does
// not agree with the builtin: both root causes, each with its evidence
// (the agent's with what the claims check made of it). "" when they agree.
func Addendum(op incident.SecondOpinion, f *Findings, agent *report.Report, agentName string) string {
	if op.Agreement == incident.Agree {
		return ""
	}
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("## Second opinion\n\n")
	switch op.Agreement {
	case incident.BuiltinHealthy:
		p("> **kubectl-triage:** the builtin investigator found %s healthy; the %s agent names a fault. Both are shown: check the agent's evidence before acting on it.\n\n", f.Resource, agentName)
	case incident.BuiltinUndetermined:
		p("> **kubectl-triage:** the builtin investigator saw failed checks no rule of its catalogue explains; the %s agent's root cause is the only one. Both are shown.\n\n", agentName)
	default:
		p("> **kubectl-triage:** the %s agent's root cause differs from the builtin investigator's (%s). Both are shown, each with its evidence.\n\n", agentName, op.Basis)
	}
	p("| | Root cause | Confidence |\n|---|---|---|\n")
	p("| Agent (%s) | %s | %s |\n", cell(agentName), cell(orDash(agent.RootCause.Statement)), confidence(agent.ConfidenceLevel, agent.Confidence))
	p("| Builtin investigator | %s | %s |\n\n", cell(f.RootCause.Statement), confidence(f.RootCause.ConfidenceLevel, f.RootCause.Confidence))

	p("**The agent's evidence for its root cause**\n\n")
	ev := citedEvidence(agent)
	if len(ev) == 0 {
		p("- none cited\n")
	}
	for i, e := range ev {
		if i == maxShown {
			p("- … and %d more\n", len(ev)-maxShown)
			break
		}
		label := e.ID
		if label == "" {
			label = fmt.Sprintf("line %d", e.Line)
		}
		p("- **%s** %s — %s\n", label, oneLine(orDash(e.Fact)), claimSummary(e.Claims))
	}

	p("\n**The builtin investigator's evidence** (`%s`)\n\n", "context/builtin-findings.json")
	switch {
	case f.Verdict == Healthy:
		for i, line := range f.RuledOut {
			if i == maxShown {
				p("- … and %d more checks passed\n", len(f.RuledOut)-maxShown)
				break
			}
			p("- passed: %s\n", oneLine(line))
		}
		for _, c := range f.UncheckedChecks {
			p("- not checked: %s\n", oneLine(c.Line))
		}
	default:
		for _, c := range f.FailedChecks {
			p("- failed check %s: %s\n", c.Check, oneLine(c.Line))
		}
		for i, e := range builtinCited(f) {
			if i == maxShown {
				break
			}
			p("- **B%s** %s  \n  _Source:_ %s", strings.TrimPrefix(e.ID, "E"), oneLine(e.Fact), oneLine(e.Source))
			if e.Command != "" {
				p(" · `%s`", e.Command)
			}
			p("\n")
		}
	}
	p("\n_The builtin's evidence IDs are shown as B1…, its own E1… in context/builtin-findings.json._\n")
	return b.String()
}

// citedEvidence is the evidence the agent's root cause cites, else all of
// it.
func citedEvidence(r *report.Report) []report.Evidence {
	cited := map[string]bool{}
	for _, id := range r.RootCause.Evidence {
		cited[id] = true
	}
	var out []report.Evidence
	for _, e := range r.Evidence {
		if cited[e.ID] {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return r.Evidence
	}
	return out
}

func builtinCited(f *Findings) []report.Evidence {
	cited := map[string]bool{}
	for _, id := range f.RootCause.Evidence {
		cited[id] = true
	}
	var out []report.Evidence
	for _, e := range f.Evidence {
		if cited[e.ID] || len(cited) == 0 {
			out = append(out, e)
		}
	}
	return out
}

func claimSummary(cs []report.Claim) string {
	if len(cs) == 0 {
		return "cites nothing checkable"
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s `%s`", c.Status, clip(c.Text, 120)))
	}
	return strings.Join(parts, "; ")
}

func confidence(level report.Level, score float64) string {
	switch {
	case score > 0 && level != "":
		return fmt.Sprintf("%s (%.2f)", level, score)
	case level != "":
		return string(level)
	case score > 0:
		return fmt.Sprintf("%.2f", score)
	}
	return "-"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cell(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	s = oneLine(strings.ReplaceAll(s, "`", "'"))
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}
