package watch

import (
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func TestFilter(t *testing.T) {
	cases := []struct {
		min  string
		pass []string // severities let through
		stop []string
	}{
		{"", []string{"debug", "info", "warning", "critical", "bogus", ""}, nil},
		{"info", []string{"info", "notice", "warning", "critical"}, []string{"debug"}},
		{"warning", []string{"warning", "WARN", "error", "critical", "alert", "emergency", "bogus", ""}, []string{"debug", "info", "notice"}},
		{"error", []string{"error", "critical"}, []string{"warning", "info", "bogus"}},
		{"critical", []string{"critical", "alert", "emergency"}, []string{"error", "warning", "info", ""}},
	}
	for _, c := range cases {
		f, err := NewFilter(c.min)
		if err != nil {
			t.Fatal(err)
		}
		if f.MinSeverity() != c.min {
			t.Errorf("MinSeverity %q", f.MinSeverity())
		}
		for _, s := range c.pass {
			if !f.Allow(&fault.Event{Severity: s}) {
				t.Errorf("min %q stops %q", c.min, s)
			}
		}
		for _, s := range c.stop {
			if f.Allow(&fault.Event{Severity: s}) {
				t.Errorf("min %q passes %q", c.min, s)
			}
		}
	}
	if _, err := NewFilter("severe"); err == nil || !strings.Contains(err.Error(), `unknown severity "severe"`) {
		t.Errorf("NewFilter(severe): %v", err)
	}
	var zero Filter
	if !zero.Allow(&fault.Event{Severity: "debug"}) {
		t.Error("zero Filter must pass everything")
	}
}
