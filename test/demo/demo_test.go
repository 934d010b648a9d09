package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoTellsItsStoryInOrder runs the demo as `make demo` does and reads
// its report's timeline as an SRE would: every object is created before
// anything that happens to it or that it causes (the Deployment before its
// ReplicaSets, a ReplicaSet before its pods, a pod before its start, its
// containers' runs and its events), on one clock; and the rollout context
// agrees with itself (rolled out long enough ago to have missed its
// progress deadline, which it missed by that deadline after the rollout).
func TestDemoTellsItsStoryInOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := demo(ctx, pluginBinary(t), false, &out); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	report := out.String()
	rows := timeline(t, report)

	for i := 1; i < len(rows); i++ {
		if rows[i].at.Before(rows[i-1].at) {
			t.Errorf("timeline out of order: %q after %q", rows[i].fact, rows[i-1].fact)
		}
	}
	created := map[string]time.Time{}
	for _, r := range rows {
		if m := createdRow.FindStringSubmatch(r.fact); m != nil {
			created[m[1]] = r.at
		}
	}
	// Who caused whom: each must exist before the next.
	chain := []string{"checkout", "checkout-6b9c7d5f4", "checkout-7d9f6c5b8", "checkout-7d9f6c5b8-p7w4m"}
	for i, name := range chain {
		if _, ok := created[name]; !ok {
			t.Fatalf("the timeline has no creation of %s:\n%s", name, section(report, "## Timeline"))
		}
		if i > 0 && created[name].Before(created[chain[i-1]]) {
			t.Errorf("%s created at %s, before %s (%s) that made it", name, created[name], chain[i-1], created[chain[i-1]])
		}
	}
	// Nothing about an object precedes its creation.
	for name, at := range created {
		for _, r := range rows {
			if mentions(r.fact, name) && r.at.Before(at) {
				t.Errorf("%q (%s) comes before %s was created (%s)", r.fact, r.at.Format(time.TimeOnly), name, at.Format(time.TimeOnly))
			}
		}
	}
	// The rollout sentence of the root cause.
	m := rolloutLine.FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no rollout context in the report:\n%s", section(report, "## Root cause"))
	}
	rolledOut, age, deadline, missed := parseTime(t, m[1]), m[2], m[3], parseTime(t, m[4])
	if d, err := time.ParseDuration(deadline); err != nil || !missed.Equal(rolledOut.Add(d)) {
		t.Errorf("rolled out at %s, progress deadline %s, missed at %s", rolledOut, deadline, missed)
	}
	if !strings.HasSuffix(age, "m") && !strings.HasSuffix(age, "h") && !strings.HasSuffix(age, "d") {
		t.Errorf("rolled out %s ago, yet past its %s progress deadline", age, deadline)
	}
}

type row struct {
	at   time.Time
	fact string
}

var (
	timelineRow = regexp.MustCompile(`(?m)^\| (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \| (.*) \|$`)
	createdRow  = regexp.MustCompile(`^(?:Deployment|ReplicaSet|Pod) (\S+) created\b`)
	rolloutLine = regexp.MustCompile(`was rolled out at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC \((\S+) ago\).*progress deadline \((\d+s)\) at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC`)
)

func timeline(t *testing.T, report string) []row {
	t.Helper()
	var rows []row
	for _, m := range timelineRow.FindAllStringSubmatch(section(report, "## Timeline"), -1) {
		rows = append(rows, row{parseTime(t, m[1]), m[2]})
	}
	if len(rows) < 5 {
		t.Fatalf("the timeline has %d rows:\n%s", len(rows), report)
	}
	return rows
}

func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.DateTime, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// mentions reports whether fact names the object name itself, not one
// whose name it begins (checkout is not checkout-7d9f6c5b8).
func mentions(fact, name string) bool {
	for i := 0; ; {
		j := strings.Index(fact[i:], name)
		if j < 0 {
			return false
		}
		end := i + j + len(name)
		if end == len(fact) || !strings.ContainsAny(fact[end:end+1], "-abcdefghijklmnopqrstuvwxyz0123456789") {
			return true
		}
		i = end
	}
}

// section is the report from heading to the next one.
func section(report, heading string) string {
	i := strings.Index(report, heading)
	if i < 0 {
		return ""
	}
	rest := report[i+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// pluginBinary is the built kubectl-triage (KUBECTL_TRIAGE_BIN, else built
// for the test).
func pluginBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KUBECTL_TRIAGE_BIN"); p != "" {
		return p
	}
	bin := filepath.Join(t.TempDir(), "kubectl-triage")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kubectl-triage/kubectl-triage/cmd/kubectl-triage").CombinedOutput(); err != nil {
		t.Fatalf("build plugin: %v\n%s", err, out)
	}
	return bin
}
