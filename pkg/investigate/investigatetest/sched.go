package investigatetest

import (
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/scheduling"
)

// SchedCase is one bundle for the scheduling and node rules and what its
// report (or the scheduling rule) must say.
type SchedCase struct {
	Name         string
	Bundle       *bundle.Bundle
	WantCategory string
	WantCulprit  []string
	WantTitle    []string
	WantText     []string // anywhere in the rendered report
	MinConf      rule.Confidence
	WantNoCause  bool // no validated finding at all
	WantRuledOut string
	// RuleOnly checks the scheduling rule's own finding instead of the
	// report's root cause: for causes another area explains deeper (a
	// Pending claim's class).
	RuleOnly bool
}

// schedFinding runs the scheduling rule alone and returns its validated
// finding.
func schedFinding(t *testing.T, b *bundle.Bundle) rule.Finding {
	t.Helper()
	c := Pass(b)
	for _, f := range scheduling.Unschedulable.Check(c) {
		if f.Verdict == report.Validated {
			return f
		}
	}
	t.Fatalf("the scheduling rule validated nothing")
	return rule.Finding{}
}

// RunSchedCases runs each case as a subtest: the report's root cause, or
// the scheduling rule's own finding (RuleOnly).
func RunSchedCases(t *testing.T, cases []SchedCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			if tt.RuleOnly {
				f := schedFinding(t, tt.Bundle)
				if !strings.HasPrefix(string(f.Category), tt.WantCategory) {
					t.Errorf("category = %q, want prefix %q (title %q)", f.Category, tt.WantCategory, f.Title)
				}
				for _, s := range tt.WantCulprit {
					if !strings.Contains(f.Culprit, s) {
						t.Errorf("culprit %q lacks %q", f.Culprit, s)
					}
				}
				if f.Confidence < tt.MinConf || len(f.Evidence) == 0 || len(f.Actions) == 0 {
					t.Errorf("finding too weak: confidence %.2f, %d evidence, %d actions", f.Confidence, len(f.Evidence), len(f.Actions))
				}
				return
			}
			r := Investigate(tt.Bundle)
			md := r.Markdown()
			if err := report.Validate(md); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			if tt.WantNoCause {
				if strings.HasPrefix(r.RootCause.Category, "Unschedulable") || strings.HasPrefix(r.RootCause.Category, "Node") {
					t.Fatalf("want no scheduling/node root cause, got %q: %s", r.RootCause.Category, r.Title)
				}
				return
			}
			CheckRootCause(t, r, RootCause{Category: tt.WantCategory, Culprit: tt.WantCulprit, Title: tt.WantTitle, MinConf: float64(tt.MinConf)}, "")
			for _, s := range tt.WantText {
				if !strings.Contains(md, s) {
					t.Errorf("report lacks %q:\n%s", s, md)
				}
			}
			if tt.WantRuledOut != "" && !strings.Contains(strings.Join(r.RuledOut, "\n"), tt.WantRuledOut) {
				t.Errorf("ruled out %v lacks %q", r.RuledOut, tt.WantRuledOut)
			}
		})
	}
}
