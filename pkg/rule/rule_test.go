package rule

import (
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

func TestCategory(t *testing.T) {
	for _, tt := range []struct {
		got  Category
		want string
	}{
		{CrashLoop, "CrashLoop"},
		{CrashLoop.Sub("Exit1", "MissingEnv"), "CrashLoop/Exit1/MissingEnv"},
		{Node.Sub("NotReady", ""), "Node/NotReady"},
		{CrashLoop.Sub("Exit1").WithRoot(ContainerFailed), "ContainerFailed/Exit1"},
		{CrashLoop.WithRoot(ContainerFailed), "ContainerFailed"},
		{Probe.Sub("Liveness", "WrongPort").Root(), "Probe"},
	} {
		if string(tt.got) != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestOutranks(t *testing.T) {
	cause := Finding{Rule: "pod/b", Verdict: report.Validated, Current: true, Strength: Explained, Layer: PodLayer, Confidence: High}
	with := func(mut func(*Finding)) Finding { f := cause; mut(&f); return f }
	for _, tt := range []struct {
		name        string
		winner, not Finding
	}{
		{"present beats history", with(func(f *Finding) { f.Strength = Observed }), with(func(f *Finding) { f.Current = false; f.Strength = Traced })},
		{"a cause beats the context around it", cause, with(func(f *Finding) { f.Context = true; f.Strength = Traced; f.Layer = InfrastructureLayer })},
		{"a traced cause beats the symptom it explains", with(func(f *Finding) { f.Strength = Traced; f.Confidence = Even }), cause},
		{"explained beats observed", cause, with(func(f *Finding) { f.Strength = Observed; f.Layer = InfrastructureLayer; f.Confidence = Certain })},
		{"an explained fault beats a symptom", with(func(f *Finding) { f.Layer = ServiceLayer }), with(func(f *Finding) { f.Strength = Symptom })},
		{"a lower layer wins at equal strength", with(func(f *Finding) { f.Layer = InfrastructureLayer; f.Confidence = Even }), cause},
		{"placement below pod", with(func(f *Finding) { f.Layer = PlacementLayer }), cause},
		{"pod below workload", cause, with(func(f *Finding) { f.Layer = WorkloadLayer })},
		{"workload below service", with(func(f *Finding) { f.Layer = WorkloadLayer }), with(func(f *Finding) { f.Layer = ServiceLayer })},
		{"then confidence", cause, with(func(f *Finding) { f.Confidence = Plausible })},
		{"then rule ID", with(func(f *Finding) { f.Rule = "pod/a" }), cause},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !Outranks(&tt.winner, &tt.not) || Outranks(&tt.not, &tt.winner) {
				t.Errorf("%+v should outrank %+v", tt.winner, tt.not)
			}
			fs := []Finding{tt.not, tt.winner, with(func(f *Finding) { f.Verdict = report.Refuted; f.Strength = Traced; f.Layer = InfrastructureLayer })}
			if got := Rank(fs); got == nil || got.Rule != tt.winner.Rule || got.Strength != tt.winner.Strength || got.Layer != tt.winner.Layer {
				t.Errorf("Rank picked %+v", got)
			}
		})
	}
	if Rank([]Finding{{Verdict: report.Inconclusive}}) != nil {
		t.Error("Rank picked an inconclusive finding")
	}
}

func TestResultOfRunsEachRuleOnce(t *testing.T) {
	runs := 0
	base := &Rule{Meta: Meta{ID: "pod/base", Layer: PodLayer}, Check: func(p *Pass) []Finding {
		runs++
		return []Finding{{Subject: "api", Evidence: []string{p.Evidence("fact", "source", "cmd")}, Contributing: []string{"a"}}}
	}}
	var readers []*Rule
	for _, id := range []string{"workload/one", "workload/two"} {
		readers = append(readers, &Rule{Meta: Meta{ID: id, Layer: WorkloadLayer, Requires: []*Rule{base}}, Check: func(p *Pass) []Finding {
			fs := p.ResultOf(base)
			fs[0].Contributing = append(fs[0].Contributing, p.Rule.ID) // must not leak into another reader
			return []Finding{{Subject: "api", Contributing: fs[0].Contributing}}
		}})
	}
	other := &Rule{Meta: Meta{ID: "node/only", Kinds: []string{"Node"}}, Check: func(*Pass) []Finding { return []Finding{{}} }}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api"}}
	p := NewPass(b, time.Now(), append(readers, base, other))
	fs := p.Run()
	if runs != 1 {
		t.Errorf("the required rule ran %d times, want once", runs)
	}
	if len(fs) != 3 {
		t.Fatalf("got %d findings, want 3 (the Node rule does not apply to a Pod): %+v", len(fs), fs)
	}
	if fs[0].Rule != "workload/one" || fs[0].Layer != WorkloadLayer || len(fs[1].Contributing) != 2 || fs[1].Contributing[1] != "workload/two" || len(fs[2].Contributing) != 1 {
		t.Errorf("findings = %+v", fs)
	}
	if ev := p.EvidenceList(); len(ev) != 1 || ev[0].ID != "E1" {
		t.Errorf("evidence = %+v", ev)
	}

	// A rule outside the catalogue contributes nothing.
	if got := NewPass(b, time.Now(), readers).For(readers[0]).ResultOf(base); len(got) != 0 {
		t.Errorf("a rule outside the catalogue gave %+v", got)
	}
}

func TestResultOfUndeclared(t *testing.T) {
	base := &Rule{Meta: Meta{ID: "pod/base"}, Check: func(*Pass) []Finding { return nil }}
	reader := &Rule{Meta: Meta{ID: "workload/reader"}, Check: func(p *Pass) []Finding { p.ResultOf(base); return nil }}
	defer func() {
		if recover() == nil {
			t.Error("reading a rule not in Requires did not panic")
		}
	}()
	NewPass(&bundle.Bundle{}, time.Now(), []*Rule{base, reader}).Run()
}
