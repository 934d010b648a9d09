// Package golden compares a test's output with a file kept beside the test
// (testdata/…), the way rendered output is pinned across the project: on a
// mismatch the test fails with a unified diff of the file against the
// output, not the two whole texts, and `go test -update` rewrites the files
// with what the tests got, for review with git diff.
//
// The -update flag is registered here, once, for every test binary that
// imports the package; a test package importing golden must not define a
// flag of the same name.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
)

// update is -update: write the output into the golden files instead of
// comparing.
var update = flag.Bool("update", false, "rewrite the golden files with the output the tests got")

// Updating says whether this run rewrites golden files (-update), for tests
// that write more than one file per case or skip other checks then.
func Updating() bool { return *update }

// Assert compares got with the golden file at path. With -update it writes
// got there (creating the directory) and passes.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("golden file %s does not exist (go test -update creates it)", path)
	} else if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(want, got) {
		return
	}
	t.Errorf("output differs from %s (go test -update rewrites it; review with git diff):\n%s", path, Diff(path, string(want), string(got)))
}

// AssertString is Assert for a string.
func AssertString(t testing.TB, path, got string) {
	t.Helper()
	Assert(t, path, []byte(got))
}

// Diff is the unified diff (3 lines of context) from want, the golden file
// at path, to got. A difference only in the final newline shows as such.
func Diff(path, want, got string) string {
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(want), B: lines(got),
		FromFile: path, ToFile: "got", Context: 3,
	})
	if err != nil {
		return err.Error()
	}
	return d
}

// lines splits s after each newline; a last line without one says so, as
// diff(1) does, so a lost final newline shows in the diff.
func lines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		return l[:len(l)-1]
	}
	l[len(l)-1] += "\n\\ No newline at end of file\n"
	return l
}
