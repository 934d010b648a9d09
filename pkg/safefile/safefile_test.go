//go:build unix

package safefile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// tree makes a directory with a regular file in a subdirectory, and a
// secret outside it.
func tree(t *testing.T) (dir, secret string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "output"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "output", "report.md"), []byte("# report\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret = filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(secret, []byte("token: admin-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

func TestReadFile(t *testing.T) {
	limit := func(name string) int64 {
		if name == "output/small.txt" {
			return 4
		}
		return 0
	}
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir, secret string)
		read  string
		want  string // content, or the error's text
		why   Why
	}{
		{"regular file", nil, "output/report.md", "# report\n", 0},
		{"link to a file outside", func(t *testing.T, dir, secret string) {
			symlink(t, secret, filepath.Join(dir, "output", "link.md"))
		}, "output/link.md", "output/link.md is a symbolic link (not followed)", Link},
		{"link to a file inside", func(t *testing.T, dir, _ string) {
			symlink(t, "report.md", filepath.Join(dir, "output", "link.md"))
		}, "output/link.md", "is a symbolic link", Link},
		{"linked directory on the way", func(t *testing.T, dir, secret string) {
			symlink(t, filepath.Dir(secret), filepath.Join(dir, "linked"))
		}, "linked/kubeconfig", "/linked is a symbolic link (not followed)", Link},
		{"link to /dev/zero", func(t *testing.T, dir, _ string) {
			symlink(t, "/dev/zero", filepath.Join(dir, "output", "zero"))
		}, "output/zero", "is a symbolic link", Link},
		{"named pipe", func(t *testing.T, dir, _ string) {
			mkfifo(t, filepath.Join(dir, "output", "pipe.json"))
		}, "output/pipe.json", "output/pipe.json is not a regular file (it is a named pipe); not read", NotRegular},
		{"directory", nil, "output", "output is not a regular file (it is a directory)", NotRegular},
		{"hard link", func(t *testing.T, dir, secret string) {
			if err := os.Link(secret, filepath.Join(dir, "output", "hard.md")); err != nil {
				t.Skip(err)
			}
		}, "output/hard.md", "output/hard.md has 2 hard links", HardLinked},
		{"sparse 3 GiB", func(t *testing.T, dir, _ string) {
			if err := os.Truncate(filepath.Join(dir, "output", "report.md"), 3<<30); err != nil {
				t.Fatal(err)
			}
		}, "output/report.md", "output/report.md exceeds 16 MiB (it is 3.0 GiB); not read", TooLarge},
		{"at its own limit", func(t *testing.T, dir, _ string) {
			os.WriteFile(filepath.Join(dir, "output", "small.txt"), []byte("1234"), 0o600)
		}, "output/small.txt", "1234", 0},
		{"over its own limit", func(t *testing.T, dir, _ string) {
			os.WriteFile(filepath.Join(dir, "output", "small.txt"), []byte("12345"), 0o600)
		}, "output/small.txt", "exceeds 4 bytes (it is 5 bytes)", TooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, secret := tree(t)
			if tc.plant != nil {
				tc.plant(t, dir, secret)
			}
			start := time.Now()
			data, err := Dir{Base: dir, Limit: limit}.ReadFile(context.Background(), tc.read)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
			if tc.why == 0 {
				if err != nil || string(data) != tc.want {
					t.Fatalf("ReadFile = %q, %v; want %q", data, err, tc.want)
				}
				return
			}
			var refused *Error
			if !errors.As(err, &refused) || refused.Why != tc.why || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadFile = %q, %v; want refused (%d) with %q", data, err, tc.why, tc.want)
			}
			if data != nil || strings.Contains(err.Error(), "admin-secret") || strings.Contains(err.Error(), "\n") {
				t.Errorf("data %q, error %q", data, err)
			}
		})
	}
}

func TestMissingIsNotExist(t *testing.T) {
	dir, _ := tree(t)
	for _, name := range []string{"output/none.md", "none/report.md"} {
		if _, err := (Dir{Base: dir}).ReadFile(context.Background(), name); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want not-exist", name, err)
		}
	}
	for _, name := range []string{"../x", "/etc/passwd", "output/../../x", ""} {
		if _, err := (Dir{Base: dir}).ReadFile(context.Background(), name); err == nil {
			t.Errorf("%q: read", name)
		}
	}
}

// TestPathIsChecked: the elements of Path are checked like a name's; Base
// is the user's and followed.
func TestPathIsChecked(t *testing.T) {
	dir, secret := tree(t)
	symlink(t, dir, filepath.Join(filepath.Dir(secret), "root-link"))
	if data, err := (Dir{Base: filepath.Join(filepath.Dir(secret), "root-link"), Path: "output"}).ReadFile(context.Background(), "report.md"); err != nil || string(data) != "# report\n" {
		t.Errorf("through a linked Base: %q, %v", data, err)
	}
	symlink(t, filepath.Join(dir, "output"), filepath.Join(dir, "ws"))
	if _, err := (Dir{Base: dir, Path: "ws"}).ReadFile(context.Background(), "report.md"); !errors.Is(err, ErrRefused) {
		t.Errorf("through a linked Path: %v", err)
	}
}

func TestFileStopsAtItsLimit(t *testing.T) {
	dir, _ := tree(t)
	p := filepath.Join(dir, "output", "report.md")
	err := Dir{Base: dir, Limit: func(string) int64 { return 9 }}.Read(context.Background(), "output/report.md", func(f *File) error {
		// It grows after the check: the limit still holds.
		if err := os.WriteFile(p, []byte("# report\nand much more"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := io.ReadAll(f)
		return err
	})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "exceeds 9 bytes; not read") {
		t.Errorf("a file grown past its limit: %v", err)
	}
}

func TestDeadline(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := within(ctx, "/ws/output/agent.log", func() error { <-block; return nil })
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "/ws/output/agent.log could not be read within") {
		t.Errorf("err %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %s", d)
	}
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	if err := within(cancelled, "/x", func() error { t.Error("ran with a cancelled context"); return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestStatAndReadDir(t *testing.T) {
	dir, secret := tree(t)
	symlink(t, secret, filepath.Join(dir, "output", "link.md"))
	mkfifo(t, filepath.Join(dir, "output", "pipe"))
	d := Dir{Base: dir}
	ctx := context.Background()
	if fi, err := d.Stat(ctx, "output"); err != nil || !fi.IsDir() {
		t.Errorf("Stat(output) = %v, %v", fi, err)
	}
	if _, err := d.Stat(ctx, "output/link.md"); !errors.Is(err, ErrRefused) {
		t.Errorf("Stat of a link: %v", err)
	}
	entries, err := d.ReadDir(ctx, "output")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name()+":"+e.Type().String())
	}
	if want := "link.md:L---------,pipe:p---------,report.md:----------"; strings.Join(got, ",") != want {
		t.Errorf("ReadDir = %s, want %s", strings.Join(got, ","), want)
	}
}

func TestFS(t *testing.T) {
	dir, _ := tree(t)
	if err := os.MkdirAll(filepath.Join(dir, "context", "resources"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "context", "resources", "pod-a.json"), []byte("{}"), 0o600)
	os.WriteFile(filepath.Join(dir, "context", "logs.txt"), []byte("line\n"), 0o600)
	fsys := Dir{Base: dir}.FS(context.Background(), "context")
	if err := fstest.TestFS(fsys, "logs.txt", "resources/pod-a.json"); err != nil {
		t.Fatal(err)
	}
	// Limits see the names from where the Dir starts, not from the FS.
	seen := ""
	fsys = Dir{Base: dir, Limit: func(n string) int64 { seen = n; return 0 }}.FS(context.Background(), "context")
	if _, err := fs.ReadFile(fsys, "logs.txt"); err != nil || seen != "context/logs.txt" {
		t.Errorf("limit asked for %q (%v)", seen, err)
	}
	mkfifo(t, filepath.Join(dir, "context", "resources", "pod-b.json"))
	names, _ := fs.Glob(fsys, "resources/*.json")
	if len(names) != 2 {
		t.Fatalf("glob %v", names)
	}
	if _, err := fs.ReadFile(fsys, names[1]); !errors.Is(err, ErrRefused) {
		t.Errorf("a pipe through the FS: %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{
		512: "512 bytes", 4 << 10: "4 KiB", 1536: "1.5 KiB", 8 << 20: "8 MiB", 3 << 29: "1.5 GiB", 3 << 30: "3.0 GiB", 10<<20 + 1: "10.0 MiB",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Skip(err)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
}
