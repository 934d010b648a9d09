package scenarios

import (
	"github.com/kubectl-triage/kubectl-triage/pkg/safefix"
	"path/filepath"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/internal/golden"
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
			// the scenario's evidence (issue 16).
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
