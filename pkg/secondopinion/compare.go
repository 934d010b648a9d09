package secondopinion

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Compare sets the agent's root cause beside the builtin's. The agent's
// own verdict on the findings it was given decides when it gave one
// (confirmed or extended: agree; refuted: differ); otherwise the causes
// agree when the agent's root cause names a term that singles out the
// builtin's culprit (a key, an object, an image: DATABASE_URL,
// configmap/app-config), and differ when it names none.
func Compare(f *Findings, agent *report.Report, hinted bool) incident.SecondOpinion {
	op := incident.SecondOpinion{
		BuiltinRootCause: f.RootCause.Statement, BuiltinConfidence: f.RootCause.Confidence,
		BuiltinConfidenceLevel: string(f.RootCause.ConfidenceLevel),
		AgentRootCause:         agent.RootCause.Statement, AgentStance: string(agent.OnBuiltin), Hinted: hinted,
	}
	agentText := rootCauseText(agent)
	agentHealthy := saysHealthy(agent.RootCause.Statement)
	switch {
	case f.Verdict == Healthy && agentHealthy:
		op.Agreement, op.Basis = incident.Agree, "both found the resource healthy"
	case f.Verdict == Healthy:
		op.Agreement, op.Basis = incident.BuiltinHealthy, "the builtin investigator found the resource healthy; the agent names a fault"
	case agentHealthy:
		op.Agreement, op.Basis = incident.Differ, "the agent found the resource healthy; the builtin investigator did not"
	case f.Verdict == Undetermined:
		op.Agreement, op.Basis = incident.BuiltinUndetermined, "no rule of the builtin investigator explains the failed checks; the agent's cause is the only one"
	case agent.OnBuiltin == report.StanceRefuted:
		op.Agreement, op.Basis = incident.Differ, "the agent refuted the builtin investigator's findings"
	case agent.OnBuiltin == report.StanceConfirmed || agent.OnBuiltin == report.StanceExtended:
		op.Agreement, op.Basis = incident.Agree, "the agent "+string(agent.OnBuiltin)+" the builtin investigator's findings"
	default:
		terms := culpritTerms(f)
		if hit := firstIn(terms, agentText); hit != "" {
			op.Agreement, op.Basis = incident.Agree, fmt.Sprintf("the agent's root cause names %s, as the builtin investigator's does", hit)
		} else {
			op.Agreement = incident.Differ
			op.Basis = "the agent's root cause names none of the builtin investigator's culprit terms"
			if len(terms) > 0 {
				op.Basis += " (" + strings.Join(terms, ", ") + ")"
			}
		}
	}
	return op
}

var healthyRe = regexp.MustCompile(`(?i)\b(?:healthy|no fault|nothing (?:is )?wrong)\b`)

func saysHealthy(statement string) bool {
	s := strings.ToLower(statement)
	return healthyRe.MatchString(s) && !strings.Contains(s, "unhealthy") && !strings.Contains(s, "not healthy")
}

// rootCauseText is what the agent's root cause says: its whole section
// when it wrote markdown.
func rootCauseText(r *report.Report) string {
	if r.Source != "" {
		if s := report.Sections(r.Source)["root cause"]; s != "" {
			return s
		}
	}
	return strings.Join([]string{r.RootCause.Statement, r.RootCause.Mechanism, r.RootCause.Culprit}, "\n")
}

var (
	termRe = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_.:/-]*[A-Za-z0-9]`)
	// symptomTerms name what any report about the fault says, whatever its
	// cause: they single out nothing.
	symptomTerms = map[string]bool{"crashloopbackoff": true, "backoff": true, "running": true, "pending": true,
		"notready": true, "containercreating": true, "error": true, "failed": true}
)

// culpritTerms are the words of the builtin's culprit (else its statement)
// that single it out: names with a separator or a digit (DATABASE_URL,
// app-config, busybox:1.36, pod/api), upper-case names (LOG_LEVEL) and
// CamelCase reasons (OOMKilled, ImagePullBackOff); not the words every
// report names (the symptom, the target itself).
func culpritTerms(f *Findings) []string {
	text := f.RootCause.Culprit
	if text == "" {
		text = f.RootCause.Statement
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range termRe.FindAllString(text, -1) {
		lw := strings.ToLower(w)
		target := strings.ToLower(f.Resource.Name)
		if seen[lw] || symptomTerms[lw] || len(w) < 3 || !singular(w) || lw == target || strings.HasSuffix(lw, "/"+target) {
			continue
		}
		seen[lw] = true
		out = append(out, w)
	}
	return out
}

func singular(w string) bool {
	if strings.ContainsAny(w, "_-.:/0123456789") {
		return true
	}
	upper, lowerThenUpper := 0, false
	for i, r := range w {
		if r >= 'A' && r <= 'Z' {
			upper++
			if i > 0 && w[i-1] >= 'a' && w[i-1] <= 'z' {
				lowerThenUpper = true
			}
		}
	}
	return upper == len(w) || lowerThenUpper
}

// firstIn is the first term the text names (case aside), "" if none.
func firstIn(terms []string, text string) string {
	lt := strings.ToLower(text)
	for _, t := range terms {
		if strings.Contains(lt, strings.ToLower(t)) {
			return t
		}
	}
	return ""
}
