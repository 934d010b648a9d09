package report

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Parse reads an external agent's markdown report (DESIGN.md §7 asks for
// that structure; agents follow it more or less) into a Report. It is the
// only reader of markdown reports: the builtin agent returns its report as
// data, and external agents' reports are parsed once, by the engine.
//
// It reads the headline (the root-cause statement, also the title, its
// confidence band and score, the summary), the evidence items with the
// claims each makes (the kubectl commands, objects and log lines it
// cites), the hypotheses with their verdicts and evidence references, the
// evidence the root cause cites, the recommended actions with their
// commands, and the agent's stance on the builtin investigator's findings.
// Source keeps the markdown itself, which stays the report that is shown
// and saved; every parsed part knows its lines in it.
func Parse(md string) (*Report, error) {
	if err := Validate(md); err != nil {
		return nil, err
	}
	stmt, level := rootCauseLine(md)
	r := &Report{
		Title:           stmt,
		Summary:         Sections(md)["summary"],
		ConfidenceLevel: level,
		RootCause:       RootCause{Statement: stmt},
		Source:          md,
	}
	doc := outline(md)
	if rc, ok := doc.section("root cause"); ok {
		text := doc.text(rc)
		r.Confidence = scoreOf(text)
		r.RootCause.Evidence = evidenceRefs(text)
	}
	if ev, ok := doc.section("evidence"); ok {
		r.Evidence = doc.evidence(ev)
	}
	if hy, ok := doc.section("hypotheses"); ok {
		r.Hypotheses = doc.hypotheses(hy)
	}
	if ac, ok := doc.section("recommended actions"); ok {
		r.Actions = doc.actions(ac)
	}
	if bf, ok := doc.section("builtin findings"); ok {
		r.OnBuiltin = stanceOf(doc.text(bf))
	}
	return r, nil
}

var scoreRe = regexp.MustCompile(`(?i)\b(?:speculation|probable|confident|verified|confidence)\b[\s,:(*]*(?P<score>0?\.\d+|1(?:\.0+)?)\b`)

// scoreOf is the first confidence score a text gives next to a band or the
// word confidence ("(probable, 0.65)", "Confidence: 0.8"), 0 when none.
func scoreOf(text string) float64 {
	if m, ok := submatch.Find(scoreRe, text); ok {
		if v, err := strconv.ParseFloat(m.Get("score"), 64); err == nil && v >= 0 && v <= 1 {
			return v
		}
	}
	return 0
}

// doc is a report's lines and where its level-2 sections are.
type doc struct {
	lines    []string
	fence    []bool // the line is inside a code fence, or is a fence line
	sections []span
}

// span is a section: its heading line and body lines [from, to) (0-based).
type span struct {
	key      string
	head     int
	from, to int
}

func outline(md string) *doc {
	d := &doc{lines: strings.Split(md, "\n")}
	d.fence = make([]bool, len(d.lines))
	in := false
	for i, l := range d.lines {
		isFence := strings.HasPrefix(strings.TrimSpace(l), "```")
		d.fence[i] = in || isFence
		if isFence {
			in = !in
			continue
		}
		if in || !strings.HasPrefix(l, "## ") {
			continue
		}
		if m, ok := submatch.Find(heading, l); ok {
			if n := len(d.sections); n > 0 {
				d.sections[n-1].to = i
			}
			d.sections = append(d.sections, span{key: strings.ToLower(m.Get("title")), head: i, from: i + 1, to: len(d.lines)})
		}
	}
	return d
}

// section is the first section whose heading starts with key.
func (d *doc) section(key string) (span, bool) {
	for _, s := range d.sections {
		if strings.HasPrefix(s.key, key) {
			return s, true
		}
	}
	return span{}, false
}

func (d *doc) text(s span) string { return strings.Join(d.lines[s.from:s.to], "\n") }

// item is one list item, table row or paragraph of a section: lines
// [from, to), 0-based.
type item struct{ from, to int }

var (
	listItem = regexp.MustCompile(`^ {0,3}(?:[-*+]|\d{1,3}[.)])\s+\S`)
	tableSep = regexp.MustCompile(`^\s*\|?\s*:?-{2,}`)
	subHead  = regexp.MustCompile(`^#{3,6}\s`)
)

// items splits lines [from, to) into top-level items: a list item with
// what is indented or fenced under it, a table row, or a paragraph.
// Headings and blank lines end an item but belong to none.
func (d *doc) items(from, to int) []item {
	var out []item
	cur := -1
	end := func(i int) {
		if cur >= 0 {
			out = append(out, item{cur, i})
			cur = -1
		}
	}
	for i := from; i < to; i++ {
		l := d.lines[i]
		trimmed := strings.TrimSpace(l)
		switch {
		case d.fence[i]:
			if cur < 0 {
				cur = i // a block of its own, unless it follows an item
				if n := len(out); n > 0 && blankBetween(d.lines, out[n-1].to, i) {
					cur, out = out[n-1].from, out[:n-1]
				}
			}
		case trimmed == "":
			// A blank line ends a paragraph or a row, not a list item
			// whose body (an indented or fenced block) follows.
			if cur >= 0 && !listItem.MatchString(d.lines[cur]) {
				end(i)
			}
		case subHead.MatchString(l):
			end(i)
		case strings.HasPrefix(trimmed, "|"):
			end(i)
			if !tableSep.MatchString(trimmed) && !isTableHeader(d.lines, i, to) {
				out = append(out, item{i, i + 1})
			}
		case listItem.MatchString(l):
			end(i)
			cur = i
		case cur >= 0 && listItem.MatchString(d.lines[cur]) && !startsIndented(l) && i > 0 && strings.TrimSpace(d.lines[i-1]) == "":
			// An unindented paragraph after a blank line leaves the list.
			end(i)
			cur = i
		case cur < 0:
			cur = i
		}
	}
	end(to)
	return out
}

// blankBetween: only blank lines in [from, to), so a code block there
// belongs to the item before it ("Tool result 1:", then its output).
func blankBetween(lines []string, from, to int) bool {
	for i := from; i < to; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			return false
		}
	}
	return true
}

func startsIndented(l string) bool { return strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "\t") }

// isTableHeader: the row is followed by the |---| separator.
func isTableHeader(lines []string, i, to int) bool {
	return i+1 < to && tableSep.MatchString(strings.TrimSpace(lines[i+1]))
}

var (
	evidenceID  = regexp.MustCompile(`\bE\d{1,3}\b`)
	leadingMark = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,3}[.)])?\s*(?:\|\s*)?(?:\*\*|__)?\s*`)
	sourceLabel = regexp.MustCompile(`(?i)_?\*{0,2}source:?\*{0,2}_?:?\s*`)
)

// evidence reads the Evidence section: one item per list item, table row or
// paragraph, with its ID (E1…) when it has one and the claims it makes.
func (d *doc) evidence(s span) []Evidence {
	var out []Evidence
	for _, it := range d.items(s.from, s.to) {
		first := d.firstText(it)
		if first < 0 {
			continue
		}
		e := Evidence{Line: first + 1, Claims: d.claims(it)}
		head := d.lines[first]
		if m := evidenceID.FindStringIndex(head); m != nil && m[0] <= len(leadingMark.FindString(head))+2 {
			e.ID = head[m[0]:m[1]]
		}
		fact := strings.TrimSpace(leadingMark.ReplaceAllString(head, ""))
		fact = strings.TrimSpace(strings.Trim(strings.TrimPrefix(fact, e.ID), "*_:|—- "))
		if loc := sourceLabel.FindStringIndex(fact); loc != nil {
			e.Source = strings.TrimSpace(fact[loc[1]:])
			fact = strings.TrimSpace(fact[:loc[0]])
		}
		for _, l := range d.lines[first+1 : it.to] {
			if loc := sourceLabel.FindStringIndex(l); loc != nil && e.Source == "" {
				e.Source = strings.TrimSpace(l[loc[1]:])
			}
		}
		e.Fact = fact
		for _, c := range e.Claims {
			if c.Kind == ClaimCommand {
				e.Command = c.Text
				break
			}
		}
		if len(e.Claims) == 0 && e.ID == "" && e.Fact == "" {
			continue
		}
		out = append(out, e)
	}
	return out
}

// firstText is the item's first line that is not a fence, -1 if none.
func (d *doc) firstText(it item) int {
	for i := it.from; i < it.to; i++ {
		if !d.fence[i] && strings.TrimSpace(d.lines[i]) != "" {
			return i
		}
	}
	if it.from < it.to {
		return it.from
	}
	return -1
}

// evidenceRefs lists the evidence IDs a text cites, once each, in order.
func evidenceRefs(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range evidenceID.FindAllString(text, -1) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// hypotheses reads the Hypotheses table (or list): a statement, a verdict
// and the evidence cited.
func (d *doc) hypotheses(s span) []Hypothesis {
	var out []Hypothesis
	for _, it := range d.items(s.from, s.to) {
		text := strings.Join(d.lines[it.from:it.to], "\n")
		v := verdictOf(text)
		if v == "" {
			continue
		}
		stmt := text
		if strings.HasPrefix(strings.TrimSpace(text), "|") {
			cells := strings.Split(strings.Trim(strings.TrimSpace(text), "|"), "|")
			stmt = cells[0]
		}
		h := Hypothesis{Statement: strings.TrimSpace(strings.Trim(leadingMark.ReplaceAllString(stmt, ""), "*_ ")), Verdict: v, Evidence: evidenceRefs(text)}
		if h.Confidence = scoreOf(text); h.Confidence == 0 {
			if m, ok := submatch.Find(bareScore, text); ok {
				h.Confidence, _ = strconv.ParseFloat(m.Get("score"), 64)
			}
		}
		out = append(out, h)
	}
	return out
}

var (
	verdictRe = regexp.MustCompile(`(?i)\b(?P<verdict>validated|confirmed|refuted|rejected|ruled out|inconclusive|unconfirmed|open)\b`)
	bareScore = regexp.MustCompile(`\|\s*(?P<score>0?\.\d+|1(?:\.0+)?)\s*\|`)
)

func verdictOf(text string) Verdict {
	m, ok := submatch.Find(verdictRe, text)
	if !ok {
		return ""
	}
	switch strings.ToLower(m.Get("verdict")) {
	case "validated", "confirmed":
		return Validated
	case "refuted", "rejected", "ruled out":
		return Refuted
	}
	return Inconclusive
}

var stanceRe = regexp.MustCompile(`(?i)\bverdict\s*:?\s*\**\s*(?P<stance>confirmed|refuted|extended)\b`)

var stanceWord = regexp.MustCompile(`(?i)\b(?P<word>confirm|refut|extend)`)

// stanceOf reads "Verdict: confirmed|refuted|extended" (the form PROMPT.md
// asks for), else the first of those words the section uses.
func stanceOf(text string) Stance {
	if m, ok := submatch.Find(stanceRe, text); ok {
		return Stance(strings.ToLower(m.Get("stance")))
	}
	if m, ok := submatch.Find(stanceWord, text); ok {
		switch strings.ToLower(m.Get("word")) {
		case "confirm":
			return StanceConfirmed
		case "refut":
			return StanceRefuted
		default:
			return StanceExtended
		}
	}
	return ""
}

// actions reads the Recommended actions section: each list item (or a
// code block standing alone) is an action, of the kind its subsection
// names, with the commands of its code blocks and inline code.
func (d *doc) actions(s span) []Action {
	var out []Action
	kind := Immediate
	var bounds []int // subsection headings
	for i := s.from; i < s.to; i++ {
		if !d.fence[i] && subHead.MatchString(d.lines[i]) {
			bounds = append(bounds, i)
		}
	}
	bounds = append(bounds, s.to)
	start := s.from
	for _, b := range bounds {
		if kind == notProposed {
			start = b + 1
			if b < s.to {
				kind = actionKindOf(d.lines[b])
			}
			continue
		}
		for _, it := range d.items(start, b) {
			a := Action{Kind: kind, Lines: [2]int{it.from + 1, it.to}}
			if first := d.firstText(it); first >= 0 && !d.fence[first] {
				a.Description = strings.TrimSpace(leadingMark.ReplaceAllString(d.lines[first], ""))
			}
			a.Commands = d.commands(it)
			for a.Lines[1] > a.Lines[0] && strings.TrimSpace(d.lines[a.Lines[1]-1]) == "" {
				a.Lines[1]--
			}
			if a.Description == "" && len(a.Commands) == 0 {
				continue
			}
			out = append(out, a)
		}
		if b < s.to {
			kind = actionKindOf(d.lines[b])
			start = b + 1
		}
	}
	return out
}

// notProposed marks the "Not proposed" list kubectl-triage adds: its
// items are no actions (a report it amended parses back the same).
const notProposed ActionKind = "not-proposed"

func actionKindOf(heading string) ActionKind {
	h := strings.ToLower(heading)
	switch {
	case strings.Contains(h, "not proposed"):
		return notProposed
	case strings.Contains(h, "long"), strings.Contains(h, "prevent"), strings.Contains(h, "permanent"):
		return LongTerm
	case strings.Contains(h, "check"), strings.Contains(h, "next"), strings.Contains(h, "investigat"):
		return Check
	}
	return Immediate
}

// commands are an item's command lines: each line of its code blocks
// (without a "$ " prompt or a comment) and its inline code that starts
// with kubectl.
func (d *doc) commands(it item) []string {
	var out []string
	for i := it.from; i < it.to; i++ {
		l := strings.TrimSpace(d.lines[i])
		if d.fence[i] {
			if strings.HasPrefix(l, "```") || l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			out = append(out, strings.TrimPrefix(l, "$ "))
			continue
		}
		for _, code := range inlineCode(d.lines[i]) {
			if strings.HasPrefix(code, "kubectl ") {
				out = append(out, code)
			}
		}
	}
	return out
}

var inlineCodeRe = regexp.MustCompile("`(?P<code>[^`\n]+)`")

func inlineCode(line string) []string {
	var out []string
	for _, m := range submatch.FindAll(inlineCodeRe, line, -1) {
		out = append(out, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m.Get("code")), "$ ")))
	}
	return out
}
