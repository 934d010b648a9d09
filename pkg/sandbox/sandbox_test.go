package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	MaybeInit() // this test binary is the init of the sandboxes it starts
	if role := os.Getenv("SANDBOX_TEST_ROLE"); role != "" {
		os.Exit(testRole(role)) // and the agent some tests run inside them
	}
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
		{Spec{Mask: []string{"/k/admin.yaml"}, Writable: []string{"/h/ws"}, Home: "/h", HomeFiles: []string{"/h/.claude"}}, true},
		{Spec{Mask: []string{"/h"}, Writable: []string{"/h/ws"}}, false},                                 // would hide the workspace
		{Spec{Home: "/h", HomeFiles: []string{"/etc/passwd"}}, false},                                    // a home file outside the home
		{Spec{Home: "/", HomeFiles: []string{"/x"}}, false},                                              // the root is no home
		{Spec{Home: "/h", Net: &Net{Forwards: []Forward{{Addr: "127.0.0.1:1", Socket: "../x"}}}}, false}, // a socket outside the directory
	}
	for _, tt := range tests {
		if err := tt.spec.Normalize().Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v: err = %v, want ok=%v", tt.spec, err, tt.ok)
		}
	}
}

func TestExposeFor(t *testing.T) {
	home := t.TempDir()
	pkg := filepath.Join(home, ".npm-global", "lib", "node_modules", "@anthropic-ai", "claude-code")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "cli.js"), []byte("x"), 0o755)
	bin := filepath.Join(home, ".npm-global", "bin")
	os.MkdirAll(bin, 0o755)
	os.Symlink(filepath.Join(pkg, "cli.js"), filepath.Join(bin, "claude"))
	got := ExposeFor(home, []string{bin, "/usr/bin", "relative"}, filepath.Join(bin, "claude"), "/usr/bin/env")
	want := []string{bin, filepath.Join(home, ".npm-global", "lib", "node_modules")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
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
