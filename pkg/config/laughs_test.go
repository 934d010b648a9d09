package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBillionLaughsIsOneLine: a file whose aliases expand exponentially is
// refused with one line, not one line per expansion.
func TestBillionLaughsIsOneLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, k := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(k + ": &" + k + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n")
		prev = k
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, true)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "aliases") {
		t.Fatalf("Load = %v; want one line about aliases", err)
	}
	// A scalar alias stays supported.
	if err := os.WriteFile(path, []byte("agent: &x builtin\nwatch:\n  agent: *x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, true); err != nil {
		t.Errorf("scalar alias refused: %v", err)
	}
}
