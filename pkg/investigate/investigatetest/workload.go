package investigatetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// WorkloadCase is one bundle and what its report must say.
type WorkloadCase struct {
	Name         string
	Bundle       *bundle.Bundle
	WantCategory string   // prefix of the root cause category
	WantCulprit  []string // substrings of the culprit
	WantTitle    []string // substrings of the title
	WantText     []string // substrings anywhere in the rendered report
	WantRule     string   // a validated hypothesis of this category prefix must exist
	NoRule       string   // no hypothesis of this category prefix may exist
	MinConf      float64
	Healthy      bool
	// Isolated runs only this area's rules, with no pod-level rule to defer
	// to: it tests the branch where the workload finding explains the pods
	// itself, whatever the other areas' catalogue holds.
	Isolated bool
	// AnyRoot skips the root-cause checks (another area's finding wins).
	AnyRoot bool
}

// RunWorkloadCases runs each case as a subtest: the investigator's report,
// and the workload and batch rules' own findings.
func RunWorkloadCases(t *testing.T, cases []WorkloadCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			if tt.Isolated {
				saved := investigate.Rules
				investigate.Rules = workloadRules
				defer func() { investigate.Rules = saved }()
			}
			r := Investigate(tt.Bundle)
			md := r.Markdown()
			if err := report.Validate(md); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			c := Pass(tt.Bundle)
			var cats []string
			for _, rule := range workloadRules {
				for _, f := range rule.Check(c.For(rule)) {
					cats = append(cats, fmt.Sprintf("%s:%s(%.2f,d%d)", f.Verdict, f.Category, f.Confidence, f.Strength))
				}
			}
			if tt.Healthy {
				if !r.Healthy {
					t.Fatalf("want healthy, got %q (%s); workload findings %v", r.Title, r.RootCause.Category, cats)
				}
				return
			}
			if tt.WantRule != "" && !strings.Contains(strings.Join(cats, " "), "validated:"+tt.WantRule) {
				t.Errorf("no validated %s finding among %v", tt.WantRule, cats)
			}
			if tt.NoRule != "" && strings.Contains(strings.Join(cats, " "), tt.NoRule) {
				t.Errorf("unexpected %s finding among %v", tt.NoRule, cats)
			}
			for _, s := range tt.WantText {
				if !strings.Contains(md, s) {
					t.Errorf("report lacks %q:\n%s", s, md)
				}
			}
			if tt.AnyRoot {
				return
			}
			CheckRootCause(t, r, RootCause{Category: tt.WantCategory, Culprit: tt.WantCulprit, Title: tt.WantTitle, MinConf: tt.MinConf}, fmt.Sprintf("; workload findings %v", cats))
		})
	}
}

// workloadRules are the workload and batch areas.
var workloadRules = RulesOf("workload", "batch")
