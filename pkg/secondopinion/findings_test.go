package secondopinion

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// TestFromAssessment reads captured scenarios (test/scenarios) as the
// builtin does before an external agent starts: what the agent is handed.
func TestFromAssessment(t *testing.T) {
	tests := []struct {
		scenario, kind, name string
		verdict              Verdict
		failed               bool
		culprit              string
	}{
		{"container-config-missing-configmap-key", "Pod", "reports", Fault, true, "LOG_LEVEL"},
		{"healthy-pod", "Pod", "fine", Healthy, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			dir := filepath.Join("..", "..", "test", "scenarios", tt.scenario, "context")
			b, err := bundle.Load(os.DirFS(dir), fault.Resource{APIVersion: "v1", Kind: tt.kind, Name: tt.name, Namespace: tt.scenario})
			if err != nil {
				t.Fatalf("scenario %s: %v", tt.scenario, err)
			}
			f := FromAssessment(investigate.Assess(b, investigate.Options{Agent: "builtin", Now: b.CollectedAt.Add(time.Second)}))
			if f.Verdict != tt.verdict || (len(f.FailedChecks) > 0) != tt.failed || !strings.Contains(f.RootCause.Culprit, tt.culprit) {
				t.Errorf("verdict %s, %d failed checks, culprit %q", f.Verdict, len(f.FailedChecks), f.RootCause.Culprit)
			}
			if tt.verdict == Healthy && len(f.RuledOut) == 0 {
				t.Errorf("a healthy verdict lists nothing it ruled out")
			}
			var back map[string]any
			if err := json.Unmarshal(f.JSON(), &back); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"verdict", "rootCause", "hypotheses", "evidence", "failedChecks", "uncheckedChecks", "ruledOut"} {
				if _, ok := back[k]; !ok {
					t.Errorf("builtin-findings.json lacks %q", k)
				}
			}
			for _, h := range f.Hypotheses {
				if h.Verdict != report.Validated && h.Verdict != report.Refuted && h.Verdict != report.Inconclusive {
					t.Errorf("hypothesis without a verdict: %+v", h)
				}
			}
		})
	}
}
