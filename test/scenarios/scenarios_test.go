package scenarios

import (
	"path/filepath"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/internal/golden"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefix"
)

// TestReplay replays every captured scenario in memory, as of its capture:
// the report must be its golden report.md and meet its scenario.json. No
// control plane: this is the unit tier's view of the corpus the e2e suite
// loads into a real one. `go test ./test/scenarios -update` rewrites the
// goldens after an intended change of the investigator (review the diff).
func TestReplay(t *testing.T) {
	all, err := All(Root())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("%s holds no scenario", Root())
	}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			rep, err := s.Replay()
			if err != nil {
				t.Fatal(err)
			}
			golden.AssertString(t, filepath.Join(s.Dir, ReportFile), Render(rep))
			for _, m := range s.Check(rep) {
				t.Error(m)
			}
			// Every proposed command passes the safe-fix policy against
			// the scenario's evidence: none may change what else the
			// cluster runs (DESIGN.md §7).
			b, err := s.Bundle()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range safefix.Violations(rep, b, false) {
				t.Errorf("unsafe action %q: %s", w.Action.Description, w.Reason)
			}
		})
	}
}

// TestNoFalseHealthy: across the whole corpus, no scenario whose target is
// failing gets the healthy verdict, and every healthy control does. A
// confident "healthy" for something broken is the most expensive answer
// the investigator can give, so this is asserted on its own, apart from
// each scenario's golden.
func TestNoFalseHealthy(t *testing.T) {
	all, err := All(Root())
	if err != nil {
		t.Fatal(err)
	}
	var failing, controls int
	for _, s := range all {
		rep, err := s.Replay()
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if s.Meta.Healthy {
			controls++
			if !rep.Healthy {
				t.Errorf("%s: a healthy control gets %q", s.Name, rep.Title)
			}
			continue
		}
		failing++
		if rep.Healthy {
			t.Errorf("%s: a failing target (%s) gets the healthy verdict", s.Name, s.Meta.Category)
		}
	}
	if failing == 0 || controls == 0 {
		t.Fatalf("corpus holds %d failing targets and %d healthy controls: both are needed", failing, controls)
	}
	t.Logf("%d failing targets, none healthy; %d healthy controls, all healthy", failing, controls)
}
