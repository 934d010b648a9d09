package investigatetest

import (
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// ObjectCase is one synthetic bundle for the network and storage rules, with
// the root cause the report must give.
type ObjectCase struct {
	Name     string
	Bundle   *bundle.Bundle
	Category string // prefix of the root-cause category; "" for a healthy report
	Culprit  []string
	Title    []string
	MinConf  float64
	MaxConf  float64 // 0: no upper bound
	Withheld string  // part of the safe-fix policy's reason for a withheld action
	Degraded bool
	// hypotheses that must appear with their verdict, e.g. {"Service/NoEndpoints", Refuted}
	WantFinding map[string]report.Verdict
}

// RunObjectCases runs each case as a subtest against the report and, with
// WantFinding, every rule's own findings.
func RunObjectCases(t *testing.T, cases []ObjectCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			r := Investigate(tt.Bundle)
			if err := report.Validate(r.Markdown()); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			if len(tt.WantFinding) > 0 {
				c := Pass(tt.Bundle)
				got := map[string]report.Verdict{}
				for _, rule := range investigate.Rules {
					for _, f := range rule.Check(c.For(rule)) {
						got[string(f.Category)] = f.Verdict
					}
				}
				for cat, v := range tt.WantFinding {
					if got[cat] != v {
						t.Errorf("finding %s: verdict %q, want %q (all: %v)", cat, got[cat], v, got)
					}
				}
			}
			switch {
			case tt.Degraded:
				if !r.Degraded || r.Healthy {
					t.Fatalf("want a degraded report, got degraded=%v healthy=%v %q (%s)", r.Degraded, r.Healthy, r.Title, r.RootCause.Category)
				}
				return
			case tt.Category == "":
				if !r.Healthy {
					t.Fatalf("want healthy, got %q (%s)", r.Title, r.RootCause.Category)
				}
				return
			}
			if r.Healthy {
				t.Fatalf("report is healthy, want %s", tt.Category)
			}
			CheckRootCause(t, r, RootCause{Category: tt.Category, Culprit: tt.Culprit, Title: tt.Title, MinConf: tt.MinConf}, "")
			if tt.MaxConf > 0 && r.Confidence > tt.MaxConf {
				t.Errorf("confidence %.2f > %.2f: the evidence does not support it", r.Confidence, tt.MaxConf)
			}
			hasCommand := false
			for _, a := range r.Actions {
				hasCommand = hasCommand || len(a.Commands) > 0
			}
			if !hasCommand {
				t.Errorf("no action with a command")
			}
			withheld := ""
			for _, w := range r.Withheld {
				withheld += w.Reason + "\n"
			}
			if !strings.Contains(withheld, tt.Withheld) || tt.Withheld == "" && withheld != "" {
				t.Errorf("withheld %q, want %q", withheld, tt.Withheld)
			}
		})
	}
}
