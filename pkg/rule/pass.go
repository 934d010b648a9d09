package rule

import (
	"fmt"
	"slices"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Pass is what a rule sees while it checks one bundle: the bundle, the time
// the investigation reads it as of, the evidence registry and the findings
// of the rules it requires.
type Pass struct {
	B   *bundle.Bundle
	Now time.Time
	// Rule is the rule being run; nil in a pass made for a test that calls
	// a Check directly.
	Rule *Rule

	*run
}

// run is the state one investigation shares across its passes.
type run struct {
	catalogue []*Rule
	evidence  []report.Evidence
	byFact    map[string]string
	results   map[*Rule][]Finding
	running   map[*Rule]bool
}

// NewPass starts an investigation of b as of now over a catalogue: the rules
// ResultOf may run. Rules outside it contribute no findings.
func NewPass(b *bundle.Bundle, now time.Time, catalogue []*Rule) *Pass {
	return &Pass{B: b, Now: now, run: &run{
		catalogue: catalogue,
		byFact:    map[string]string{},
		results:   map[*Rule][]Finding{},
		running:   map[*Rule]bool{},
	}}
}

// Evidence records a fact and returns its ID (E1, E2, …); the same fact from
// the same source gets the same ID.
func (p *Pass) Evidence(fact, source, command string) string {
	key := fact + "\x00" + source
	if id, ok := p.byFact[key]; ok {
		return id
	}
	id := fmt.Sprintf("E%d", len(p.evidence)+1)
	p.evidence = append(p.evidence, report.Evidence{ID: id, Fact: fact, Source: source, Command: command})
	p.byFact[key] = id
	return id
}

// EvidenceList is every fact registered so far, in registration order.
func (p *Pass) EvidenceList() []report.Evidence { return p.evidence }

// ResultOf returns the findings of r, a rule the running rule requires. Each
// rule runs at most once per investigation, on first use; every reader gets
// a copy of the same findings.
func (p *Pass) ResultOf(r *Rule) []Finding {
	if p.Rule != nil && !slices.Contains(p.Rule.Requires, r) {
		panic(fmt.Sprintf("rule %s reads the findings of %s without requiring it", p.Rule.ID, r.ID))
	}
	fs := p.result(r)
	out := make([]Finding, len(fs))
	for i, f := range fs {
		// Readers quote and extend a required rule's finding: each gets
		// its own lists, so no reader changes another's.
		f.Evidence, f.Contributing, f.Actions = slices.Clone(f.Evidence), slices.Clone(f.Contributing), slices.Clone(f.Actions)
		out[i] = f
	}
	return out
}

func (p *Pass) result(r *Rule) []Finding {
	if fs, ok := p.results[r]; ok {
		return fs
	}
	if !slices.Contains(p.catalogue, r) || !r.AppliesTo(p.B.Target.Kind) {
		return nil
	}
	if p.running[r] {
		panic(fmt.Sprintf("rule %s requires itself", r.ID))
	}
	p.running[r] = true
	fs := r.Check(p.For(r))
	for i := range fs {
		fs[i].Rule, fs[i].Layer = r.ID, r.Layer
	}
	p.results[r] = fs
	delete(p.running, r)
	return fs
}

// Run runs every rule of the catalogue that applies to the target's kind,
// each once, and returns their findings in catalogue order.
func (p *Pass) Run() []Finding {
	var out []Finding
	for _, r := range p.catalogue {
		out = append(out, p.result(r)...)
	}
	return out
}

// Rank picks the root cause among fs: the first validated finding in the
// order the package documentation defines, or nil.
func Rank(fs []Finding) *Finding {
	var best *Finding
	for i := range fs {
		f := &fs[i]
		if f.Verdict != report.Validated {
			continue
		}
		if best == nil || Outranks(f, best) {
			best = f
		}
	}
	return best
}

// Outranks reports whether a ranks strictly before b.
func Outranks(a, b *Finding) bool {
	if a.Current != b.Current {
		return a.Current
	}
	if a.Context != b.Context {
		return b.Context
	}
	if a.Strength != b.Strength {
		return a.Strength > b.Strength
	}
	if a.Layer != b.Layer {
		return a.Layer > b.Layer
	}
	if a.Confidence != b.Confidence {
		return a.Confidence > b.Confidence
	}
	return a.Rule < b.Rule
}

// For is the pass rule r runs with: the same investigation, r's
// requirements.
func (p *Pass) For(r *Rule) *Pass {
	return &Pass{B: p.B, Now: p.Now, Rule: r, run: p.run}
}
