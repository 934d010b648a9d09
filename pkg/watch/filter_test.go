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

func TestFilterNamespaces(t *testing.T) {
	pod := func(ns string) *fault.Event {
		return &fault.Event{Severity: "warning", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: ns}}
	}
	f, _ := NewFilter("warning")
	scoped := f.InNamespaces("shop", "pay")
	cases := []struct {
		f    Filter
		ev   *fault.Event
		want bool
	}{
		{f, pod("other"), true},
		{scoped, pod("shop"), true},
		{scoped, pod("pay"), true},
		{scoped, pod("other"), false},
		{scoped, pod(""), false}, // a node fault has no namespace: outside -n
		{scoped.InNamespaces(), pod("other"), true},
		{scoped, &fault.Event{Severity: "info", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "shop"}}, false},
	}
	for i, c := range cases {
		if got := c.f.Allow(c.ev); got != c.want {
			t.Errorf("%d: Allow(%s) = %v, want %v", i, c.ev.Namespace(), got, c.want)
		}
	}
}

// A dropped fault says why: a critical Node fault dropped because -n
// names a namespace is outside it, not below --min-severity.
func TestFilterWhy(t *testing.T) {
	f, err := NewFilter("warning")
	if err != nil {
		t.Fatal(err)
	}
	f = f.InNamespaces("shop")
	for _, tc := range []struct {
		name string
		ev   *fault.Event
		want FilterReason
	}{
		{"node outside -n", &fault.Event{Severity: "critical", Resource: &fault.Resource{Kind: "Node", Name: "n1"}}, OutsideNamespace},
		{"pod below", &fault.Event{Severity: "info", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "shop"}}, BelowSeverity},
		{"pod passes", &fault.Event{Severity: "critical", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "shop"}}, NotFiltered},
	} {
		if got := f.Why(tc.ev); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	p := &Pipeline{Filter: f, Sink: NewQueue[*fault.Event](1, DropNew)}
	r := p.IngestEvent(&fault.Event{Severity: "critical", Resource: &fault.Resource{Kind: "Node", Name: "n1"}})
	if r.Outcome != Filtered || r.FilterReason.String() != "outside the namespace of -n" {
		t.Errorf("pipeline: %v %q", r.Outcome, r.FilterReason)
	}
}
