package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
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
		{"no secrets passes through", nil, []string{"reading context/logs.txt\n", "done"}, "reading context/logs.txt\ndone"},
		{"other credentials masked by shape", nil, []string{"ANTHROPIC_API_KEY=sk-test-0123456789\n", "DB_PASSWORD=hunter2-x\n"},
			"ANTHROPIC_API_KEY=[REDACTED]\nDB_PASSWORD=[REDACTED]\n"},
		{"a shape split across writes", nil, []string{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.", "eyJzdWIiOiJ4In0.c2lnbmF0dXJl\n"}, "Authorization: Bearer [REDACTED]\n"},
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

// The values masked are the agent's API key variables and the secret
// fields of its login file, not its other settings.
func TestCredentialValues(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	os.WriteFile(filepath.Join(home, ".codex", "auth.json"), []byte(`{"OPENAI_API_KEY":null,"auth_mode":"chatgpt",
		"tokens":{"access_token":"acc-0123456789","refresh_token":"ref-0123456789","id_token":"idt-0123456789","account_id":"acct-1"},
		"last_refresh":"2026-11-26T10:00:00Z"}`), 0o600)
	e := &Exec{Def: &Definition{APIKeyEnv: []string{"CODEX_API_KEY", "OPENAI_API_KEY"}, LoginFiles: []string{"~/.codex/auth.json", "~/.codex/missing.json"}},
		Home: home, Environ: func() []string { return []string{"CODEX_API_KEY=key-0123456789", "PATH=/usr/bin"} }}
	got := e.credentialValues()
	sort.Strings(got)
	want := []string{"acc-0123456789", "idt-0123456789", "key-0123456789", "ref-0123456789"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("credentialValues = %q, want %q", got, want)
	}
}
