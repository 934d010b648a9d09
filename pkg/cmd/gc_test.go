package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
)

func TestGCCommand(t *testing.T) {
	gcRoot := func(t *testing.T) string {
		root := fabricate(t, time.Now(),
			fab{id: idResolved, status: incident.Resolved, age: 100 * time.Hour, took: time.Minute, rootCause: "x", md: true},
			fab{id: idFailed, status: incident.Failed, age: 2 * time.Hour, took: time.Minute, reason: "timeout"},
			fab{id: idRunning, status: incident.Investigating, age: 1000 * time.Hour},
			fab{id: idMDOnly, status: incident.AgentFailed, age: 80 * time.Hour}, // never recorded completion
		)
		write(t, filepath.Join(root, idResolved, "output", "agent.log"), strings.Repeat("l", 3<<20))
		write(t, filepath.Join(root, "dddd0000-0000-4000-8000-000000000005", incident.FileName), "{torn")
		return root
	}
	present := func(root string) map[string]bool {
		m := map[string]bool{}
		for _, id := range []string{idResolved, idFailed, idRunning, idMDOnly, "dddd0000-0000-4000-8000-000000000005"} {
			_, err := os.Stat(filepath.Join(root, id))
			m[id] = err == nil
		}
		return m
	}
	tests := []struct {
		name    string
		args    []string
		stdout  []string // regexps
		gone    []string
		removed int
	}{
		{"dry run", []string{"--older-than", "72h", "--dry-run"},
			[]string{`(?m)^would remove ` + idResolved + `  Pod/api-0f8f -n shop  resolved, finished 4d3h ago  3\.0 MiB$`,
				`(?m)^would remove ` + idMDOnly + `  Pod/api-a1b2 -n shop  agent_failed, finished 3d8h ago  \d+ bytes$`,
				`(?m)^would remove 2 incidents, freeing 3\.0 MiB from \S+ \(kept 1 newer, 1 running\)$`}, nil, 2},
		{"remove", []string{"--older-than", "72h"},
			[]string{`(?m)^removed ` + idResolved + `  `, `(?m)^removed 2 incidents, freed 3\.0 MiB from `}, []string{idResolved, idMDOnly}, 2},
		{"every finished one, dry", []string{"--older-than", "0s", "--dry-run"},
			[]string{`would remove ` + idFailed, `(?m)^would remove 3 incidents, freeing 3\.0 MiB from \S+ \(kept 0 newer, 1 running\)$`}, nil, 3},
		{"nothing old enough", []string{"--older-than", "2000h"},
			[]string{`(?m)\Aremoved 0 incidents, freed 0 bytes from \S+ \(kept 3 newer, 1 running\)\n\z`}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := gcRoot(t)
			r := run(t, append([]string{"gc", "--workspace-root", root}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, re := range tt.stdout {
				if !regexp.MustCompile(re).MatchString(r.stdout) {
					t.Errorf("stdout does not match %s:\n%s", re, r.stdout)
				}
			}
			if !strings.Contains(r.stderr, "warning: skipping "+root+"/dddd0000-0000-4000-8000-000000000005: corrupt incident.json") ||
				!strings.Contains(r.stderr, "kept "+idRunning+"  Pod/api-7c9e -n shop: investigating") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
			p := present(root)
			for id, there := range p {
				gone := false
				for _, g := range tt.gone {
					gone = gone || g == id
				}
				if there == gone {
					t.Errorf("%s present=%v, want %v", id, there, !gone)
				}
			}
		})
	}
}

func TestGCValidation(t *testing.T) {
	root := fabricate(t, time.Now(), fab{id: idResolved, status: incident.Resolved, age: 100 * time.Hour, took: time.Minute})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--older-than is required"},
		{[]string{"--dry-run"}, "--older-than is required"},
		{[]string{"--older-than", "-1h"}, "--older-than must not be negative"},
		{[]string{"--older-than", "7d"}, `invalid argument "7d" for "--older-than"`},
		{[]string{"--older-than", "soon"}, `invalid argument "soon"`},
		{[]string{"--older-than", "1h", "extra"}, `unknown command "extra"`},
	} {
		r := run(t, append([]string{"gc", "--workspace-root", root}, tt.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("gc %v: exit %d stderr %q, want %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, idResolved)); err != nil {
		t.Errorf("an invalid gc removed something: %v", err)
	}
}

// TestGCSweepsKilledRunsSocketDirs: gc removes the egress socket directory
// a killed run left in TMPDIR (its owner, named in it, is gone), keeps a
// live run's, and --dry-run removes nothing.
func TestGCSweepsKilledRunsSocketDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := owner.Process{PID: exited.Process.Pid, StartTime: 1}
	killed := filepath.Join(tmp, "kubectl-triage-net-"+dead.Token()+"-1")
	live := filepath.Join(tmp, "kubectl-triage-net-"+owner.Self().Token()+"-2")
	for _, d := range []string{killed, live} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	for _, tt := range []struct {
		args       []string
		killedGone bool
	}{{[]string{"--dry-run"}, false}, {nil, true}} {
		r := run(t, append([]string{"gc", "--workspace-root", root, "--older-than", "72h"}, tt.args...)...)
		if r.code != 0 {
			t.Fatalf("gc %v: exit %d: %s", tt.args, r.code, r.stderr)
		}
		if _, err := os.Stat(killed); os.IsNotExist(err) != tt.killedGone {
			t.Errorf("gc %v: the killed run's directory removed=%v, want %v", tt.args, os.IsNotExist(err), tt.killedGone)
		}
		if _, err := os.Stat(live); err != nil {
			t.Errorf("gc %v removed a live run's socket directory: %v", tt.args, err)
		}
	}
}
