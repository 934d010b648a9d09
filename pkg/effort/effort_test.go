package effort

import "testing"

func TestString(t *testing.T) {
	tests := []struct {
		name string
		e    *Effort
		want string
	}{
		{"claude", &Effort{TokensIn: 60570, TokensOut: 40, CachedTokensIn: 500, Turns: 4, ToolCalls: ToolCalls{Allowed: 2, Failed: 1, Refused: 1},
			CostUSD: 0.243, WallTimeMS: 12345, Limits: Limits{MaxTurns: 40, MaxBudgetUSD: 2}, Source: "claude"},
			"60570 tokens in (500 cached), 40 out, 4 turns, 3 tool calls (2 allowed, 1 failed, 1 refused), about $0.2430 by the CLI's estimate, 12.3s (limits: max 40 turns, max $2.00)"},
		{"stopped by its limit", &Effort{TokensIn: 10, TokensOut: 2, Turns: 1, ToolCalls: ToolCalls{Allowed: 1}, WallTimeMS: 900, Stopped: "max turns reached"},
			"10 tokens in, 2 out, 1 turn, 1 tool call (1 allowed, 0 failed, 0 refused), 900ms; stopped: max turns reached"},
		{"a text agent reports nothing", &Effort{WallTimeMS: 2000},
			"no token or turn figures reported by the CLI, 0 tool calls (0 allowed, 0 failed, 0 refused), 2s"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	if got := (&Effort{Source: "codex", WallTimeMS: 1000}).Footer(); got != "kubectl-triage: effort (the codex CLI's own figures): no token or turn figures reported by the CLI, 0 tool calls (0 allowed, 0 failed, 0 refused), 1s." {
		t.Errorf("footer %q", got)
	}
	var none *Effort
	if none.String() != "" || none.Known() {
		t.Errorf("a nil Effort says something")
	}
}
