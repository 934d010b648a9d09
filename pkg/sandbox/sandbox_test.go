package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	MaybeInit() // this test binary is the init of the sandboxes it starts
	os.Exit(m.Run())
}

func TestDefaultMasks(t *testing.T) {
	got := strings.Join(DefaultMasks("/home/u"), " ")
	for _, want := range []string{"/home/u/.kube", "/home/u/.aws", "/home/u/.azure", "/home/u/.config/gcloud", "/home/u/.docker", "/home/u/.ssh", "/home/u/.netrc"} {
		if !strings.Contains(got+" ", want+" ") {
			t.Errorf("default masks lack %s", want)
		}
	}
}

func TestKubeconfigPaths(t *testing.T) {
	got := KubeconfigPaths("/a/flag.yaml", "/b/one.yaml"+string(os.PathListSeparator)+string(os.PathListSeparator)+"/c/two.yaml")
	want := []string{"/a/flag.yaml", "/b/one.yaml", "/c/two.yaml"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		spec Spec
		ok   bool
	}{
		{Spec{Mask: []string{"/h/.kube"}, Writable: []string{"/h/ws"}, Keep: []string{"/h/.claude"}}, true},
		{Spec{Mask: []string{"/h"}, Writable: []string{"/h/ws"}}, false},                // would hide the workspace
		{Spec{Mask: []string{"/h/.config"}, Keep: []string{"/h/.config/goose"}}, false}, // keep under a mask
	}
	for _, tt := range tests {
		if err := tt.spec.Normalize().Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v: err = %v, want ok=%v", tt.spec, err, tt.ok)
		}
	}
}

func TestBwrapArgs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kubeconfig")
	os.WriteFile(file, []byte("x"), 0o600)
	args := strings.Join(BwrapArgs(Spec{Mask: []string{dir + "/.aws-missing", file, dir}, Writable: []string{"/ws"}}, []string{"claude", "-p"}), " ")
	for _, want := range []string{"--ro-bind / /", "--bind /ws /ws", "--ro-bind /dev/null " + file, "--tmpfs " + dir, "--unshare-pid", "--die-with-parent", "-- claude -p"} {
		if !strings.Contains(args, want) {
			t.Errorf("bwrap args lack %q: %s", want, args)
		}
	}
	if strings.Contains(args, ".aws-missing") {
		t.Errorf("a missing path is mounted over: %s", args)
	}
}

func TestSeatbeltProfile(t *testing.T) {
	p := SeatbeltProfile(Spec{Mask: []string{"/Users/u/.kube"}, Writable: []string{"/ws"}})
	for _, want := range []string{`(deny file-read* (subpath "/Users/u/.kube"))`, "(deny file-write*)", `(allow file-write* (subpath "/ws"))`} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %s:\n%s", want, p)
		}
	}
}

func TestUnescape(t *testing.T) {
	if got := unescape(`/mnt/with\040space`); got != "/mnt/with space" {
		t.Errorf("got %q", got)
	}
}

// TestNamespaces runs a shell inside a real sandbox and checks every rule:
// masked file empty, masked dir empty, kept dir readable, writes only in the
// writable place, a fresh /proc without the parent.
func TestNamespaces(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("namespaces are Linux-only")
	}
	if err := Probe(); err != nil {
		// The refusal path is what a user on such a kernel gets; say so.
		t.Skipf("user namespaces unavailable on this kernel, the runner falls back (tested in pkg/agent): %v", err)
	}
	home := t.TempDir()
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".kube"), 0o700)
	os.WriteFile(filepath.Join(home, ".kube", "config"), []byte("planted-kube"), 0o600)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "login"), []byte("login-ok"), 0o600)
	userKC := filepath.Join(t.TempDir(), "admin.yaml")
	os.WriteFile(userKC, []byte("planted-admin"), 0o600)
	outside := t.TempDir()

	script := `cat "$H/.kube/config" 2>/dev/null; echo "|"; cat "$KC"; echo "|"; cat "$H/.claude/login"; echo "|"
touch "$O/x" 2>/dev/null && echo wrote-outside; touch "$W/ok" && echo wrote-ws; echo "|"; ls /proc | grep -c '^[0-9]'`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"H=" + home, "KC=" + userKC, "O=" + outside, "W=" + ws, "TMPDIR=" + ws, "PATH=/usr/bin:/bin"}
	spec := Spec{Mask: append(DefaultMasks(home), userKC), Keep: []string{filepath.Join(home, ".claude")}, Writable: []string{ws}}
	if err := Wrap(cmd, spec); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sandboxed shell: %v\n%s", err, out)
	}
	parts := strings.Split(strings.TrimSpace(string(out)), "|")
	if len(parts) != 5 {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if strings.Contains(parts[0], "planted") || strings.Contains(parts[1], "planted") {
		t.Errorf("masked credentials readable: %q %q", parts[0], parts[1])
	}
	if strings.TrimSpace(parts[2]) != "login-ok" {
		t.Errorf("kept config dir unreadable: %q", parts[2])
	}
	if strings.Contains(parts[3], "wrote-outside") || !strings.Contains(parts[3], "wrote-ws") {
		t.Errorf("writes: %q", parts[3])
	}
	// init, sh, and the ls | grep pipeline: nothing of the host's.
	if n := strings.TrimSpace(parts[4]); n > "4" || len(n) > 1 {
		t.Errorf("a fresh /proc shows only the sandbox's processes: got %s", n)
	}
}
