// Package investigatetest checks what the investigator reports on a
// hand-built bundle (package bundletest), for the case tables beside the
// rules (pkg/rules/<area>, external test packages) whose cases depend on
// the ranking across the whole catalogue: the root cause a rule's finding
// must win, with its evidence and action (docs/DESIGN.md §2).
package investigatetest

import (
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/registry"
)

// Investigate runs the investigator over b as of bundletest.Now, as a case
// table does.
func Investigate(b *bundle.Bundle) *report.Report {
	return investigate.Investigate(b, investigate.Options{IncidentID: "test", Agent: "builtin", Now: bundletest.Now})
}

// Pass is a pass over b as of bundletest.Now with the investigator's
// catalogue, for cases that call a rule's Check directly.
func Pass(b *bundle.Bundle) *rule.Pass { return rule.NewPass(b, bundletest.Now, investigate.Rules) }

// RulesOf are the catalogue's rules of the given areas (ID prefixes), in
// catalogue order.
func RulesOf(areas ...string) []*rule.Rule {
	var out []*rule.Rule
	for _, r := range registry.Rules {
		for _, a := range areas {
			if strings.HasPrefix(r.ID, a+"/") {
				out = append(out, r)
			}
		}
	}
	return out
}

// RootCause is what a report's root cause must say, in every area's table
// tests.
type RootCause struct {
	Category string   // prefix of the category
	Culprit  []string // substrings of the culprit
	Title    []string // substrings of the one-line root cause
	MinConf  float64
}

// CheckRootCause checks the root cause against want, and that it cites
// evidence the report lists and proposes an action; note is added to a
// wrong category's message.
func CheckRootCause(t *testing.T, r *report.Report, want RootCause, note string) {
	t.Helper()
	if !strings.HasPrefix(r.RootCause.Category, want.Category) {
		t.Errorf("category = %q, want prefix %q (title %q)%s", r.RootCause.Category, want.Category, r.Title, note)
	}
	for _, s := range want.Culprit {
		if !strings.Contains(r.RootCause.Culprit, s) {
			t.Errorf("culprit %q lacks %q", r.RootCause.Culprit, s)
		}
	}
	for _, s := range want.Title {
		if !strings.Contains(r.Title, s) {
			t.Errorf("title %q lacks %q", r.Title, s)
		}
	}
	if r.Confidence < want.MinConf {
		t.Errorf("confidence %.2f < %.2f", r.Confidence, want.MinConf)
	}
	if len(r.RootCause.Evidence) == 0 {
		t.Errorf("root cause cites no evidence")
	}
	for _, id := range r.RootCause.Evidence {
		if !HasEvidence(r, id) {
			t.Errorf("root cause cites %s, which is not in the evidence list", id)
		}
	}
	if len(r.Actions) == 0 {
		t.Errorf("no recommended action")
	}
}

// HasEvidence: r's evidence list has an item id.
func HasEvidence(r *report.Report, id string) bool {
	for _, e := range r.Evidence {
		if e.ID == id {
			return true
		}
	}
	return false
}
