package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	if !r.failed && len(args) > 1 {
		r.msg = args[1].(string)
	}
	r.failed = true
}

// Fatalf records; the real one would also end the test there.
func (r *recorder) Fatalf(format string, args ...any) {
	if !r.failed {
		r.msg = format
	}
	r.failed = true
}
func (r *recorder) Fatal(args ...any) { r.failed = true }

func TestAssert(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	want := "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}

	r := &recorder{TB: t}
	AssertString(r, path, want)
	if r.failed {
		t.Fatalf("equal output failed: %s", r.msg)
	}

	r = &recorder{TB: t}
	AssertString(r, path, strings.Replace(want, "line 7", "line seven", 1))
	if !r.failed {
		t.Fatal("a changed line passed")
	}
	// A diff: the changed line both ways, its context, not the whole text.
	for _, s := range []string{"-line 7", "+line seven", " line 6", "@@"} {
		if !strings.Contains(r.msg, s) {
			t.Errorf("diff lacks %q:\n%s", s, r.msg)
		}
	}
	if strings.Contains(r.msg, "line 2") {
		t.Errorf("diff shows lines far from the change:\n%s", r.msg)
	}

	r = &recorder{TB: t}
	AssertString(r, path, strings.TrimSuffix(want, "\n"))
	if !r.failed || !strings.Contains(r.msg, "No newline at end of file") {
		t.Errorf("a missing final newline: failed %v, %q", r.failed, r.msg)
	}

	r = &recorder{TB: t}
	AssertString(r, filepath.Join(dir, "absent.golden"), want)
	if !r.failed || !strings.Contains(r.msg, "-update") {
		t.Errorf("a missing golden file: failed %v, %q", r.failed, r.msg)
	}
}

func TestUpdate(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "sub", "new.golden")
	AssertString(t, path, "fresh\n")
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "fresh\n" {
		t.Fatalf("-update wrote %q, %v", data, err)
	}
}
