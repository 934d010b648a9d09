package applog

import (
	"strings"
	"testing"
)

// corpusLog returns a corpus case's log by name.
func corpusLog(t *testing.T, name string) string {
	t.Helper()
	for _, tc := range corpus() {
		if tc.name == name {
			return tabbed(strings.Trim(tc.log, "\n"))
		}
	}
	t.Fatalf("no corpus case %s", name)
	return ""
}

func hasReason(d Decisive, prefix string) bool {
	for _, r := range d.Reasons {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// TestRankingByContainerState: the same log read for an exited, a running
// and a killed container weighs position and repetition differently.
func TestRankingByContainerState(t *testing.T) {
	log := corpusLog(t, "retry-loop-then-giving-up-line")

	exited := Decide(log, Options{})
	if len(exited) == 0 || !strings.Contains(exited[0].Text, "Connection error") || !hasReason(exited[0], "last error-like record") {
		t.Fatalf("exited: %+v", exited)
	}
	// The retry lines are one message repeated five times; for an exited
	// container a loop the process got past counts against it.
	if len(exited) < 2 || !strings.Contains(exited[1].Text, "attempt") || exited[1].Repeats != 5 || !hasReason(exited[1], "repeated 5 times (a retry loop)") {
		t.Errorf("retry line: %+v", exited[1:])
	}

	// Still running: a message it keeps repeating is current, not past.
	running := Decide(strings.Join(strings.Split(log, "\n")[:5], "\n"), Options{Running: true})
	if len(running) == 0 || running[0].Repeats != 5 || !hasReason(running[0], "repeated 5 times and still being logged") {
		t.Fatalf("running: %+v", running)
	}

	// Killed from outside: its last words are no verdict.
	killed := Decide(log, Options{Killed: true})
	for _, d := range killed {
		if hasReason(d, "last error-like record") {
			t.Errorf("killed: %q credited as last words", d.Text)
		}
	}
}

// TestDecisiveEntitiesSkipFrames: entities come from what an event says,
// not from its stack frames' source paths.
func TestDecisiveEntitiesSkipFrames(t *testing.T) {
	ds := Decide(corpusLog(t, "entrypoint-module-not-found-node20"), Options{})
	if len(ds) == 0 {
		t.Fatal("no decisive line")
	}
	for _, p := range ds[0].Paths {
		if strings.Contains(p, "internal/modules") {
			t.Errorf("frame path %q among entities %v", p, ds[0].Paths)
		}
	}
}

func TestLastWords(t *testing.T) {
	l := Parse(corpusLog(t, "gunicorn-healthy-with-userwarning"))
	w := l.LastWords(2)
	if len(w) != 2 || !strings.Contains(w[1].Text(), "UserWarning") && !strings.Contains(w[1].Text(), `""")`) {
		t.Fatalf("last words: %v", w)
	}
}
