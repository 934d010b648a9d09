package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	return err == nil
}

// tree lists every path under dir, for before/after comparisons.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func removedIDs(res *GCResult) []string {
	var out []string
	for _, rm := range res.Removed {
		out = append(out, rm.Entry.ID)
	}
	sort.Strings(out)
	return out
}

func TestGC(t *testing.T) {
	tests := []struct {
		name      string
		olderThan time.Duration
		dryRun    bool
		removed   []string
		kept      int
	}{
		// idOld finished 99h ago, idNew 59m ago, idAncient was created 300h
		// ago and never recorded completion; idRunning is investigating
		// (created 500h ago) and never collected.
		{"72h dry run", 72 * time.Hour, true, []string{idOld, idAncient}, 1},
		{"72h", 72 * time.Hour, false, []string{idOld, idAncient}, 1},
		{"0s dry run lists every finished incident", 0, true, []string{idNew, idOld, idAncient}, 0},
		{"0s", 0, false, []string{idNew, idOld, idAncient}, 0},
		{"1000h removes nothing", 1000 * time.Hour, false, nil, 3},
		{"exactly at the threshold", 99 * time.Hour, false, []string{idOld, idAncient}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := messyRoot(t)
			before, beforeOutside := tree(t, root), tree(t, outside)
			s, _ := New(root)
			res, err := s.GC(GCOptions{OlderThan: tt.olderThan, DryRun: tt.dryRun, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tt.removed)
			sort.Strings(want)
			if got := removedIDs(res); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("removed %v, want %v", got, want)
			}
			if res.Kept != tt.kept || len(res.Running) != 1 || res.Running[0].ID != idRunning {
				t.Errorf("kept %d (want %d), running %v (want %s)", res.Kept, tt.kept, ids(res.Running), idRunning)
			}
			if len(res.Skipped) != 7 {
				t.Errorf("skipped %v", res.Skipped)
			}
			for _, rm := range res.Removed {
				if rm.Err != nil || rm.Bytes < 4096 {
					t.Errorf("removal %s: %d bytes, err %v", rm.Entry.ID, rm.Bytes, rm.Err)
				}
			}
			if res.Failed() != 0 || (len(want) > 0 && res.Freed() < int64(4096*len(want))) {
				t.Errorf("failed %d freed %d", res.Failed(), res.Freed())
			}

			if tt.dryRun {
				if after := tree(t, root); !slices.Equal(before, after) {
					t.Errorf("dry run changed the root:\nbefore %v\nafter  %v", before, after)
				}
			} else {
				for _, id := range want {
					if exists(t, filepath.Join(root, id)) {
						t.Errorf("%s still exists", id)
					}
				}
				for _, id := range []string{idOld, idNew, idAncient} {
					if !slices.Contains(want, id) && !exists(t, filepath.Join(root, id, incident.FileName)) {
						t.Errorf("%s was removed but should be kept", id)
					}
				}
				entries, _ := os.ReadDir(root)
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), removingPrefix) {
						t.Errorf("gc left %s behind", e.Name())
					}
				}
			}
			// Never removed, whatever the threshold: the running incident,
			// what is not an incident, temp dirs, and anything outside.
			for _, name := range []string{idRunning, "dddd0000-0000-4000-8000-000000000005", "eeee0000-0000-4000-8000-000000000006",
				"ffff0000-0000-4000-8000-000000000007", "notes.txt", "not-an-id", "9999aaaa-0000-4000-8000-000000000009",
				"12340000-0000-4000-8000-00000000000a", ".creating-" + idOld + "-123"} {
				if !exists(t, filepath.Join(root, name)) {
					t.Errorf("gc removed %s", name)
				}
			}
			if afterOutside := tree(t, outside); !slices.Equal(beforeOutside, afterOutside) {
				t.Errorf("gc touched files outside the root:\nbefore %v\nafter  %v", beforeOutside, afterOutside)
			}
		})
	}
}

func TestGCRemovesWhatAnAgentMadeReadOnly(t *testing.T) {
	root := t.TempDir()
	dir := makeIncident(t, root, fixture{id: idOld, status: incident.Resolved, created: now.Add(-time.Hour), completed: at(time.Hour)})
	ro := filepath.Join(dir, "output", "artifacts", "ro")
	writeFile(t, filepath.Join(ro, "deep", "f"), "data")
	for _, d := range []string{filepath.Join(ro, "deep"), ro} {
		if err := os.Chmod(d, 0o500); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { os.Chmod(p, 0o700); return nil })
	})
	// A symlink inside the workspace to a file outside: removed, target kept.
	target := filepath.Join(t.TempDir(), "keep")
	writeFile(t, target, "keep")
	symlink(t, target, filepath.Join(dir, "output", "artifacts", "link"))

	s, _ := New(root)
	res, err := s.GC(GCOptions{OlderThan: time.Minute, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 1 || res.Removed[0].Err != nil {
		t.Fatalf("removed %+v", res.Removed)
	}
	if exists(t, dir) || !exists(t, target) {
		t.Errorf("workspace still there (%v) or symlink target gone (%v)", exists(t, dir), !exists(t, target))
	}
}

func TestGCFinishesAnInterruptedRemoval(t *testing.T) {
	root := t.TempDir()
	leftover := filepath.Join(root, removingPrefix+idOld)
	writeFile(t, filepath.Join(leftover, "output", "agent.log"), "partial")
	s, _ := New(root)
	if entries, skipped, _ := s.List(); len(entries)+len(skipped) != 0 {
		t.Errorf("a half-removed workspace is listed: %v %v", entries, skipped)
	}
	res, err := s.GC(GCOptions{OlderThan: time.Hour, DryRun: true, Now: now})
	if err != nil || res.Leftovers != 0 || !exists(t, leftover) {
		t.Fatalf("dry run swept leftovers: %+v %v", res, err)
	}
	res, err = s.GC(GCOptions{OlderThan: time.Hour, Now: now})
	if err != nil || res.Leftovers != 1 || exists(t, leftover) {
		t.Errorf("leftover not swept: %+v %v", res, err)
	}
}

func TestGCRejectsNegativeAndMissingRoot(t *testing.T) {
	s, _ := New(filepath.Join(t.TempDir(), "none"))
	if _, err := s.GC(GCOptions{OlderThan: -time.Hour}); err == nil {
		t.Errorf("negative duration accepted")
	}
	res, err := s.GC(GCOptions{OlderThan: time.Hour})
	if err != nil || len(res.Removed) != 0 {
		t.Errorf("missing root: %+v %v", res, err)
	}
}

func TestAgentGone(t *testing.T) {
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip("no true(1)")
	}
	e := &Entry{Incident: &incident.Incident{Status: incident.Investigating, Agent: incident.Agent{PID: c.Process.Pid}}}
	if !e.AgentGone() {
		t.Errorf("pid %d exited and was reaped: want gone", c.Process.Pid)
	}
}
