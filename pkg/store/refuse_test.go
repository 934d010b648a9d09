//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// TestReadsNeverBlockOrGrow: a pipe where a record or a report should be
// neither blocks List, Find or ReadFile nor is read; a 3 GiB sparse report
// is refused by its size; each says which file and why, and stays as it is.
func TestReadsNeverBlockOrGrow(t *testing.T) {
	root := t.TempDir()
	makeIncident(t, root, fixture{id: idOld, status: incident.Resolved, created: now.Add(-time.Hour), completed: at(59 * time.Minute), report: "# Triage: old\n"})
	makeIncident(t, root, fixture{id: idNew, status: incident.Resolved, created: now, completed: at(0), report: "# Triage: new\n"})
	pipe := filepath.Join(root, idNew, incident.FileName)
	os.Remove(pipe)
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skip(err)
	}
	s, _ := New(root)
	done := make(chan struct{})
	var entries []*Entry
	var skipped []Skipped
	var err error
	go func() {
		defer close(done)
		entries, skipped, err = s.List()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("List blocked on a pipe")
	}
	if err != nil || len(entries) != 1 || len(skipped) != 1 || skipped[0].Reason != "incident.json is not a regular file (it is a named pipe); not read" {
		t.Fatalf("List = %v, %v, %v", ids(entries), skipped, err)
	}
	if _, err := s.Find(idNew); err == nil || !strings.Contains(err.Error(), "not readable: incident.json is not a regular file (it is a named pipe)") {
		t.Errorf("Find: %v", err)
	}

	e, err := s.Find(idOld)
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(root, idOld, workspace.ReportFile)
	if err := os.Truncate(report, 3<<30); err != nil {
		t.Fatal(err)
	}
	if data, err := s.ReadFile(e, workspace.ReportFile); !errors.Is(err, safefile.ErrRefused) || data != nil ||
		err.Error() != report+" exceeds 8 MiB (it is 3.0 GiB); not read" {
		t.Errorf("ReadFile of a sparse report: %d bytes, %v", len(data), err)
	}
	if fi, err := os.Stat(report); err != nil || fi.Size() != 3<<30 {
		t.Errorf("the refused report was changed: %v %v", fi, err)
	}
	if fi, err := os.Lstat(pipe); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the refused record was changed: %v %v", fi, err)
	}
}
