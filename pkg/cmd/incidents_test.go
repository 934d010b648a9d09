package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

const (
	idResolved = "0f8fad5b-d9cb-469f-a165-70867728950e"
	idFailed   = "0f8fad5c-1111-4222-8333-444444444444"
	idRunning  = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	idMDOnly   = "a1b2c3d4-0000-4000-8000-000000000000"
)

type fab struct {
	id         string
	status     incident.Status
	age        time.Duration // since creation
	took       time.Duration // creation to completion; 0 = not completed
	reason     string
	rootCause  string
	md, asJSON bool
}

// fabricate writes incident workspaces under a fresh root, relative to now.
func fabricate(t *testing.T, now time.Time, incidents ...fab) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "incidents")
	for _, f := range incidents {
		dir := filepath.Join(root, f.id)
		if err := os.MkdirAll(filepath.Join(dir, "output"), 0o700); err != nil {
			t.Fatal(err)
		}
		inc := &incident.Incident{
			IncidentID: f.id, TriggeringEventID: "ev", Status: f.status, FailureReason: f.reason,
			Cluster: "prod", Context: "prod-admin", Namespace: "shop",
			Resource:  fault.Resource{Kind: "Pod", Name: "api-" + f.id[:4], Namespace: "shop"},
			FaultType: "CrashLoop", Severity: "critical",
			CreatedAt: now.Add(-f.age).UTC(),
			Agent:     incident.Agent{Name: "builtin", State: incident.AgentRunning},
			Workspace: dir,
		}
		if f.took > 0 {
			c := inc.CreatedAt.Add(f.took)
			inc.StartedAt, inc.CompletedAt = &inc.CreatedAt, &c
			code := 0
			inc.Agent.ExitCode = &code
			inc.Agent.State = incident.AgentSuccess
		}
		if f.rootCause != "" {
			inc.Report = &incident.ReportRef{Path: filepath.Join(dir, workspace.ReportFile), RootCause: f.rootCause, Confidence: 0.95, ConfidenceLevel: "verified"}
		}
		if f.md {
			write(t, filepath.Join(dir, workspace.ReportFile), "# Triage: Pod/api-"+f.id[:4]+" (shop) — "+f.rootCause+"\n")
		}
		if f.asJSON {
			write(t, filepath.Join(dir, workspace.ReportJSONFile), `{"incidentId":"`+f.id+`","title":"`+f.rootCause+`"}`)
		}
		if err := incident.Save(filepath.Join(dir, incident.FileName), inc); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	return root
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// standardRoot holds one incident of each kind.
func standardRoot(t *testing.T) string {
	now := time.Now()
	return fabricate(t, now,
		fab{id: idResolved, status: incident.Resolved, age: 3 * time.Hour, took: 12 * time.Second,
			rootCause: "container app exits 1 because the required environment variable DATABASE_URL is not set in the pod spec", md: true, asJSON: true},
		fab{id: idFailed, status: incident.Failed, age: 2 * time.Hour, took: 10 * time.Minute, reason: "timeout"},
		fab{id: idRunning, status: incident.Investigating, age: time.Minute},
		fab{id: idMDOnly, status: incident.Resolved, age: 5 * time.Hour, took: time.Minute, rootCause: "image tag does not exist", md: true},
	)
}

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
	return result{code, out.String(), errOut.String()}
}

func TestListTable(t *testing.T) {
	root := standardRoot(t)
	write(t, filepath.Join(root, "dddd0000-0000-4000-8000-000000000005", incident.FileName), "{torn")
	write(t, filepath.Join(root, ".creating-"+idResolved+"-1", incident.FileName), "{}")

	r := run(t, "list", "--workspace-root", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want header + 4 rows:\n%s", r.stdout)
	}
	for _, col := range []string{"ID", "AGE", "STATUS", "AGENT", "RESOURCE", "FAULT", "ROOT CAUSE"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("header lacks %s: %q", col, lines[0])
		}
	}
	if strings.Contains(lines[0], "WORKSPACE") {
		t.Errorf("wide column in the default table: %q", lines[0])
	}
	// Newest first; IDs shortened to 8 characters (they differ there).
	for i, prefix := range []string{"7c9e6679 ", "0f8fad5c ", "0f8fad5b ", "a1b2c3d4 "} {
		if !strings.HasPrefix(lines[i+1], prefix) {
			t.Errorf("row %d = %q, want it to start with %q", i+1, lines[i+1], prefix)
		}
	}
	if !strings.Contains(lines[3], "resolved") || !strings.Contains(lines[3], "Pod/api-0f8f -n shop") || !strings.Contains(lines[3], "CrashLoop") ||
		!strings.Contains(lines[3], "3h") || !strings.HasSuffix(lines[3], "the required environment…") {
		t.Errorf("resolved row: %q", lines[3])
	}
	if !strings.HasSuffix(lines[2], "(timeout)") || !strings.HasSuffix(lines[1], "<none>") || !strings.Contains(lines[1], "investigating") {
		t.Errorf("failed/running rows: %q / %q", lines[2], lines[1])
	}
	if !strings.Contains(r.stderr, "warning: skipping "+root+"/dddd0000-0000-4000-8000-000000000005: corrupt incident.json") {
		t.Errorf("stderr lacks the corrupt workspace warning: %q", r.stderr)
	}
	if strings.Contains(r.stderr, ".creating-") {
		t.Errorf("temp dirs must be ignored silently: %q", r.stderr)
	}

	r = run(t, "list", "--workspace-root", root, "-n", "elsewhere")
	if r.code != 0 || r.stdout != "" || !strings.HasSuffix(r.stderr, "\nNo incidents found in "+root+" in namespace elsewhere.\n") {
		t.Errorf("-n elsewhere: %q %q", r.stdout, r.stderr)
	}
	if r = run(t, "list", "--workspace-root", root, "-n", "shop", "--no-headers"); strings.Count(r.stdout, "\n") != 4 {
		t.Errorf("-n shop: %q", r.stdout)
	}

	r = run(t, "list", "--workspace-root", root, "--no-headers", "--status", "resolved")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 2 || strings.Contains(r.stdout, "STATUS") || strings.Contains(r.stdout, "failed") {
		t.Errorf("--no-headers --status resolved: %q", r.stdout)
	}
}

func TestListWide(t *testing.T) {
	root := standardRoot(t)
	r := run(t, "list", "-o", "wide", "--workspace-root", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	for _, col := range []string{"CLUSTER", "NAMESPACE", "CONFIDENCE", "DURATION", "WORKSPACE"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("wide header lacks %s: %q", col, lines[0])
		}
	}
	if !strings.HasPrefix(lines[3], idResolved+" ") || !strings.Contains(lines[3], "verified (0.95)") || !strings.Contains(lines[3], "12s") ||
		!strings.Contains(lines[3], " prod ") || !strings.HasSuffix(lines[3], filepath.Join(root, idResolved)) {
		t.Errorf("wide row: %q", lines[3])
	}
	if !strings.Contains(lines[1], "<none>") {
		t.Errorf("running incident has no duration or confidence: %q", lines[1])
	}
}

func TestIncidentTableGolden(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	root := fabricate(t, now,
		fab{id: idResolved, status: incident.Resolved, age: 26 * time.Hour, took: 90 * time.Second, rootCause: "missing env DATABASE_URL"},
		fab{id: idFailed, status: incident.AgentFailed, age: time.Hour, took: time.Minute, reason: "missing or invalid investigation report"},
	)
	s, _ := store.New(root)
	entries, _, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := printers.NewTablePrinter(printers.PrintOptions{}).PrintObj(incidentTable(entries, false, now), &buf); err != nil {
		t.Fatal(err)
	}
	want := `ID         AGE   STATUS         AGENT     RESOURCE               FAULT       ROOT CAUSE
0f8fad5c   60m   agent_failed   builtin   Pod/api-0f8f -n shop   CrashLoop   (missing or invalid investigation report)
0f8fad5b   26h   resolved       builtin   Pod/api-0f8f -n shop   CrashLoop   missing env DATABASE_URL
`
	if buf.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestUniquePrefixLen(t *testing.T) {
	tests := []struct {
		ids  []string
		want int
	}{
		{nil, 8},
		{[]string{idResolved}, 8},
		{[]string{idResolved, idFailed}, 8},
		{[]string{"0f8fad5b-aaaa", "0f8fad5b-aaab"}, 13},
		{[]string{"same", "same"}, 8},
	}
	for _, tt := range tests {
		if got := uniquePrefixLen(tt.ids, 8); got != tt.want {
			t.Errorf("uniquePrefixLen(%v) = %d, want %d", tt.ids, got, tt.want)
		}
	}
}

func TestListJSONAndYAML(t *testing.T) {
	root := standardRoot(t)
	r := run(t, "list", "-o", "json", "--workspace-root", root)
	var list struct {
		APIVersion, Kind string
		Items            []incident.Incident
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 0 {
		t.Fatalf("list -o json: %v (exit %d)\n%s", err, r.code, r.stdout)
	}
	if list.Kind != "List" || list.APIVersion != "v1" || len(list.Items) != 4 || list.Items[0].IncidentID != idRunning || list.Items[2].Report.RootCause == "" {
		t.Errorf("list -o json: %+v", list)
	}
	r = run(t, "list", "-o", "yaml", "--workspace-root", root, "--status", "failed")
	list.Items = nil
	if err := yaml.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Items) != 1 || list.Items[0].FailureReason != "timeout" || !strings.Contains(r.stdout, "kind: List") {
		t.Errorf("list -o yaml --status failed: %v\n%s", err, r.stdout)
	}
	// An empty root still prints a (empty) List: scripts get data, not a message.
	r = run(t, "list", "-o", "json", "--workspace-root", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, `"items": []`) {
		t.Errorf("empty -o json: %q %q", r.stdout, r.stderr)
	}
}

func TestListEmpty(t *testing.T) {
	for name, root := range map[string]string{"missing root": filepath.Join(t.TempDir(), "none"), "empty root": t.TempDir()} {
		t.Run(name, func(t *testing.T) {
			r := run(t, "list", "--workspace-root", root)
			if r.code != 0 || r.stdout != "" || r.stderr != "No incidents found in "+root+".\n" {
				t.Errorf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
	root := standardRoot(t)
	r := run(t, "list", "--workspace-root", root, "--status", "agent_failed")
	if r.code != 0 || r.stderr != "No incidents found in "+root+" with status agent_failed.\n" {
		t.Errorf("filtered to nothing: %q", r.stderr)
	}
}

func TestWorkspaceRootResolution(t *testing.T) {
	root := standardRoot(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(workspace.EnvWorkspaceRoot, "")
	for name, args := range map[string][]string{
		"flag after":             {"list", "--workspace-root", root},
		"flag before subcommand": {"--workspace-root", root, "list"},
		"flag with =":            {"list", "--workspace-root=" + root},
		"with kubectl flags":     {"--kubeconfig", "/nonexistent", "list", "--context", "x", "--workspace-root", root},
	} {
		t.Run(name, func(t *testing.T) {
			if r := run(t, args...); r.code != 0 || strings.Count(r.stdout, "\n") != 5 {
				t.Errorf("exit %d, stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("env", func(t *testing.T) {
		t.Setenv(workspace.EnvWorkspaceRoot, root)
		if r := run(t, "list"); strings.Count(r.stdout, "\n") != 5 {
			t.Errorf("WORKSPACE_ROOT ignored: %q %q", r.stdout, r.stderr)
		}
		if r := run(t, "list", "--workspace-root", t.TempDir()); r.stdout != "" {
			t.Errorf("the flag must win over WORKSPACE_ROOT: %q", r.stdout)
		}
	})
	t.Run("default", func(t *testing.T) {
		def, _ := workspace.DefaultRoot()
		if r := run(t, "list"); r.stderr != "No incidents found in "+def+".\n" {
			t.Errorf("default root: %q", r.stderr)
		}
	})
	// The triage command keeps its own --workspace-root.
	t.Run("triage", func(t *testing.T) {
		c := NewCmdTriage(genericiooptions.NewTestIOStreamsDiscard())
		found, rest, err := c.Find([]string{"pod/x", "--workspace-root", root})
		if err != nil || found != c {
			t.Fatalf("pod/x resolved to %v, %v", found.Name(), err)
		}
		if err := found.ParseFlags(rest); err != nil {
			t.Fatal(err)
		}
		if v, _ := found.Flags().GetString("workspace-root"); v != root {
			t.Errorf("triage --workspace-root = %q", v)
		}
	})
}

func TestListValidation(t *testing.T) {
	root := standardRoot(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--status", "done"}, `unknown status "done": use resolved, failed, agent_failed, investigating`},
		{[]string{"list", "--status", "resolved,nope"}, `unknown status "nope"`},
		{[]string{"list", "-o", "xml"}, `unknown output format "xml"`},
		{[]string{"list", "extra"}, `unknown command "extra" for "kubectl triage list"`},
	} {
		r := run(t, append(tt.args, "--workspace-root", root)...)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d stderr %q, want %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

func TestShow(t *testing.T) {
	root := standardRoot(t)
	sneaky := filepath.Join(filepath.Dir(root), "secret")
	write(t, sneaky, "TOKEN=hunter2")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stdout string // prefix
		stderr string // substring
	}{
		{"prefix", []string{"show", "0f8fad5b"}, 0, "# Triage: Pod/api-0f8f (shop) — container app exits", ""},
		{"full ID", []string{"show", idMDOnly}, 0, "# Triage: Pod/api-a1b2 (shop) — image tag", ""},
		{"upper case", []string{"show", "A1B2C3D4"}, 0, "# Triage: Pod/api-a1b2", ""},
		{"json", []string{"show", "0f8fad5b", "--json"}, 0, `{"incidentId":"` + idResolved + `"`, ""},
		{"path", []string{"show", "7c9e", "--path"}, 0, filepath.Join(root, idRunning) + "\n", ""},
		{"markdown only", []string{"show", "a1b2", "--json"}, 1, "", "incident " + idMDOnly + " has no investigation.json (its agent wrote only markdown)"},
		{"failed has no report", []string{"show", "0f8fad5c"}, 1, "", "has no report: it ended failed (timeout); the agent's output is in " + filepath.Join(root, idFailed, "output/agent.log")},
		{"still running", []string{"show", "7c9e"}, 1, "", "still being investigated"},
		{"ambiguous", []string{"show", "0f8f"}, 1, "", `incident ID prefix "0f8f" is ambiguous: it matches 2 incidents in ` + root},
		{"unknown", []string{"show", "abcd"}, 1, "", `no incident matches "abcd" in ` + root + "; run 'kubectl triage list'"},
		{"too short", []string{"show", "0f8"}, 1, "", "at least 4 characters"},
		{"traversal", []string{"show", "../secret"}, 1, "", `invalid incident ID "../secret"`},
		{"slash", []string{"show", "0f8fad5b/../../secret"}, 1, "", "invalid incident ID"},
		{"dots", []string{"show", ".."}, 1, "", "invalid incident ID"},
		{"no ID", []string{"show"}, 1, "", "show needs exactly one incident ID"},
		{"two IDs", []string{"show", "0f8fad5b", "7c9e"}, 1, "", "show needs exactly one incident ID"},
		{"json and path", []string{"show", "0f8fad5b", "--json", "--path"}, 1, "", "none of the others can be"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append(tt.args, "--workspace-root", root)...)
			if r.code != tt.code || !strings.HasPrefix(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %q (want prefix %q)\nstderr %q (want %q)", r.code, tt.code, r.stdout, tt.stdout, r.stderr, tt.stderr)
			}
			if strings.Contains(r.stdout, "hunter2") {
				t.Errorf("read outside the root")
			}
		})
	}
	// A report replaced by a symlink out of the workspace is not followed.
	report := filepath.Join(root, idMDOnly, workspace.ReportFile)
	os.Remove(report)
	if err := os.Symlink(sneaky, report); err != nil {
		t.Skip(err)
	}
	r := run(t, "show", "a1b2", "--workspace-root", root)
	if r.code != 1 || strings.Contains(r.stdout, "hunter2") {
		t.Errorf("followed a symlink out of the workspace: exit %d %q", r.code, r.stdout)
	}
}

func TestStatus(t *testing.T) {
	root := standardRoot(t)
	r := run(t, "status", "0f8fad5b", "--workspace-root", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := fields(r.stdout)
	for k, want := range map[string]string{
		"Incident": idResolved, "Status": "resolved", "Resource": "Pod/api-0f8f -n shop",
		"Cluster": "prod (context prod-admin)", "Fault": "CrashLoop (severity critical)",
		"Agent": "builtin, state success, exit code 0", "Duration": "12s", "Workspace": filepath.Join(root, idResolved),
		"Root cause": "container app exits 1 because the required environment variable DATABASE_URL is not set in the pod spec",
		"Confidence": "verified (0.95)", "Report": filepath.Join(root, idResolved, "output/investigation.md"),
	} {
		if got[k] != want {
			t.Errorf("status %s = %q, want %q\n%s", k, got[k], want, r.stdout)
		}
	}
	if !strings.HasSuffix(got["Created"], "(3h ago)") || !strings.HasSuffix(got["Completed"], " ago)") {
		t.Errorf("timestamps:\n%s", r.stdout)
	}
	r = run(t, "status", "0f8fad5c", "--workspace-root", root)
	if got := fields(r.stdout); got["Failure reason"] != "timeout" || got["Status"] != "failed" || got["Root cause"] != "" {
		t.Errorf("failed status:\n%s", r.stdout)
	}
	r = run(t, "status", "7c9e", "--workspace-root", root)
	if got := fields(r.stdout); got["Status"] != "investigating" || got["Completed"] != "<none>" || !strings.HasSuffix(got["Duration"], "so far") {
		t.Errorf("running status:\n%s", r.stdout)
	}

	r = run(t, "status", "0f8fad5b", "-o", "json", "--workspace-root", root)
	var inc incident.Incident
	if err := json.Unmarshal([]byte(r.stdout), &inc); err != nil || inc.IncidentID != idResolved || inc.Report.ConfidenceLevel != "verified" {
		t.Errorf("status -o json: %v\n%s", err, r.stdout)
	}
	onDisk, _ := os.ReadFile(filepath.Join(root, idResolved, incident.FileName))
	var a, b any
	json.Unmarshal(onDisk, &a)
	json.Unmarshal([]byte(r.stdout), &b)
	if ja, _ := json.Marshal(a); string(ja) != func() string { jb, _ := json.Marshal(b); return string(jb) }() {
		t.Errorf("status -o json is not the incident record:\n%s\nvs\n%s", r.stdout, onDisk)
	}
	r = run(t, "status", "0f8fad5b", "-o", "yaml", "--workspace-root", root)
	if !strings.Contains(r.stdout, "incidentId: "+idResolved) {
		t.Errorf("status -o yaml:\n%s", r.stdout)
	}
	for _, args := range [][]string{{"status", "0f8fad5b", "-o", "wide"}, {"status", "x/y"}, {"status"}, {"status", "0f8f"}} {
		if r := run(t, append(args, "--workspace-root", root)...); r.code != 1 || r.stdout != "" {
			t.Errorf("%v: exit %d stdout %q", args, r.code, r.stdout)
		}
	}
}

// fields parses "Key:   value" lines.
func fields(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

func TestCompletion(t *testing.T) {
	root := standardRoot(t)
	r := run(t, "__complete", "show", "--workspace-root", root, "0f8")
	if !strings.Contains(r.stdout, idResolved+"\tPod/api-0f8f -n shop resolved") || !strings.Contains(r.stdout, idFailed) || strings.Contains(r.stdout, idRunning) {
		t.Errorf("completion:\n%s", r.stdout)
	}
}

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three four", 10, "one two…"},
		{"multi\nline\ttext", 40, "multi line text"},
		{"ééééééééé", 5, "éééé…"},
	} {
		if got := truncate(tt.in, tt.max); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
