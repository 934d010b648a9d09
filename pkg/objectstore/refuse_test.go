//go:build unix

package objectstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// TestFileStoreReadsRefuse: a file:// store's directory is read as a
// workspace is: a link left in it (to a kubeconfig) is not followed, a pipe
// does not block, a sparse 3 GiB report is not read, and a linked
// incident.json is skipped by List with its reason.
func TestFileStoreReadsRefuse(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(ctx, "file://"+dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inc := finishedWorkspace(t, t.TempDir(), "prod", time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	if err := s.Publish(ctx, inc, true); err != nil {
		t.Fatal(err)
	}
	e, err := s.Find(ctx, inc.IncidentID)
	if err != nil {
		t.Fatal(err)
	}
	stored := filepath.Join(dir, filepath.FromSlash(Key(inc)))
	secret := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(secret, []byte("token: admin-secret-in-kubeconfig\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(stored, filepath.FromSlash(workspace.ReportFile))
	for _, tc := range []struct {
		name  string
		plant func(p string) error
		want  string
	}{
		{"link to a kubeconfig", func(p string) error { return os.Symlink(secret, p) }, "investigation.md is a symbolic link (not followed)"},
		{"named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "investigation.md is not a regular file (it is a named pipe)"},
		{"sparse 3 GiB", func(p string) error {
			if err := os.WriteFile(p, []byte("# report\n"), 0o600); err != nil {
				return err
			}
			return os.Truncate(p, 3<<30)
		}, "investigation.md exceeds 8 MiB (it is 3.0 GiB)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(report)
			if err := tc.plant(report); err != nil {
				t.Skip(err)
			}
			start := time.Now()
			data, err := s.ReadFile(ctx, e, workspace.ReportFile)
			if !errors.Is(err, safefile.ErrRefused) || !strings.Contains(err.Error(), tc.want) || data != nil {
				t.Fatalf("ReadFile = %q, %v; want refused with %q", data, err, tc.want)
			}
			if strings.Contains(err.Error(), "admin-secret") || time.Since(start) > 5*time.Second {
				t.Errorf("%v after %s", err, time.Since(start))
			}
		})
	}

	record := filepath.Join(stored, workspace.IncidentFile)
	moved := filepath.Join(t.TempDir(), workspace.IncidentFile)
	if err := os.Rename(record, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, record); err != nil {
		t.Skip(err)
	}
	entries, skipped, err := s.List(ctx)
	if err != nil || len(entries) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0].Reason, "incident.json is a symbolic link (not followed)") {
		t.Errorf("List = %v, %v, %v; want the linked record skipped with its reason", entries, skipped, err)
	}
}

// TestRemoteReadsAreCapped: an object larger than its file's limit is
// refused before it is read (Azurite).
func TestRemoteReadsAreCapped(t *testing.T) {
	needAzurite(t)
	ctx := context.Background()
	s, err := Open(ctx, srv.URL(fmt.Sprintf("capped-%d-%d", time.Now().UnixNano()%1e6, containerSeq.Add(1))), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inc := finishedWorkspace(t, t.TempDir(), "prod", time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	if err := s.Publish(ctx, inc, true); err != nil {
		t.Fatal(err)
	}
	e, err := s.Find(ctx, inc.IncidentID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.write(ctx, Key(inc)+workspace.ReportFile, bytes.Repeat([]byte("x"), 9<<20)); err != nil {
		t.Fatal(err)
	}
	if data, err := s.ReadFile(ctx, e, workspace.ReportFile); !errors.Is(err, safefile.ErrRefused) || !strings.Contains(err.Error(), "investigation.md exceeds 8 MiB (it is 9 MiB)") || data != nil {
		t.Errorf("ReadFile of a 9 MiB report = %d bytes, %v", len(data), err)
	}
}

// TestCollectSkipsWhatItRefuses: the upload reads the workspace as every
// reader does: a pipe or a link is left out and said so, never opened.
func TestCollectSkipsWhatItRefuses(t *testing.T) {
	inc := finishedWorkspace(t, t.TempDir(), "prod", time.Now())
	if err := syscall.Mkfifo(filepath.Join(inc.Workspace, "output", "pipe.json"), 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	var files []file
	var skipped []string
	var err error
	go func() {
		defer close(done)
		files, skipped, err = collect(inc.Workspace)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("collect blocked on a pipe")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f.rel, "pipe.json") || strings.HasSuffix(f.rel, "passwd") {
			t.Errorf("%s uploaded", f.rel)
		}
	}
	got := strings.Join(skipped, "\n")
	if !strings.Contains(got, "output/pipe.json is not a regular file (it is a named pipe)") || !strings.Contains(got, "output/artifacts/passwd is a symbolic link (not followed)") {
		t.Errorf("skipped:\n%s", got)
	}
}
