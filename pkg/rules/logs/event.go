package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// refine reads the rest of an event when its line says too little. An
// entrypoint's error paragraph names the variable on its second line
// ("Error: Database is uninitialized …" then "You must specify
// POSTGRES_PASSWORD …"): the event's lines joined are its line. A crash
// report's root cause is often the innermost exception ("SocketException
// (111): Connection refused") while an outer one names what it was about
// ("Failed to connect to 10.96.0.55:5432", "Failed to bind to address
// http://[::]:8080"): an outer line of the same class that names its subject
// is the better line.
func refine(ev *applog.Event, line string, p *Pattern) (string, *Pattern) {
	if ev.Trace == "" && len(ev.Raw) > 1 && (p == nil || p.Generic()) {
		joined := joinLines(ev.Raw)
		if q := classify(joined, false); q != nil && (p == nil || q.Priority > p.Priority) {
			return joined, q
		}
	}
	if ev.Trace == "" && p != nil && len(ev.Raw) > 1 {
		if quoted := quoteSubject(ev.Raw, p, line); quoted != "" {
			return quoted, p
		}
	}
	if p == nil || p.Generic() || SubjectOf(p.Class, line) != "" {
		return line, p
	}
	for _, alt := range eventLines(ev) {
		if alt == line {
			continue
		}
		if q := classify(alt, false); q == p && SubjectOf(q.Class, alt) != "" {
			return alt, p
		}
	}
	return line, p
}

// quoteSubject: when a row knows what its headline is about without the
// headline saying it (the postgres image's "superuser password is not
// specified" is about POSTGRES_PASSWORD), the paragraph's lines up to the one
// naming it, so the quoted evidence shows it; "" when no short prefix does.
func quoteSubject(raw []string, p *Pattern, line string) string {
	subject := SubjectOf(p.Class, line)
	fields := strings.Fields(subject)
	if len(fields) == 0 {
		return ""
	}
	name := fields[len(fields)-1]
	if strings.Contains(line, name) || !strings.Contains(line, strings.TrimSpace(raw[0])) {
		return ""
	}
	for n := 2; n <= len(raw) && n <= 6; n++ {
		joined := joinLines(raw[:n])
		if len(joined) > 600 {
			return ""
		}
		if strings.Contains(joined, name) {
			// Finish the sentence the name is in (entrypoints wrap theirs).
			for m := n + 1; m <= len(raw) && m <= n+2 && !strings.HasSuffix(joined, "."); m++ {
				joined = joinLines(raw[:m])
			}
			return joined
		}
	}
	return ""
}

// joinLines is a paragraph's lines in one line.
func joinLines(raw []string) string {
	parts := make([]string, 0, len(raw))
	for _, l := range raw {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// eventLines are the lines of an event other than its headline: the
// message and error fields and each exception of its chain, without stack
// frames.
func eventLines(ev *applog.Event) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	add(ev.Error)
	if ev.Message != "" && ev.Error != "" {
		add(ev.Message + ": " + ev.Error)
	}
	add(ev.Message)
	for _, l := range ev.Raw {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "{") || frameLineRe.MatchString(l) {
			continue
		}
		add(strings.TrimPrefix(strings.TrimPrefix(l, "---> "), "Caused by: "))
	}
	return out
}

// frameLineRe is a stack frame of the JVM, .NET, Python or Go.
var frameLineRe = regexp.MustCompile(`^(at |File "|--- End of|\.\.\. \d+ more)|^/\S+\.go:\d+`)
