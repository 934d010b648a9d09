// Package ruletest runs one rule the way the engine does, for the test that
// sits beside it: over a captured workspace in the rule's testdata (a
// context/ directory as the collector wrote it, and the output/ report that
// names the target and the time it was triaged), or over a hand-built
// bundle (package bundletest). A case about the whole report, where the
// rule's finding must win the ranking across the catalogue, uses package
// investigatetest from the area's external test package instead: ruletest
// cannot import the catalogue, whose rule packages' tests import ruletest.
package ruletest

import (
	"context"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Load opens the captured workspace dir (workspace.Open, as replay does)
// and returns its bundle and the time it was triaged: a rule replayed at
// that time reads relative times as it did then.
func Load(t testing.TB, dir string) (*bundle.Bundle, time.Time) {
	t.Helper()
	c, err := workspace.Open(context.Background(), dir, workspace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c.Bundle, c.CapturedAt
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
