// Package auditlog appends JSON lines to output/audit.jsonl. The gateway
// (API requests) and the egress proxy (connections) write to the same file
// from their own goroutines; each line is written whole.
package auditlog

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Log is one writer of the audit file.
type Log struct {
	mu sync.Mutex
	f  *os.File
}

// Open appends to path, creating it (0600) when missing.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	return &Log{f: f}, nil
}

// Write appends v as one JSON line; after Close it does nothing.
func (l *Log) Write(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Write(append(line, '\n'))
	}
}

// Close closes the file; it may be called more than once.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
