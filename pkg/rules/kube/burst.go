package kube

import (
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// Error bursts: a running container that keeps logging errors is failing
// at something, even when its probes pass. A burst is a few error-level
// records in the current instance's recent log; one error line is noise.
const (
	BurstErrors = 3
	BurstWindow = 15 * time.Minute
)

// Burst is the error-level records of a log's last BurstWindow.
type Burst struct {
	N           int
	First, Last string
	// Repeated is the record that recurs most (its text with digits
	// blanked compares equal), and RepeatedN how often: the failing
	// operation, as opposed to one-off errors around it.
	Repeated  string
	RepeatedN int
}

// ErrorBurst counts the error-level records of a log within BurstWindow of
// its newest timestamped record (or of now). Only levels the logger
// declared count: an unlevelled line that says "failed" is not a record of
// an error.
func ErrorBurst(text string, now time.Time) Burst {
	var b Burst
	if strings.TrimSpace(text) == "" {
		return b
	}
	lg := applog.Parse(text)
	newest := time.Time{}
	for _, ev := range lg.Events {
		if ev.Time.After(newest) {
			newest = ev.Time
		}
	}
	if newest.IsZero() || newest.After(now) {
		newest = now
	}
	counts := map[string]int{}
	stated := repeatedCause{}
	for _, ev := range lg.Events {
		if !ev.Time.IsZero() && newest.Sub(ev.Time) > BurstWindow {
			continue
		}
		stated.add(&ev)
		if ev.Level < applog.LevelError || ev.Implied || ev.Hint {
			continue
		}
		b.N++
		text := ev.Text()
		if b.First == "" {
			b.First = text
		}
		b.Last = text
		key := shape(text)
		counts[key]++
		if counts[key] > b.RepeatedN {
			b.Repeated, b.RepeatedN = text, counts[key]
		}
	}
	// A record that only announces the retry (Vault's "failed to retry
	// join raft cluster: retry=2s") yields to the failure it repeats with,
	// which the application may log at warning level ("join attempt
	// failed: … x509: certificate is valid for …").
	if applog.RetryOnly(b.Repeated) {
		if text, n := stated.best(); n >= BurstErrors {
			b.Repeated, b.RepeatedN = text, n
		}
	}
	return b
}

// repeatedCause counts the warning and error records that state a failure
// (a signal of the log component), by shape, keeping the most specific.
type repeatedCause map[string]*causeCount

type causeCount struct {
	n      int
	text   string // the shape's latest record
	weight int    // how specifically its first signal names a cause
}

func (r repeatedCause) add(ev *applog.Event) {
	if ev.Level < applog.LevelWarn || ev.Implied || ev.Hint {
		return
	}
	text := ev.Text()
	sigs := applog.Signals(text)
	if len(sigs) == 0 {
		return
	}
	key := shape(text)
	cc := r[key]
	if cc == nil {
		cc = &causeCount{}
		r[key] = cc
	}
	cc.n++
	cc.text, cc.weight = text, applog.Weight(sigs[0])
}

// best is the most specific repeated failure (then the most repeated)
// and how often it was logged.
func (r repeatedCause) best() (string, int) {
	bestKey := ""
	for k, cc := range r {
		if cc.n < 2 {
			continue
		}
		if b := r[bestKey]; b == nil || cc.weight > b.weight || cc.weight == b.weight && (cc.n > b.n || cc.n == b.n && k < bestKey) {
			bestKey = k
		}
	}
	if b := r[bestKey]; b != nil {
		return b.text, b.n
	}
	return "", 0
}

// shape blanks a record's digits and hex runs (request ids, timestamps,
// counters) so repetitions of one failure compare equal.
func shape(s string) string {
	var sb strings.Builder
	digit := false
	for _, r := range s {
		isDigit := r >= '0' && r <= '9'
		if isDigit {
			if !digit {
				sb.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		sb.WriteRune(r)
	}
	return sb.String()
}
