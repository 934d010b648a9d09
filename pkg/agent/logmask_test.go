package agent

import (
	"bytes"
	"strings"
	"testing"
)

func TestLogMask(t *testing.T) {
	const key, longer = "sk-test-0123456789", "sk-test-0123456789-extended"
	tests := []struct {
		name   string
		values []string
		writes []string
		want   string
	}{
		{"no secrets passes through", nil, []string{"ANTHROPIC_API_KEY=sk-test-0123456789\n"}, "ANTHROPIC_API_KEY=sk-test-0123456789\n"},
		{"masked in one write", []string{key}, []string{`{"content":"KEY=` + key + `\n"}` + "\n"}, `{"content":"KEY=[REDACTED]\n"}` + "\n"},
		{"split across writes", []string{key}, []string{"a sk-test-01", "23456789 b\n"}, "a [REDACTED] b\n"},
		{"last line without newline is flushed", []string{key}, []string{"x " + key}, "x [REDACTED]"},
		{"the longer value wins", []string{key, longer}, []string{longer + " " + key + "\n"}, "[REDACTED] [REDACTED]\n"},
		{"short values are not masked", []string{"abc"}, []string{"abc abc\n"}, "abc abc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			m := newLogMask(&out, tt.values)
			for _, w := range tt.writes {
				if n, err := m.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if err := m.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got %q, want %q", out.String(), tt.want)
			}
		})
	}
}

// A runaway line (no newline past maxHeld) is written as it comes, still
// masked, even where a write ends inside the key.
func TestLogMaskRunawayLine(t *testing.T) {
	const key = "sk-test-0123456789"
	var out bytes.Buffer
	m := newLogMask(&out, []string{key})
	filler := strings.Repeat("x", maxHeld)
	m.Write([]byte(filler + "sk-test-01"))
	if out.Len() == 0 {
		t.Fatal("nothing written of a line past maxHeld")
	}
	m.Write([]byte("23456789 end"))
	m.Flush()
	if got := out.String(); strings.Contains(got, "sk-test-01") || !strings.HasSuffix(got, "x[REDACTED] end") || len(got) != len(filler)+len("[REDACTED] end") {
		t.Errorf("runaway line not masked: ...%q", got[max(0, len(got)-40):])
	}
}
