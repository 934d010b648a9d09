package report

import (
	"fmt"
	"strings"
)

// amendedSource is an external agent's markdown with what kubectl-triage
// found out about it marked where it applies: each evidence item with an
// unverified claim says so, actions the safe-fix policy withheld leave
// Recommended actions for a "Not proposed" list with the reason, and a
// capped confidence is noted under Root cause. The rest is as written.
func (r *Report) amendedSource() string {
	d := outline(r.Source)
	n := len(d.lines)
	drop := make([]bool, n)
	suffix := make([]string, n)
	before := make([][]string, n+1)

	// Each unverified claim is marked on its own line, or, for a line of
	// a code block (a quoted log line), on its item's first line.
	why := map[int][]string{}
	for _, e := range r.Evidence {
		for _, c := range e.Claims {
			if c.Status != ClaimUnverified {
				continue
			}
			at := c.Line
			if at < 1 || at > n || d.fence[at-1] {
				at = e.Line
			}
			if at >= 1 && at <= n {
				why[at-1] = append(why[at-1], fmt.Sprintf("`%s` (%s)", codeSafe(c.Text), c.Basis))
			}
		}
	}
	for i, w := range why {
		mark := "⚠ _unverified by kubectl-triage: " + strings.Join(w, "; ") + "_"
		if d.fence[i] {
			before[i] = append(before[i], mark, "")
		} else {
			suffix[i] = mark
		}
	}

	if len(r.Withheld) > 0 {
		for _, w := range r.Withheld {
			if a, b := w.Action.Lines[0], w.Action.Lines[1]; a >= 1 && b <= n && a <= b {
				for i := a - 1; i < b; i++ {
					drop[i] = true
				}
			}
		}
		at := n
		if s, ok := d.section("recommended actions"); ok {
			at = s.to
			for at > s.from && strings.TrimSpace(d.lines[at-1]) == "" {
				at--
			}
		}
		before[at] = append(before[at], r.notProposed()...)
	}

	if r.ConfidenceCap != "" {
		// Under the statement, which stays the section's first line.
		if s, ok := d.section("root cause"); ok {
			at := s.from
			for at < s.to && strings.TrimSpace(d.lines[at]) == "" {
				at++
			}
			at = min(at+1, s.to)
			note := []string{"", "> **kubectl-triage:** the confidence is " + r.ConfidenceCap + "."}
			if at < n && strings.TrimSpace(d.lines[at]) != "" {
				note = append(note, "")
			}
			before[at] = append(before[at], note...)
		}
	}

	var b strings.Builder
	for i := 0; i <= n; i++ {
		for _, l := range before[i] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if i == n {
			break
		}
		if drop[i] {
			continue
		}
		l := d.lines[i]
		if suffix[i] != "" {
			if t := strings.TrimRight(l, " "); strings.HasPrefix(strings.TrimSpace(t), "|") && strings.HasSuffix(t, "|") {
				l = strings.TrimRight(strings.TrimSuffix(t, "|"), " ") + " " + suffix[i] + " |"
			} else {
				l = t + " " + suffix[i]
			}
		}
		b.WriteString(l)
		if i < n-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// notProposed lists the withheld actions, and what the policy proposes
// instead of some of them.
func (r *Report) notProposed() []string {
	out := []string{"", "### Not proposed", ""}
	for _, w := range r.Withheld {
		what := oneLine(w.Action.Description)
		if len(w.Action.Commands) > 0 {
			var cmds []string
			for _, c := range w.Action.Commands {
				cmds = append(cmds, "`"+codeSafe(c)+"`")
			}
			what = strings.TrimSpace(what + " " + strings.Join(cmds, ", "))
		}
		out = append(out, fmt.Sprintf("- %s _Withheld by kubectl-triage's safe-fix policy: %s._", what, oneLine(w.Reason)))
	}
	for _, a := range r.Actions {
		if a.Lines[0] != 0 {
			continue // the agent's own, still in place
		}
		line := "- Instead: " + oneLine(a.Description)
		for _, c := range a.Commands {
			line += " `" + codeSafe(c) + "`"
		}
		out = append(out, line)
	}
	return out
}

// codeSafe keeps a value inside one inline code span.
func codeSafe(s string) string { return strings.ReplaceAll(oneLine(s), "`", "'") }
