// Package ruletest runs one rule the way the engine does, for the test that
// sits beside it: over a captured workspace in the rule's testdata (a
// context/ directory as the collector wrote it, and the output/ report that
// names the target and the time it was triaged), or over a hand-built
// bundle.
package ruletest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// Load reads the captured workspace dir (dir/context, dir/output/
// investigation.json) and returns its bundle and the time it was triaged:
// a rule replayed at that time reads relative times as it did then.
func Load(t testing.TB, dir string) (*bundle.Bundle, time.Time) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "output", "investigation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recorded report.Report
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	res := recorded.Resource
	b, err := bundle.Load(filepath.Join(dir, "context"), fault.Resource{APIVersion: res.APIVersion, Kind: res.Kind, Name: res.Name, Namespace: res.Namespace})
	if err != nil {
		t.Fatal(err)
	}
	return b, recorded.Time
}

// Run runs r over b as of now, with the rules it requires (each once, as
// the engine would), and returns r's findings.
func Run(r *rule.Rule, b *bundle.Bundle, now time.Time) []rule.Finding {
	var catalogue []*rule.Rule
	var add func(*rule.Rule)
	add = func(r *rule.Rule) {
		for _, have := range catalogue {
			if have == r {
				return
			}
		}
		for _, req := range r.Requires {
			add(req)
		}
		catalogue = append(catalogue, r)
	}
	add(r)
	return rule.NewPass(b, now, catalogue).ResultOf(r)
}

// Root is the finding the engine's ranking would pick among fs, or nil.
func Root(fs []rule.Finding) *rule.Finding { return rule.Rank(fs) }
