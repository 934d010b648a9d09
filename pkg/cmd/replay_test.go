package cmd

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// replayCapture is a workspace the real-node tier captured from a real
// kubelet (context/ and the builtin report's data, no incident.json).
const replayCapture = "../investigate/testdata/real/crashloop-envconfig/after-restarts"

const idReplay = "5429b028-1111-4222-8333-444444444444"

// copyDir copies a captured workspace (regular files only).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(t, filepath.Join(to, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func savedReport(t *testing.T, dir string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, workspace.ReportJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// replayRoot is a workspace root holding the capture as incident idReplay,
// with incident.json and the markdown the engine would have saved.
func replayRoot(t *testing.T) (root, dir string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "incidents")
	dir = filepath.Join(root, idReplay)
	copyDir(t, replayCapture, dir)
	// What this build's engine would have saved for the capture (the
	// capture's own output is an older build's: --diff tells them apart).
	c, err := workspace.Open(context.Background(), dir, workspace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep := investigate.Investigate(c.Bundle, investigate.Options{Agent: "builtin", Severity: c.Report.Severity, Now: c.Report.Time})
	started := rep.Time.Add(-time.Second) // the builtin report's own time must win
	inc := &incident.Incident{
		IncidentID: idReplay, Status: incident.Resolved, Severity: rep.Severity,
		Resource:  fault.Resource{APIVersion: "v1", Kind: rep.Resource.Kind, Name: rep.Resource.Name, Namespace: rep.Resource.Namespace},
		CreatedAt: started.Add(-time.Second), StartedAt: &started,
		Agent: incident.Agent{Name: "builtin"}, Workspace: dir,
	}
	if err := incident.Save(filepath.Join(dir, incident.FileName), inc); err != nil {
		t.Fatal(err)
	}
	rep.IncidentID = idReplay
	data, _ := json.Marshal(rep)
	write(t, filepath.Join(dir, workspace.ReportJSONFile), string(data))
	write(t, filepath.Join(dir, workspace.ReportFile), rep.Markdown())
	return root, dir
}

// snapshot is every file of a tree and its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			m[p] = string(data)
		}
		return err
	})
	return m
}

func TestReplay(t *testing.T) {
	root, dir := replayRoot(t)
	before := snapshot(t, root)
	want := savedReport(t, dir)
	// No cluster anywhere: a kubeconfig that does not exist.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))

	for _, args := range [][]string{
		{"replay", dir},
		{"replay", idReplay, "--workspace-root", root},
		{"replay", idReplay[:6], "--workspace-root", root},
	} {
		r := run(t, args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		got := report.Sections(r.stdout)["root cause"]
		if got == "" || got != report.Sections(want.Markdown())["root cause"] {
			t.Errorf("%v: root cause\n%s\nwant\n%s", args, got, report.Sections(want.Markdown())["root cause"])
		}
		if !strings.Contains(r.stdout, "incident "+idReplay+" · ") || !strings.Contains(r.stdout, want.Time.UTC().Format(time.RFC3339)) {
			t.Errorf("%v: header does not carry the incident and the capture time %s:\n%s", args, want.Time, strings.SplitN(r.stdout, "\n", 3)[1])
		}
	}

	r := run(t, "replay", dir, "-o", "json")
	var got report.Report
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
		t.Fatalf("-o json: exit %d, %v: %s", r.code, err, r.stderr)
	}
	if got.RootCause.Category != want.RootCause.Category || !got.Time.Equal(want.Time) {
		t.Errorf("-o json: category %q at %s, want %q at %s", got.RootCause.Category, got.Time, want.RootCause.Category, want.Time)
	}

	r = run(t, "replay", dir, "--diff")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 1 || !strings.HasPrefix(r.stdout, "No difference") {
		t.Errorf("--diff of an unchanged replay: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if after := snapshot(t, root); len(after) != len(before) {
		t.Errorf("replay wrote into the workspace: %d files, had %d", len(after), len(before))
	} else {
		for p, data := range before {
			if after[p] != data {
				t.Errorf("replay changed %s", p)
			}
		}
	}

	// A saved report that says something else: the diff shows it, exit 2.
	md := filepath.Join(dir, workspace.ReportFile)
	data, _ := os.ReadFile(md)
	write(t, md, strings.Replace(string(data), "## Root cause\n\n**", "## Root cause\n\n**It was DNS. ", 1))
	r = run(t, "replay", dir, "--diff")
	if r.code != ExitReplayDiffers || !strings.Contains(r.stdout, "--- saved/output/investigation.md") ||
		!strings.Contains(r.stdout, "\n-**It was DNS. ") || !strings.Contains(r.stdout, "\n+**"+want.RootCause.Statement) {
		t.Errorf("--diff of a changed report: exit %d, stdout\n%s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestReplayErrors: every refusal is one kubectl-like line, exit 1.
func TestReplayErrors(t *testing.T) {
	root, dir := replayRoot(t)
	empty := t.TempDir()
	noContext := t.TempDir()
	write(t, filepath.Join(noContext, incident.FileName), `{"incidentId":"x"}`)
	noTarget := t.TempDir()
	write(t, filepath.Join(noTarget, "context", "cluster-info.json"), `{}`)
	file := filepath.Join(t.TempDir(), "f")
	write(t, file, "x")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no argument", []string{"replay"}, "replay needs exactly one workspace directory or incident ID, got 0 arguments"},
		{"two arguments", []string{"replay", dir, dir}, "got 2 arguments"},
		{"unknown output", []string{"replay", dir, "-o", "wide"}, `unknown output format "wide"`},
		{"diff and output", []string{"replay", dir, "--diff", "-o", "json"}, "none of the others can be"},
		{"invalid ID", []string{"replay", "zz"}, `invalid incident ID "zz"`},
		{"ID not found", []string{"replay", "abcd", "--workspace-root", root}, `no incident matches "abcd" in ` + root + "; run 'kubectl triage list'"},
		{"no such directory", []string{"replay", dir + "-nope"}, "workspace " + dir + "-nope: no such directory"},
		{"a file", []string{"replay", file}, "workspace " + file + ": not a directory"},
		{"not a workspace", []string{"replay", empty}, empty + " is not an incident workspace: it has neither incident.json nor context/"},
		{"missing context", []string{"replay", noContext}, "workspace " + noContext + " has no context/ to replay"},
		{"no target", []string{"replay", noTarget}, "none of incident.json, context/event.json or output/investigation.json names the triaged resource"},
		{"nothing to diff", []string{"replay", replayCapture + "/../first-failure", "--diff"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.args...)
			if tc.want == "" { // a capture with only investigation.json: compared rendered (an older build's: it may differ)
				if (r.code != 0 && r.code != 2) || !strings.Contains(r.stdout, "investigation.json") {
					t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
				}
				return
			}
			if r.code != ExitError || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

// TestReplayCompletion: incident IDs like show, directories for a path.
func TestReplayCompletion(t *testing.T) {
	root, _ := replayRoot(t)
	r := run(t, "__complete", "replay", "--workspace-root", root, "5429")
	if !strings.Contains(r.stdout, idReplay+"\tPod/orders -n rn-crashloop-envconfig resolved") || !strings.HasSuffix(strings.TrimSpace(r.stdout), ":4") {
		t.Errorf("ID completion:\n%s", r.stdout)
	}
	r = run(t, "__complete", "replay", "--workspace-root", root, "./inc")
	if strings.Contains(r.stdout, idReplay) || !strings.HasSuffix(strings.TrimSpace(r.stdout), ":16") {
		t.Errorf("path completion:\n%s", r.stdout)
	}
}

// TestWorkspaceArg: only an argument that names a workspace (a directory
// with incident.json, or a word written as a path) makes the triage command
// suggest replay; resources, pod names and a directory without incident.json
// named without a path do not.
func TestWorkspaceArg(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join("incident-0f8f", "context"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("incident-0f8f", incident.FileName), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("web", 0o755); err != nil { // a directory that happens to share a pod's name
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string // "" when none is a workspace
	}{
		{[]string{"incident-0f8f"}, "incident-0f8f"},
		{[]string{"incident-0f8f/"}, "incident-0f8f/"},
		{[]string{"./incident-0f8f"}, "./incident-0f8f"},
		{[]string{"../elsewhere"}, "../elsewhere"},
		{[]string{"/var/lib/incidents/0f8f"}, "/var/lib/incidents/0f8f"},
		{[]string{"~/incidents/0f8f"}, "~/incidents/0f8f"},
		{[]string{"."}, "."},
		{[]string{"replya", "./incident-0f8f"}, "./incident-0f8f"},
		{[]string{"web"}, ""},
		{[]string{"deploy"}, ""},
		{[]string{"pod/web-0"}, ""},
		{[]string{"deployment", "web"}, ""},
		{[]string{"incident-0f8f/context"}, ""}, // TYPE/NAME-shaped, and no incident.json there
	}
	for _, tt := range tests {
		got, ok := workspaceArg(tt.args)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("workspaceArg(%q) = %q, %v; want %q", tt.args, got, ok, tt.want)
		}
	}
}
