package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
)

func TestCreateIsAtomicAndPrivate(t *testing.T) {
	root := filepath.Join(t.TempDir(), "incidents")
	id := uuid.NewString()
	var seenFinal string
	ws, err := Create(root, id, func(tmp *Workspace, final string) error {
		seenFinal = final
		if _, err := os.Stat(final); !os.IsNotExist(err) {
			t.Errorf("final path exists before populate finished: %v", err)
		}
		return os.WriteFile(filepath.Join(tmp.Dir, IncidentFile), []byte("{}"), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Dir != seenFinal || ws.Dir != filepath.Join(root, id) {
		t.Errorf("dir %s, populate saw %s", ws.Dir, seenFinal)
	}
	for _, d := range []string{"", ContextDir, ResourcesDir, OutputDir, ArtifactsDir, SkillsDir} {
		fi, err := os.Stat(filepath.Join(ws.Dir, d))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%q mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(root); fi.Mode().Perm() != 0o700 {
		t.Errorf("root mode %v, want 0700", fi.Mode().Perm())
	}
}

func TestCreateLeavesNothingOnError(t *testing.T) {
	root := t.TempDir()
	boom := errors.New("boom")
	_, err := Create(root, uuid.NewString(), func(*Workspace, string) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 0 {
		t.Errorf("partial workspace left behind: %v", entries)
	}
}

func TestValidateID(t *testing.T) {
	for _, id := range []string{"", "..", "../etc", "0f8fad5b-d9cb-469f-a165-70867728950e/..", "0F8FAD5B-D9CB-469F-A165-70867728950E", "{0f8fad5b-d9cb-469f-a165-70867728950e}", "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e"} {
		if err := ValidateID(id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("ValidateID(%q) = %v, want ErrInvalidID", id, err)
		}
	}
	if err := ValidateID("0f8fad5b-d9cb-469f-a165-70867728950e"); err != nil {
		t.Error(err)
	}
	if _, err := Create(t.TempDir(), "../x", nil); !errors.Is(err, ErrInvalidID) {
		t.Errorf("Create with a path as ID: %v", err)
	}
}

func TestPathConfinement(t *testing.T) {
	ws := &Workspace{ID: "x", Dir: "/var/ws/x"}
	tests := []struct {
		rel []string
		ok  bool
	}{
		{[]string{"output", "artifacts", "a.txt"}, true},
		{[]string{"context/../output"}, true},
		{[]string{".."}, false},
		{[]string{"output/../../y"}, false},
		{[]string{"/etc/passwd"}, true}, // Join makes it relative to the workspace
		{[]string{"..x"}, true},
	}
	for _, tt := range tests {
		_, err := ws.Path(tt.rel...)
		if (err == nil) != tt.ok {
			t.Errorf("Path(%q) err = %v, want ok=%v", tt.rel, err, tt.ok)
		}
	}
}

func TestDefaultRoot(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got, _ := DefaultRoot(); got != "/state/kubectl-triage/incidents" {
		t.Errorf("with XDG_STATE_HOME: %s", got)
	}
	t.Setenv("XDG_STATE_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/u")
	if got, _ := DefaultRoot(); got != "/home/u/.local/state/kubectl-triage/incidents" {
		t.Errorf("fallback: %s", got)
	}
}

func TestCollectArtifactsRejectsEscapes(t *testing.T) {
	ws, err := Create(t.TempDir(), uuid.NewString(), nil)
	if err != nil {
		t.Fatal(err)
	}
	art := ws.MustPath(ArtifactsDir)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("outside"), 0o600)
	os.WriteFile(filepath.Join(art, "pods.txt"), []byte("ok"), 0o600)
	os.MkdirAll(filepath.Join(art, "sub"), 0o700)
	os.WriteFile(filepath.Join(art, "sub", "events.txt"), []byte("ok too"), 0o600)
	os.Symlink(outside, filepath.Join(art, "link-out"))
	os.Symlink("/etc", filepath.Join(art, "dir-link"))
	os.Symlink("pods.txt", filepath.Join(art, "link-in"))
	cat, err := ws.CollectArtifacts()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, a := range cat.Artifacts {
		got[a.Path] = true
		if len(a.SHA256) != 64 {
			t.Errorf("%s: bad hash %q", a.Path, a.SHA256)
		}
	}
	if !got["output/artifacts/pods.txt"] || !got["output/artifacts/sub/events.txt"] || len(cat.Artifacts) != 2 {
		t.Errorf("artifacts = %+v", cat.Artifacts)
	}
	if len(cat.Rejected) != 3 {
		t.Errorf("want the 3 symlinks rejected, got %+v", cat.Rejected)
	}
}
