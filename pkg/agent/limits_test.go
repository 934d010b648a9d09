package agent

import (
	"strings"
	"testing"
)

// TestLimits: the CLI's own turn and spending limits reach its command
// line where it has them (claude: --max-turns, default 40, and
// --max-budget-usd); asking one for a CLI without them is refused before
// anything runs.
func TestLimits(t *testing.T) {
	defs, err := Definitions("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		agent    string
		turns    int
		budget   float64
		want     []string // consecutive arguments
		unwanted string
		err      string
	}{
		{agent: "claude", want: []string{"--max-turns", "40"}, unwanted: "--max-budget-usd"},
		{agent: "claude", turns: 7, budget: 0.5, want: []string{"--max-turns", "7", "--max-budget-usd", "0.5"}},
		{agent: "codex", unwanted: "--max-turns"},
		{agent: "codex", turns: 5, err: "--max-turns: the codex agent's CLI has no turn limit of its own"},
		{agent: "gemini", budget: 1, err: "--max-budget-usd: the gemini agent's CLI has no spending limit of its own"},
		{agent: "claude", turns: -1, err: "must not be negative"},
	}
	for _, tt := range tests {
		h := newHarness(t)
		err := checkLimits(defs[tt.agent], Options{MaxTurns: tt.turns, MaxBudgetUSD: tt.budget})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s %d %v: error %v, want %q", tt.agent, tt.turns, tt.budget, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.agent, err)
		}
		e := h.exec(defs[tt.agent])
		e.MaxTurns, e.MaxBudgetUSD = tt.turns, tt.budget
		args, _, err := e.args(&Run{Workspace: h.ws, Incident: h.inc})
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Join(args, "\x00")
		if len(tt.want) > 0 && !strings.Contains(line, strings.Join(tt.want, "\x00")) {
			t.Errorf("%s: arguments lack %q: %q", tt.agent, tt.want, args)
		}
		if tt.unwanted != "" && strings.Contains(line, tt.unwanted) {
			t.Errorf("%s: arguments have %s: %q", tt.agent, tt.unwanted, args)
		}
	}
	if _, err := Resolve(Options{Name: BuiltinName, MaxTurns: 3}); err == nil || !strings.Contains(err.Error(), "builtin investigator takes neither") {
		t.Errorf("builtin with --max-turns: %v", err)
	}
}
