package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShimsRunInside: with a pyenv-style shim first on PATH (a script that
// execs ~/.pyenv/versions/X/bin/python3) and a volta-style link, the agent
// runs both inside the real sandbox, while a credential file inside
// ~/.pyenv stays unreadable and the rest of the home hidden.
func TestShimsRunInside(t *testing.T) {
	needNamespaces(t)
	home := t.TempDir()
	write := func(rel, content string, mode os.FileMode) {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(".pyenv/versions/3.12.1/bin/python3", "#!/bin/sh\necho python-ok\n", 0o755)
	write(".pyenv/shims/python3", "#!/bin/sh\nexec \""+home+"/.pyenv/versions/3.12.1/bin/python3\" \"$@\"\n", 0o755)
	write(".pyenv/.netrc", "machine x password planted-netrc\n", 0o600)
	write(".volta/tools/image/node/20.1.0/bin/node", "#!/bin/sh\necho node-ok\n", 0o755)
	write(".volta/bin/volta-shim", "#!/bin/sh\nexec \""+home+"/.volta/tools/image/node/20.1.0/bin/node\" \"$@\"\n", 0o755)
	if err := os.Symlink(filepath.Join(home, ".volta/bin/volta-shim"), filepath.Join(home, ".volta/bin/node")); err != nil {
		t.Fatal(err)
	}
	write("notes.txt", "planted-notes", 0o600)
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)

	path := strings.Join([]string{filepath.Join(home, ".pyenv/shims"), filepath.Join(home, ".volta/bin"), "/usr/bin", "/bin"}, ":")
	x := ComputeExposure(home, filepath.SplitList(path), nil)
	if len(x.Problems) > 0 {
		t.Fatalf("problems: %q", x.Problems)
	}
	script := `python3; echo "|"; node; echo "|"; cat "$H/.pyenv/.netrc" 2>&1; echo "|"; cat "$H/notes.txt" 2>&1; true`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = ws
	cmd.Env = []string{"H=" + home, "HOME=" + home, "PATH=" + path, "TMPDIR=" + ws}
	spec := Spec{Mask: x.Mask, Writable: []string{ws}, Home: home, Expose: x.Expose, UID: os.Getuid(), GID: os.Getgid()}
	h, err := Wrap(cmd, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runWrapped(cmd, h)
	if err != nil {
		t.Fatalf("sandboxed shell: %v\n%s", err, out)
	}
	parts := strings.Split(out, "|")
	if len(parts) != 4 {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if strings.TrimSpace(parts[0]) != "python-ok" {
		t.Errorf("the pyenv shim did not run its target inside: %q", parts[0])
	}
	if strings.TrimSpace(parts[1]) != "node-ok" {
		t.Errorf("the volta link did not run inside: %q", parts[1])
	}
	if strings.Contains(parts[2], "planted") {
		t.Errorf("a credential inside ~/.pyenv is readable: %q", parts[2])
	}
	if strings.Contains(parts[3], "planted") {
		t.Errorf("the rest of the home is visible: %q", parts[3])
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".pyenv/.netrc")); !strings.Contains(string(b), "planted-netrc") {
		t.Errorf("the credential on disk changed: %q", b)
	}
}
