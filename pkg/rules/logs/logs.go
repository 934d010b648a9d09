// Package logs classifies container log lines: the decisive line that says
// why a process exited (a missing variable, a refused connection, a panic)
// and what it is about.
package logs

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// LastDecisive returns the most telling line of a container's logs, from
// the previous instance first: it is the one that died.
func LastDecisive(c *rule.Pass, p *corev1.Pod, container string) (*Decisive, bool) {
	cur, prev := c.B.LogsFor(p.Name, container)
	for _, l := range []struct {
		entry *bundle.ContainerLog
		prev  bool
	}{{prev, true}, {cur, false}} {
		if l.entry == nil || l.entry.Error != "" {
			continue
		}
		if d := FindDecisive(l.entry.Text); d != nil {
			return d, l.prev
		}
	}
	return nil, false
}

// Decisive is a matched log line.
type Decisive struct {
	Pattern *Pattern
	Line    string    // without the timestamp prefix
	Time    time.Time // from the kubelet's timestamp prefix, when present
	// Subject is what the line is about (SubjectOf), or what its event
	// names when the line itself does not: the endpoint an outer
	// exception names above a bare "Connection refused" cause.
	Subject string
	// Entities are what the whole event names, stack frames aside.
	Entities applog.Entities
	Raw      string // the event's lines, stack frames included
	ev       *applog.Event
}

// FindDecisive returns a log tail's most telling line. The log component
// (pkg/applog) reads the records: the kubelet's timestamps, JSON and logfmt
// fields ("msg: error"), klog headers, and multi-line crash reports as one
// event whose line is the root cause (the innermost "Caused by:", the
// exception ending a Python traceback, the "panic:" line). A record its own
// logger calls INFO or DEBUG is never the cause, whatever its words. Among
// the rest the most specific pattern wins; among equals, the last (closest
// to the exit). When nothing specific matched, the component's own ranking
// (severity, last words before the exit, repetition) picks the line.
func FindDecisive(text string) *Decisive {
	log := applog.Parse(text)
	// A warning is a candidate only when no error states a specific cause:
	// zap's {"level":"warn","msg":"SESSION_TTL not set, using default"}
	// is handled by the application, the fatal record after it is not. It
	// still explains a generic error (Kafka's repeated "Connection to node
	// -1 … could not be established" before a TimeoutException).
	var best, bestWarn, denied *Decisive
	var dirs []string
	for i := len(log.Events) - 1; i >= 0; i-- {
		ev := &log.Events[i]
		if ev.Level >= applog.LevelTrace && ev.Level <= applog.LevelInfo || ev.Hint {
			continue
		}
		line := strings.TrimSpace(ev.Text())
		if line == "" || strings.HasPrefix(line, "#") && ev.Trace == "" {
			continue
		}
		line, p := refine(ev, line, classify(line, ev.Trace != ""))
		if p == nil {
			continue
		}
		if p.Class == PermissionDenied {
			if denied == nil || SubjectOf(p.Class, denied.Line) == "" && SubjectOf(p.Class, line) != "" {
				denied = newDecisive(p, line, ev)
			}
			dirs = append(dirs, deniedDirs(line)...)
		}
		slot := &best
		if ev.Level == applog.LevelWarn && !ev.Implied {
			slot = &bestWarn
		}
		// Among lines of equal weight the last wins, unless only an earlier
		// one names what it is about (the endpoint, the port), or the last
		// only repeats an earlier line's detail (Envoy's "error initializing
		// configuration '/etc/envoy.yaml': <detail>", then the detail).
		if *slot == nil || p.Priority > (*slot).Pattern.Priority ||
			p.Priority == (*slot).Pattern.Priority && SubjectOf(p.Class, (*slot).Line) == "" && SubjectOf(p.Class, line) != "" ||
			p.Priority >= (*slot).Pattern.Priority && len(line) > len((*slot).Line) && strings.Contains(line, (*slot).Line) {
			*slot = newDecisive(p, line, ev)
		}
	}
	if bestWarn != nil && (best == nil || best.Pattern.Priority < specific && bestWarn.Pattern.Priority > best.Pattern.Priority ||
		// The same failure, which only the warning names (Kafka warns
		// "… DNS resolution failed for kafka-headless" before its error
		// "No resolvable bootstrap urls").
		bestWarn.Pattern == best.Pattern && best.Subject == "" && bestWarn.Subject != "") {
		best = bestWarn
	}
	if best == nil || best.Pattern.Generic() {
		ds := log.Decisive(applog.Options{Max: 3})
		// A crash report cut before the line that names its cause says
		// nothing: the next record does.
		ds = slices.DeleteFunc(ds, func(d applog.Decisive) bool { return strings.TrimSpace(d.Text) == "" })
		if len(ds) > 0 {
			p := classify(ds[0].Text, ds[0].Event.Trace != "")
			if (p == nil || p.Generic()) && declaredError(ds[0].Event) {
				p = declared
			}
			if p != nil {
				return subprocessCause(log, newDecisive(p, ds[0].Text, ds[0].Event))
			}
		}
	}
	return deniedBeforeMissing(subprocessCause(log, best), denied, dirs)
}

// specific is the priority from which a class names a cause (a variable,
// a file, a dependency) rather than a crash or an error word.
const specific = 70

// declaredError: a structured record its logger calls error or fatal, or
// any record declared fatal.
func declaredError(ev *applog.Event) bool {
	if ev.Implied {
		return false
	}
	return ev.Level == applog.LevelFatal || ev.Level == applog.LevelError && ev.Format != applog.FormatPlain
}

func newDecisive(p *Pattern, line string, ev *applog.Event) *Decisive {
	d := &Decisive{Pattern: p, Line: line, Time: ev.Time, Subject: SubjectOf(p.Class, line), Entities: ev.Entities(), Raw: strings.Join(ev.Raw, "\n"), ev: ev}
	if d.Subject == "" && p.def.Dependency {
		if ep := d.Entities.Endpoints; len(ep) > 0 {
			d.Subject = ep[0]
		} else if h := d.Entities.Unresolved; len(h) > 0 {
			d.Subject = "host " + h[0]
		}
	}
	if d.Subject == "" && p.def.PeerHost {
		if h := d.Entities.Hosts; len(h) > 0 {
			d.Subject = "host " + h[0]
		}
	}
	return d
}

// LastWords returns what a container printed last before exiting (the
// previous instance first: it is the one that exited): its decisive line
// when it has one, else its last record. The log component groups crash
// reports and strips the kubelet's timestamps.
func LastWords(c *rule.Pass, p *corev1.Pod, container string) (string, bool) {
	cur, prev := c.B.LogsFor(p.Name, container)
	for _, l := range []struct {
		entry *bundle.ContainerLog
		prev  bool
	}{{prev, true}, {cur, false}} {
		if l.entry == nil || l.entry.Error != "" {
			continue
		}
		if d := FindDecisive(l.entry.Text); d != nil && !d.Pattern.Generic() {
			return d.Line, l.prev
		}
		if w := applog.Parse(l.entry.Text).LastWords(1); len(w) == 1 {
			return strings.TrimSpace(w[0].Text()), l.prev
		}
	}
	return "", false
}

// classify returns the most specific pattern a line matches: the first
// row of the catalogue it matches, by its expression, its class's signals
// or Also, or (a crash report's root-cause line) the Crash class.
func classify(line string, crash bool) *Pattern {
	sigs := applog.Signals(line)
	var best *Pattern
	wordsOnly := false // best matched by its expression alone
	for _, p := range catalogue {
		d := p.def
		if d.Crash && crash || d.hasSignal(sigs) || d.Also != nil && d.Also(line) {
			// A row with its own wording is the class's only when the line
			// has that wording; a line with a row's wording gets that row
			// even when it came in by the class's signal; otherwise the
			// signal yields the class's own row (its first).
			best = p
			if p.re == nil || !p.re.MatchString(line) {
				best = rowOf(d, line)
			}
			break
		}
		if p.re != nil && p.re.MatchString(line) {
			best, wordsOnly = p, true
			break
		}
	}
	if best == nil {
		return nil
	}
	// The log component knows each runtime's wording; an older expression
	// that matched words only ("host not found in upstream \"netbox\" in
	// /etc/nginx/nginx.conf:21" holds "not found" and ".conf") yields to
	// the class of the line's most specific signal.
	if wordsOnly && best.def.BroadWords {
		if p := signalPattern(sigs); p != nil {
			best = p
		}
	}
	if best.def.Instead != nil {
		if c := best.def.Instead(line); c != "" {
			best = patternOf(c)
		}
	}
	return best
}

// rowOf is the row of d whose own wording a line has (the server's reason
// among a class's rows), else the class's own row.
func rowOf(d *Def, line string) *Pattern {
	var yielding *Pattern
	for i := range d.Patterns {
		if d.Patterns[i].re != nil && d.Patterns[i].re.MatchString(line) {
			if d.Patterns[i].yields {
				if yielding == nil {
					yielding = &d.Patterns[i]
				}
				continue
			}
			return &d.Patterns[i]
		}
	}
	if yielding != nil {
		return yielding
	}
	return &d.Patterns[0]
}

// signalPattern is the class of a line's most specific signal that has one.
func signalPattern(sigs []applog.Signal) *Pattern {
	for _, sig := range sigs {
		if d := bySignal[sig]; d != nil {
			return &d.Patterns[0]
		}
	}
	return nil
}

// ForExit refines a decisive line with the exit code it ended in: a class
// whose Exit recognises the code and the line takes it (exit 127 is the
// shell's "command not found").
func ForExit(d *Decisive, code int32) *Decisive {
	if d == nil {
		return d
	}
	for _, def := range defs {
		if def.Exit == nil || d.Pattern.Class == def.Class {
			continue
		}
		if subject, ok := def.Exit(code, d.Line); ok {
			out := *d
			out.Pattern = &def.Patterns[0]
			out.Subject = subject
			return &out
		}
	}
	return d
}

// SplitTimestamp removes the RFC3339 prefix the kubelet adds with
// timestamps=true.
func SplitTimestamp(line string) (time.Time, string) {
	if i := strings.IndexByte(line, ' '); i >= 20 && i <= 40 {
		if t, err := time.Parse(time.RFC3339Nano, line[:i]); err == nil {
			return t, line[i+1:]
		}
	}
	return time.Time{}, line
}

// LastOfClass is the latest line of class c in a log, whatever else the
// log holds: a dependency's own log read for the reason behind a caller's
// failure (the server's "login refused" among its other records). A line
// is of the class when its signals or one of the class's rows say so, even
// where another class would win its classification (PostgreSQL's
// "password authentication failed … DETAIL:  Role \"app\" does not exist",
// which the log component reads as one record, is an SQL line too); the
// row that words it is its pattern.
func LastOfClass(text string, c Class) *Decisive {
	d := defOf(c)
	if d == nil {
		return nil
	}
	log := applog.Parse(text)
	for i := len(log.Events) - 1; i >= 0; i-- {
		ev := &log.Events[i]
		line := strings.TrimSpace(ev.Text())
		if p := rowOf(d, line); p.re != nil || d.hasSignal(applog.Signals(line)) {
			return newDecisive(p, line, ev)
		}
	}
	return nil
}
