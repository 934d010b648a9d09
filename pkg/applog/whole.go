package applog

import (
	"regexp"
	"slices"
	"strings"
)

// Multi-line errors whose fact is on the lines after the first: a
// decoder's error list under its header ("yaml: unmarshal errors:" then
// "  line 44: field enabled not found in type aggregation.Config"), a
// wrapped multi-error's "* " items after a blank line, a Java exception
// message that goes on over several lines before its frames (Flyway's
// "Validate failed: …" / "Detected applied migration not resolved
// locally: 14."), PostgreSQL's DETAIL and HINT lines under an ERROR or
// FATAL, pydantic's per-field list under "N validation errors for X". The
// event keeps those lines, and its headline carries them in one line.

var (
	// A header that announces a list of errors on the following lines.
	listHeaderRe = regexp.MustCompile(`(?i)(?:errors?(?:\(s\))?(?: occurred| decoding| found)?|unmarshal errors|validation errors? for \w+|failed validation|errors? in (?:config|configuration)\S*|invalid configuration|configuration is invalid)\s*:\s*$`)
	// Node's util.inspect of an error object under a header: "{ Error: …".
	nodeObjRe = regexp.MustCompile(`^\{ (?:[A-Z]\w*)?(?:Error|Exception)(?: \[[A-Z_0-9]+\])?: `)
	// PostgreSQL's continuation records: "2025-10-02 08:49:24 UTC [1] DETAIL:  …".
	pgContRe = regexp.MustCompile(`\b(?:DETAIL|HINT):\s`)
	pgHeadRe = regexp.MustCompile(`\b(?:ERROR|FATAL|PANIC):\s`)
	// A record of its own: a line that starts with a date (logback, log4j,
	// PostgreSQL, Python logging) or a bracketed date.
	datedRe = regexp.MustCompile(`^\[?\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}`)
	// pydantic's validation list: "3 validation errors for Settings".
	pydanticHeadRe = regexp.MustCompile(`\d+ validation errors? for \w+`)
)

// maxItems bounds the lines a headline takes from a list, and maxItem the
// characters of each: a "valid values: [...]" list runs to hundreds.
const (
	maxItems = 6
	maxItem  = 240
)

// extendsEvent reports where the event that started at line i and reaches
// end (exclusive) really ends, for the shapes above; end when none applies.
func (p *parser) extendsEvent(i, end int, r record) int {
	if end >= len(p.lines) {
		return end
	}
	first := strings.TrimSpace(p.lines[i])
	last := strings.TrimSpace(p.lines[end-1])
	next := p.lines[end]
	nt := strings.TrimSpace(next)
	// Cheap tests first: this runs at the end of every event.
	switch {
	// PostgreSQL: DETAIL/HINT records under an ERROR/FATAL one.
	case (strings.Contains(nt, "DETAIL:") || strings.Contains(nt, "HINT:")) && pgHeadRe.MatchString(first) && pgContRe.MatchString(nt) && !pgHeadRe.MatchString(nt):
		return end + 1
	// A list header, a blank line, then "* item" lines (hashicorp
	// go-multierror, mapstructure): the items belong to the header.
	case nt == "" && strings.HasSuffix(last, ":") && listHeaderRe.MatchString(last):
		k := nextNonBlank(p.lines, end)
		if k < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[k]), "* ") {
			return k
		}
	case strings.HasPrefix(nt, "* ") && listHeaderRe.MatchString(listHead(p.lines[i:end])):
		return end + 1
	// A Java exception's message continues over unindented lines up to
	// its frames: take them when a frame (or the next cause) follows
	// within a few lines and nothing between starts a record.
	case nt != "" && mayBeException(p.lines[i:end]) && javaMessageHead(p.lines[i:end]) && !startsRecord(nt) && !datedRe.MatchString(nt):
		for k := end; k < len(p.lines) && k < end+8; k++ {
			l := p.lines[k]
			lt := strings.TrimSpace(l)
			if javaFrameRe.MatchString(l) || strings.HasPrefix(lt, "Caused by: ") {
				return k
			}
			if lt == "" || startsRecord(lt) || datedRe.MatchString(lt) || l[0] == ' ' || l[0] == '\t' {
				break
			}
		}
		// A dated record (logback's pattern) whose message goes on over
		// undated lines, up to the next dated record.
		if datedRe.MatchString(first) && r.level >= LevelWarn {
			k := end
			for k < len(p.lines) && k < end+8 {
				lt := strings.TrimSpace(p.lines[k])
				if lt == "" || startsRecord(lt) || datedRe.MatchString(lt) {
					break
				}
				k++
			}
			if k < len(p.lines) && datedRe.MatchString(strings.TrimSpace(p.lines[k])) {
				return k
			}
		}
	}
	return end
}

// mayBeException: the block's first or last line names an exception
// class, which every Java exception line does.
func mayBeException(block []string) bool {
	for _, l := range []string{block[0], block[len(block)-1]} {
		if strings.Contains(l, "Exception") || strings.Contains(l, "Error") || strings.Contains(l, "Throwable") || strings.Contains(l, "Failure") || strings.Contains(l, "Fault") {
			return true
		}
	}
	return false
}

// listHead is the header a run of "* " items hangs under: the last line
// before them.
func listHead(block []string) string {
	for k := len(block) - 1; k >= 0; k-- {
		lt := strings.TrimSpace(block[k])
		if lt != "" && !strings.HasPrefix(lt, "* ") {
			return lt
		}
	}
	return ""
}

// javaMessageHead: the block's exception line (its first line, or its
// last "Caused by:") is a Java exception whose message may continue.
func javaMessageHead(block []string) bool {
	for k := len(block) - 1; k >= 0; k-- {
		lt := strings.TrimSpace(block[k])
		if strings.HasPrefix(lt, "Caused by: ") {
			return k == len(block)-1 || !javaFrameRe.MatchString(block[len(block)-1]) && javaExcRe.MatchString(lt)
		}
	}
	lt := strings.TrimSpace(block[0])
	if len(block) == 1 {
		if javaExcRe.MatchString(lt) {
			return true
		}
		// A logback record ending in an exception's message: "… : msg:
		// org.x.SomeException: …".
		return datedRe.MatchString(lt) && strings.Contains(lt, "Exception: ")
	}
	return false
}

// wholeHeadline is the event's headline with the lines that finish its
// fact: the continuation of the headline's message, or the items under a
// list header. "" when the block has nothing to add.
func wholeHeadline(block []string, head string, lvl Level) string {
	if head != "" {
		return continued(block, head)
	}
	if len(block) < 2 {
		return ""
	}
	first := strings.TrimSpace(block[0])
	switch {
	case pgHeadRe.MatchString(first):
		parts := []string{first}
		for _, l := range block[1:] {
			if lt := strings.TrimSpace(l); pgContRe.MatchString(lt) {
				parts = append(parts, lt[pgContRe.FindStringIndex(lt)[0]:])
			}
		}
		if len(parts) > 1 {
			return joinItems(parts)
		}
	case javaMessageHead(block[:1]) && !javaFrameRe.MatchString(block[1]):
		return continued(block, first)
	// A header that announces a list, or any error record ending in a
	// colon: what follows is what it is about.
	case listHeaderRe.MatchString(first) || strings.HasSuffix(first, ":") && lvl >= LevelWarn:
		parts := []string{first}
		for _, l := range block[1:] {
			lt := strings.TrimSpace(l)
			if lt == "" || frameRe.MatchString(l) || javaFrameRe.MatchString(l) || strings.Trim(lt, "-=*") == "" {
				continue
			}
			if nodeObjRe.MatchString(lt) {
				// The error object's own message is the item; its fields
				// (code, errno, sqlMessage) repeat it.
				return first + " " + strings.TrimPrefix(lt, "{ ")
			}
			parts = append(parts, lt)
			if len(parts) > maxItems {
				break
			}
		}
		if len(parts) > 1 {
			return joinItems(parts)
		}
	}
	return ""
}

// continued appends to head the lines right after it in block that go on
// with its message: unindented lines that are neither frames nor another
// exception of the chain, and (pydantic) a field list.
func continued(block []string, head string) string {
	at := -1
	for k, l := range block {
		lt := strings.TrimSpace(l)
		if lt == head || strings.TrimPrefix(lt, "Caused by: ") == head || strings.HasSuffix(lt, head) {
			at = k // the last one: a chain repeats messages
		}
	}
	if at < 0 {
		return ""
	}
	if pydanticHeadRe.MatchString(head) {
		return pydanticList(block[at+1:], head)
	}
	parts := []string{head}
	for _, l := range block[at+1:] {
		lt := strings.TrimSpace(l)
		if lt == "" || l[0] == ' ' || l[0] == '\t' || javaFrameRe.MatchString(l) || strings.HasPrefix(lt, "Caused by: ") || strings.HasPrefix(lt, "Traceback (") || pyChainRe.MatchString(lt) {
			break
		}
		parts = append(parts, lt)
		if len(parts) > maxItems {
			break
		}
	}
	if len(parts) == 1 {
		return ""
	}
	return joinItems(parts)
}

// pydanticList reads pydantic's errors: each location unindented, its
// message indented under it ("encryption_key" / "  Field required
// [type=missing, …]").
func pydanticList(lines []string, head string) string {
	parts := []string{head}
	for k := 0; k < len(lines) && len(parts) <= maxItems; k++ {
		l := lines[k]
		if strings.TrimSpace(l) == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		loc := strings.TrimSpace(l)
		if k+1 < len(lines) && len(lines[k+1]) > 0 && (lines[k+1][0] == ' ' || lines[k+1][0] == '\t') {
			msg := strings.TrimSpace(lines[k+1])
			if j := strings.Index(msg, " [type="); j > 0 {
				msg = msg[:j]
			} else if j := strings.Index(msg, " (type="); j > 0 {
				msg = msg[:j]
			}
			loc += ": " + msg
		}
		parts = append(parts, loc)
	}
	if len(parts) == 1 {
		return ""
	}
	return parts[0] + ": " + strings.Join(parts[1:], "; ")
}

// pydanticEnd is where pydantic's field list under a traceback's last line
// ends: location lines, each followed by its indented message.
func pydanticEnd(lines []string, end int) int {
	for end < len(lines) {
		l := lines[end]
		if strings.TrimSpace(l) == "" {
			return end
		}
		if l[0] == ' ' || l[0] == '\t' {
			end++
			continue
		}
		if end+1 < len(lines) && len(lines[end+1]) > 0 && (lines[end+1][0] == ' ' || lines[end+1][0] == '\t') && !startsRecord(l) && !datedRe.MatchString(l) {
			end++
			continue
		}
		return end
	}
	return end
}

// joinItems is a header and its items in one line, each item bounded.
func joinItems(parts []string) string {
	for k := range parts {
		if k > 0 && len(parts[k]) > maxItem {
			parts[k] = parts[k][:maxItem] + "…"
		}
	}
	return strings.Join(parts, " ")
}

// errLine is a structured record's error field in one line: its first
// line, with the items of a list it announces ("1 error(s) decoding:\n\n*
// error decoding 'receivers': …").
func errLine(s string) string {
	first := firstLine(s)
	if !listHeaderRe.MatchString(first) {
		if listedLater(s) {
			return valueLine(s)
		}
		return first
	}
	parts := []string{first}
	for _, l := range strings.Split(s, "\n")[1:] {
		lt := strings.TrimSpace(l)
		if lt == "" {
			continue
		}
		if !strings.HasPrefix(lt, "* ") {
			break
		}
		parts = append(parts, lt)
		if len(parts) > maxItems {
			break
		}
	}
	return joinItems(parts)
}

// goFrameFileRe is the file line of a Go stack frame as
// github.com/pkg/errors' %+v prints it: a tab, the path, the line.
var goFrameFileRe = regexp.MustCompile(`^\t\S+\.(?:go|s):\d+(?: \+0x[0-9a-f]+)?$`)

// fieldErr is a logfmt or klog error value in one line. A value printed
// with github.com/pkg/errors' %+v (Thanos, Cortex, Loki: each message of
// the chain, innermost first, then its stack, a function line and a file
// line per frame) reads as the chain %v prints, outermost first. A list
// reads as errLine reads it. Any other multi-line value (Prometheus'
// "parse Prometheus config: " then the YAML it read, then ":
// scrape_protocols: unknown scrape protocol …") keeps its first lines and
// its last, where a wrapped error puts its innermost cause.
func fieldErr(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	var msgs []string
	framed := false
	for k, l := range lines {
		switch {
		case goFrameFileRe.MatchString(l):
			framed = true
		case k+1 < len(lines) && goFrameFileRe.MatchString(lines[k+1]): // the frame's function
		case strings.TrimSpace(l) != "":
			msgs = append(msgs, strings.TrimSpace(l))
		}
	}
	if framed {
		slices.Reverse(msgs)
		return strings.Join(msgs, ": ")
	}
	if listHeaderRe.MatchString(firstLine(s)) || listedLater(s) {
		return errLine(s)
	}
	if len(msgs) > maxItems {
		msgs = append(msgs[:maxItems-1:maxItems-1], "…", msgs[len(msgs)-1])
	}
	return joinItems(msgs)
}
