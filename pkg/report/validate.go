package report

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
	"regexp"
	"strings"
)

// ErrInvalid is wrapped by every validation failure.
var ErrInvalid = errors.New("invalid investigation report")

var heading = regexp.MustCompile(`^#{1,3}\s+(?P<title>.+?)\s*#*\s*$`)

// Sections splits a markdown report into its level-2/3 headed sections, keyed
// by lower-cased heading text. Text before the first heading is under "".
func Sections(md string) map[string]string {
	out := map[string]string{}
	cur := ""
	var body strings.Builder
	flush := func() {
		if _, seen := out[cur]; !seen {
			out[cur] = strings.TrimSpace(body.String())
		}
		body.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(md))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	inFence := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if m, ok := submatch.Find(heading, line); ok && !inFence && strings.HasPrefix(line, "##") {
			flush()
			cur = strings.ToLower(m.Get("title"))
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	flush()
	return out
}

// Validate reports whether md is a usable report: non-empty, with a Summary
// and a non-empty Root cause section. Any agent's output goes through it.
func Validate(md string) error {
	if strings.TrimSpace(md) == "" {
		return fmt.Errorf("%w: the report is empty", ErrInvalid)
	}
	s := Sections(md)
	if _, ok := s["summary"]; !ok {
		return fmt.Errorf("%w: no \"## Summary\" section", ErrInvalid)
	}
	rc, ok := s["root cause"]
	if !ok {
		return fmt.Errorf("%w: no \"## Root cause\" section", ErrInvalid)
	}
	if rc == "" {
		return fmt.Errorf("%w: the \"## Root cause\" section is empty", ErrInvalid)
	}
	return nil
}

var boldLead = regexp.MustCompile(`^\*\*(?P<statement>[^*]+?)\*\*(?:\s|$)`)

var trailingConfidenceRe = regexp.MustCompile(`(?i)\s*\(\s*(speculation|probable|confident|verified)\b[^)]*\)\s*$`)

var confidenceRe = regexp.MustCompile(`(?i)\b(?P<level>speculation|probable|confident|verified)\b(?:\s*\(?\s*(?P<score>0?\.\d+|1(?:\.0+)?)\)?)?`)

// rootCauseLine extracts the root-cause statement and confidence level from
// any valid report, so incident.json can carry them for external agents too.
func rootCauseLine(md string) (statement string, level Level) {
	rc := Sections(md)["root cause"]
	for _, line := range strings.Split(rc, "\n") {
		// "**cause** — more": a bold lead is the statement.
		if m, ok := submatch.Find(boldLead, strings.TrimSpace(line)); ok {
			statement = strings.TrimSpace(m.Get("statement"))
			break
		}
		// "**cause** (probable, 0.6)": the statement without its emphasis
		// and the confidence that trails it.
		if loc := trailingConfidenceRe.FindStringIndex(line); loc != nil && loc[0] > 0 {
			line = line[:loc[0]]
		}
		line = strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "*_"))
		if line != "" {
			statement = line
			break
		}
	}
	if m, ok := submatch.Find(confidenceRe, rc); ok {
		level = Level(strings.ToLower(m.Get("level")))
	}
	return statement, level
}

// Check is Validate for a report given as data: it must state a root
// cause, and its rendering must pass Validate like any agent's markdown.
func (r *Report) Check() error {
	if strings.TrimSpace(r.RootCause.Statement) == "" {
		return fmt.Errorf("%w: no root cause statement", ErrInvalid)
	}
	return Validate(r.Markdown())
}
