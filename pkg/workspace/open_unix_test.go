//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

// TestOpenRefuses: a link, a pipe or an oversized file anywhere Open reads
// is one line naming it, and is left as it was.
func TestOpenRefuses(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(secret, []byte("token: admin-secret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string) string // returns the planted path
		want  string
	}{
		{"report linked out", func(t *testing.T, dir string) string {
			return link(t, secret, filepath.Join(dir, ReportFile))
		}, "output/investigation.md is a symbolic link (not followed)"},
		{"report data linked out", func(t *testing.T, dir string) string {
			return link(t, secret, filepath.Join(dir, ReportJSONFile))
		}, "output/investigation.json is a symbolic link"},
		{"incident.json linked", func(t *testing.T, dir string) string {
			return link(t, secret, filepath.Join(dir, IncidentFile))
		}, "incident.json is a symbolic link"},
		{"output linked", func(t *testing.T, dir string) string {
			out := filepath.Join(dir, OutputDir)
			os.RemoveAll(out)
			return link(t, filepath.Dir(secret), out)
		}, "/output is a symbolic link"},
		{"context linked", func(t *testing.T, dir string) string {
			moved := filepath.Join(t.TempDir(), "context")
			if err := os.Rename(filepath.Join(dir, ContextDir), moved); err != nil {
				t.Fatal(err)
			}
			return link(t, moved, filepath.Join(dir, ContextDir))
		}, "/context is a symbolic link"},
		{"events pipe", func(t *testing.T, dir string) string {
			return fifo(t, filepath.Join(dir, EventsFile))
		}, "context/events.json is not a regular file (it is a named pipe)"},
		{"resource pipe", func(t *testing.T, dir string) string {
			return fifo(t, filepath.Join(dir, ResourcesDir, "pod-zzz.json"))
		}, "context/resources/pod-zzz.json is not a regular file (it is a named pipe)"},
		{"report pipe", func(t *testing.T, dir string) string {
			return fifo(t, filepath.Join(dir, ReportJSONFile))
		}, "output/investigation.json is not a regular file"},
		{"sparse report", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ReportFile)
			if err := os.Truncate(p, 3<<30); err != nil {
				t.Fatal(err)
			}
			return p
		}, "output/investigation.md exceeds 8 MiB (it is 3.0 GiB)"},
		{"hard link", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ReportFile)
			os.Remove(p)
			if err := os.Link(secret, p); err != nil {
				t.Skip(err)
			}
			return p
		}, "output/investigation.md has 2 hard links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := capture(t)
			planted := tc.plant(t, dir)
			before, _ := os.Lstat(planted)
			start := time.Now()
			_, err := Open(context.Background(), dir, OpenOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || !errors.Is(err, safefile.ErrRefused) {
				t.Fatalf("Open: %v; want one line with %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "admin-secret-token") {
				t.Errorf("the error quotes the file: %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the refusal took %s", d)
			}
			after, aerr := os.Lstat(planted)
			if aerr != nil || before.Mode() != after.Mode() || before.Size() != after.Size() {
				t.Errorf("the refused file was changed: %v → %v (%v)", before, after, aerr)
			}
		})
	}
}

func link(t *testing.T, target, p string) string {
	t.Helper()
	os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		t.Skip(err)
	}
	return p
}

func fifo(t *testing.T, p string) string {
	t.Helper()
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	return p
}
