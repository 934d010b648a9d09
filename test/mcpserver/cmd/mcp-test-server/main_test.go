package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
)

func TestRestamp(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	const ts = "2030-01-02T03:04:05Z"
	tests := []struct {
		name, frame string
		want        map[string]string // JSON path → value
	}{
		{"flat", `{"method":"notifications/message","params":{"logger":"kubernetes/faults","data":{"timestamp":"2026-01-01T00:00:00Z"}}}`,
			map[string]string{"timestamp": ts}},
		{"nested", `{"method":"notifications/message","params":{"logger":"kubernetes/events","data":{"event":{"timestamp":"x","lastTimestamp":"y","firstTimestamp":"z"}}}}`,
			map[string]string{"event.timestamp": ts, "event.lastTimestamp": ts, "event.firstTimestamp": "z"}},
		{"no timestamp added", `{"method":"notifications/message","params":{"data":{"error":"e"}}}`,
			map[string]string{"timestamp": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f struct {
				Params struct {
					Data struct {
						Timestamp string            `json:"timestamp"`
						Event     map[string]string `json:"event"`
					} `json:"data"`
				} `json:"params"`
			}
			if err := json.Unmarshal(restamp([]byte(tt.frame), now), &f); err != nil {
				t.Fatal(err)
			}
			d := f.Params.Data
			got := map[string]string{"timestamp": d.Timestamp}
			for k, v := range d.Event {
				got["event."+k] = v
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s = %q, want %q", k, got[k], want)
				}
			}
		})
	}
}

// TestDemoFaults: the built-in frames are faults about resources in
// namespace default.
func TestDemoFaults(t *testing.T) {
	frames := mcpserver.SplitFrames(demoFaults)
	if len(frames) < 2 {
		t.Fatalf("%d built-in frames, want at least 2 (the make target's --max-incidents 2)", len(frames))
	}
	for i, fr := range frames {
		var f struct {
			Params struct {
				Logger string `json:"logger"`
				Data   struct {
					Resource struct{ Kind, Name, Namespace string } `json:"resource"`
				} `json:"data"`
			} `json:"params"`
		}
		if err := json.Unmarshal(fr, &f); err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		r := f.Params.Data.Resource
		if f.Params.Logger != mcpserver.LoggerFaults || r.Namespace != "default" || r.Kind == "" || r.Name == "" {
			t.Errorf("frame %d: logger %q resource %+v, want a kubernetes/faults fault in namespace default", i+1, f.Params.Logger, r)
		}
	}
}
