package auditlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Two writers on one file, concurrently: every line whole and parseable.
func TestConcurrentWritersKeepLinesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Open(path)
	var wg sync.WaitGroup
	for _, l := range []*Log{a, b} {
		wg.Add(1)
		go func(l *Log) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				l.Write(map[string]any{"i": i, "pad": strings.Repeat("x", 200)})
			}
		}(l)
	}
	wg.Wait()
	a.Close()
	b.Close()
	a.Write(map[string]int{"after": 1}) // ignored after Close
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d lines, want 1000", len(lines))
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("torn line %q: %v", l, err)
		}
	}
}
