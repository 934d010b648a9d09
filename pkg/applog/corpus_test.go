package applog

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// corpusCase is a container log made of lines real applications printed,
// as pasted in a public issue thread (source). Lines are excerpts: long
// stack traces are cut to a few frames, and decorations the thread added
// around the log (docker-compose's "name_1 |" column, markdown) are
// removed. The expectations are what a human reading the thread concluded.
type corpusCase struct {
	name   string
	eco    string // the ecosystem whose wording the log is in
	source string // where the lines come from
	// running is true for a container that runs but is not Ready.
	running bool
	// stamped prefixes every line with the kubelet's timestamp, as the
	// collector fetches logs (timestamps=true).
	stamped bool
	log     string
	format  Format // the container's format; "" = not checked
	// want is a substring of the top decisive line; "" means the log has
	// no decisive line (a healthy control or a harmless warning).
	want   string
	signal Signal // the top line's most specific signal; "" = not checked
	trace  Trace  // the crash report the top line belongs to; "" = not checked
	ent    ents   // entities the top line must name
}

// ents lists entities expected among the top line's; empty fields are not
// checked.
type ents struct {
	env, listen, endpoint, host, unresolved, path, url, sql, command, library string
	status                                                                    int
	forbidden                                                                 string // "verb resource serviceaccount"
	certNotAfter                                                              string // RFC3339
	certSubject                                                               string
}

// corpus is every ecosystem's table.
func corpus() []corpusCase {
	var all []corpusCase
	for _, t := range [][]corpusCase{javaCases, pythonCases, nodeCases, goCases, nginxCases, postgresCases, redisCases, rubyCases, dotnetCases, shellCases, rustCases, kafkaCases, sqlCases, tlsCases, moreCases, flagCases, apiTimeoutCases, depCases, resolveCases} {
		all = append(all, t...)
	}
	return all
}

// tabbed turns the two characters `\t` at the start of a line into a tab,
// so stack frames can be written in raw strings the way the JVM and Go
// print them (a `\t` inside a JSON string stays an escape).
func tabbed(s string) string { return leadingTab.ReplaceAllString(s, "\t") }

var leadingTab = regexp.MustCompile(`(?m)^\\t`)

// stamp adds the kubelet's RFC3339Nano prefix to every line.
func stamp(s string) string {
	at := time.Date(2026, 11, 26, 9, 34, 0, 0, time.UTC)
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = at.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano) + " " + lines[i]
	}
	return strings.Join(lines, "\n")
}

func TestCorpus(t *testing.T) {
	ecos := map[string]int{}
	for _, tc := range corpus() {
		ecos[tc.eco]++
		t.Run(tc.eco+"/"+tc.name, func(t *testing.T) {
			if tc.source == "" {
				t.Fatal("case records no source")
			}
			text := tabbed(strings.Trim(tc.log, "\n"))
			if tc.stamped {
				text = stamp(text)
			}
			l := Parse(text)
			if tc.format != "" && l.Format != tc.format {
				t.Errorf("format = %s, want %s", l.Format, tc.format)
			}
			ds := l.Decisive(Options{Running: tc.running})
			if tc.want == "" {
				if len(ds) > 0 {
					t.Fatalf("want no decisive line, got %q (score %d, %v)", ds[0].Text, ds[0].Score, ds[0].Reasons)
				}
				return
			}
			if len(ds) == 0 {
				t.Fatalf("no decisive line; events:\n%s", dump(l))
			}
			d := ds[0]
			if !strings.Contains(d.Text, tc.want) {
				t.Fatalf("decisive line = %q (score %d, %v), want it to contain %q; others: %s", d.Text, d.Score, d.Reasons, tc.want, others(ds))
			}
			if tc.signal != "" && d.Signal() != tc.signal {
				t.Errorf("signal = %q (%v), want %q", d.Signal(), d.Signals, tc.signal)
			}
			if tc.trace != "" && d.Event.Trace != tc.trace {
				t.Errorf("trace = %q, want %q", d.Event.Trace, tc.trace)
			}
			checkEnts(t, d.Entities, tc.ent)
		})
	}
	if len(ecos) < 8 {
		t.Errorf("corpus covers %d ecosystems, want at least 8", len(ecos))
	}
}

func checkEnts(t *testing.T, got Entities, want ents) {
	t.Helper()
	for _, c := range []struct {
		what, want string
		list       []string
	}{
		{"env", want.env, got.EnvVars}, {"listen", want.listen, got.Listen}, {"endpoint", want.endpoint, got.Endpoints},
		{"host", want.host, got.Hosts}, {"unresolved", want.unresolved, got.Unresolved}, {"path", want.path, got.Paths},
		{"url", want.url, got.URLs}, {"sql", want.sql, got.SQL}, {"command", want.command, got.Commands}, {"library", want.library, got.Libraries},
	} {
		if c.want != "" && !has(c.list, c.want) {
			t.Errorf("%s: %q not among %q", c.what, c.want, c.list)
		}
	}
	if want.status != 0 && !containsInt(got.HTTPStatus, want.status) {
		t.Errorf("http status %d not among %v", want.status, got.HTTPStatus)
	}
	if want.forbidden != "" {
		var seen []string
		for _, f := range got.Forbidden {
			seen = append(seen, f.Verb+" "+f.Resource+" "+f.ServiceAccount)
		}
		if !has(seen, want.forbidden) {
			t.Errorf("forbidden %q not among %q", want.forbidden, seen)
		}
	}
	if want.certSubject != "" {
		ok := false
		for _, c := range got.Certs {
			ok = ok || c.Subject == want.certSubject
		}
		if !ok {
			t.Errorf("no certificate with subject %q among %+v", want.certSubject, got.Certs)
		}
	}
	if want.certNotAfter != "" {
		ok := false
		for _, c := range got.Certs {
			ok = ok || (c.Expired && c.NotAfter.Format(time.RFC3339) == want.certNotAfter)
		}
		if !ok {
			t.Errorf("no expired certificate with NotAfter %s among %+v", want.certNotAfter, got.Certs)
		}
	}
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func dump(l *Log) string {
	var b strings.Builder
	for _, e := range l.Events {
		fmt.Fprintf(&b, "  [%s %s %s] %q\n", e.Format, e.Level, e.Trace, e.Text())
	}
	return b.String()
}

func others(ds []Decisive) string {
	var out []string
	for _, d := range ds[1:] {
		out = append(out, fmt.Sprintf("%q (%d)", d.Text, d.Score))
	}
	return strings.Join(out, ", ")
}

func TestCorpusSize(t *testing.T) {
	if n := len(corpus()); n < 80 {
		t.Errorf("corpus holds %d cases, want at least 80", n)
	}
}
