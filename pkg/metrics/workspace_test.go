package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkspaceBytes(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(outside, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files map[string]int // relative path → size
		links map[string]string
		want  int64
	}{
		{name: "empty", want: 0},
		{name: "nested files", files: map[string]int{"incident.json": 100, "context/event.json": 20, "context/logs/app.log": 3}, want: 123},
		{
			name:  "links are not followed",
			files: map[string]int{"investigation.md": 10},
			links: map[string]string{"big": outside, "context": "/"},
			want:  10,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, size := range tt.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := WorkspaceBytes(dir)
			if err != nil {
				t.Fatalf("WorkspaceBytes: %v", err)
			}
			if got != tt.want {
				t.Errorf("WorkspaceBytes = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestWorkspaceBytesMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	_, err := WorkspaceBytes(dir)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("WorkspaceBytes(%q) error = %v, want one naming the directory", dir, err)
	}
}
