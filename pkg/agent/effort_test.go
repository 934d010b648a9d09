package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
)

// TestStreamEffort: each CLI's own cost figures, from the recorded real
// streams (see TestStreamRealOutput): the script ran four commands and
// wrote a report, so each CLI took five model turns.
func TestStreamEffort(t *testing.T) {
	tests := []struct {
		stream          string
		in, out, cached int64
		turns           int
		calls           effort.ToolCalls
		cost            bool
	}{
		// claude's result message: usage and num_turns; the scripted model
		// bills 10 output tokens a response.
		{stream: "claude", in: 60924, out: 50, turns: 5, calls: effort.ToolCalls{Allowed: 2, Failed: 1, Refused: 2}, cost: true},
		// codex's turn.completed usage; its turns are the stream's steps
		// (it reported no command item for the touch its sandbox ran).
		{stream: "codex", in: 86634, out: 50, turns: 4, calls: effort.ToolCalls{Allowed: 3, Failed: 2}},
		// gemini's result stats (which count its side requests' tokens
		// too); turns are the stream's steps.
		{stream: "gemini", in: 53614, out: 60, turns: 5, calls: effort.ToolCalls{Allowed: 3, Failed: 1, Refused: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.stream, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.stream+"-stream.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			c := &streamConsumer{parse: streamParsers[tt.stream], log: nopWriter{}}
			c.Write(data)
			c.flush()
			e := c.meter.effort(c.tools, tt.stream, 1500*time.Millisecond, effort.Limits{MaxTurns: 40})
			if e.TokensIn != tt.in || e.TokensOut != tt.out || e.CachedTokensIn != tt.cached || e.Turns != tt.turns || e.ToolCalls != tt.calls {
				t.Errorf("got %d in, %d out, %d cached, %d turns, %+v; want %d, %d, %d, %d, %+v",
					e.TokensIn, e.TokensOut, e.CachedTokensIn, e.Turns, e.ToolCalls, tt.in, tt.out, tt.cached, tt.turns, tt.calls)
			}
			if (e.CostUSD > 0) != tt.cost || e.WallTimeMS != 1500 || e.Limits.MaxTurns != 40 || e.Source != tt.stream {
				t.Errorf("cost %v, wall %d, limits %+v, source %q", e.CostUSD, e.WallTimeMS, e.Limits, e.Source)
			}
		})
	}
}

// TestMeter covers what the recordings do not: a limit that stopped the
// run, and per-turn usage adding up.
func TestMeter(t *testing.T) {
	var m meter
	for _, line := range []string{
		`{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":7}}`,
		`{"type":"turn.completed","usage":{"input_tokens":50,"cached_input_tokens":0,"output_tokens":3}}`,
	} {
		ev, _ := parseCodex([]byte(line))
		m.observe(ev)
	}
	if e := m.effort(ToolCalls{}, "codex", 0, effort.Limits{}); e.TokensIn != 150 || e.CachedTokensIn != 40 || e.TokensOut != 10 {
		t.Errorf("codex turns add up: %+v", e)
	}
	var mc meter
	ev, _ := parseClaude([]byte(`{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":2}}`))
	mc.observe(ev)
	if e := mc.effort(ToolCalls{}, "claude", 0, effort.Limits{MaxTurns: 3}); e.Stopped != "max turns reached" || e.TokensIn != 15 || e.CachedTokensIn != 5 || e.Turns != 3 {
		t.Errorf("claude stopped by --max-turns: %+v", e)
	}
}
