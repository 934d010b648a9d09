package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// incidentsCmd runs one of the commands that read the workspace root
// (list, show, status, gc) in-process. They need no cluster.
func incidentsCmd(t *testing.T, root string, args ...string) run {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := cmd.Run(ctx, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, append(args, "--workspace-root", root))
	return run{code: code, stdout: out.String(), stderr: errOut.String(), root: root}
}

// TestIncidentCommands triages two pods into one workspace root, then
// finds them again with list, show (by ID prefix), status and gc --dry-run.
func TestIncidentCommands(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	root := filepath.Join(t.TempDir(), "incidents")

	var reports []string
	var ids []string
	for _, name := range []string{"crashloop-missing-env", "container-exit139-segfault"} {
		args := scenarioNamed(name).setup(t, c, ns)
		r := triage(t, c, ns, append(args, "--workspace-root", root)...) // the last --workspace-root wins
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, r.code, r.stderr)
		}
		reports = append(reports, r.stdout)
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.IsDir() && !slices.Contains(ids, e.Name()) {
				ids = append(ids, e.Name())
			}
		}
		// createdAt has sub-second precision, but keep "newest first" unambiguous.
		time.Sleep(10 * time.Millisecond)
	}
	if len(ids) != 2 {
		t.Fatalf("want two workspaces in one root, got %v", ids)
	}
	apiID, imgID := ids[0], ids[1]

	// list: a table, newest first.
	r := incidentsCmd(t, root, "list")
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 3 || r.stderr != "" {
		t.Fatalf("list: exit %d\n%s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for _, col := range []string{"ID", "AGE", "STATUS", "AGENT", "RESOURCE", "FAULT", "ROOT CAUSE"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("list header lacks %s: %q", col, lines[0])
		}
	}
	if !strings.HasPrefix(lines[1], imgID[:8]+" ") || !strings.Contains(lines[1], "Pod/imgproc -n "+ns) || !strings.Contains(lines[1], "resolved") ||
		!strings.Contains(lines[1], "builtin") || !strings.Contains(lines[1], "CrashLoop") {
		t.Errorf("list row 1 (newest, imgproc): %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], apiID[:8]+" ") || !strings.Contains(lines[2], "Pod/api -n "+ns) || !strings.Contains(lines[2], "container app") {
		t.Errorf("list row 2 (api): %q", lines[2])
	}

	t.Logf("kubectl triage list\n%s", r.stdout)
	r = incidentsCmd(t, root, "list", "-o", "wide")
	t.Logf("kubectl triage list -o wide\n%s", r.stdout)
	if !strings.Contains(r.stdout, "WORKSPACE") || !strings.Contains(r.stdout, filepath.Join(root, apiID)) || !strings.Contains(r.stdout, apiID) {
		t.Errorf("list -o wide:\n%s", r.stdout)
	}

	r = incidentsCmd(t, root, "list", "-o", "json")
	var list struct {
		Kind  string
		Items []incident.Incident
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || list.Kind != "List" || len(list.Items) != 2 ||
		list.Items[0].IncidentID != imgID || list.Items[1].IncidentID != apiID || list.Items[1].Status != incident.Resolved ||
		list.Items[1].Report == nil || !strings.Contains(list.Items[1].Report.RootCause, "DATABASE_URL") {
		t.Errorf("list -o json: %v\n%s", err, r.stdout)
	}

	// show by prefix prints exactly the report the triage printed.
	r = incidentsCmd(t, root, "show", apiID[:8])
	if r.code != 0 || r.stdout != reports[0] {
		t.Errorf("show %s: exit %d, stdout differs from the triage's report:\n%s\nstderr %s", apiID[:8], r.code, r.stdout, r.stderr)
	}
	r = incidentsCmd(t, root, "show", imgID[:6], "--json")
	var rep report.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.IncidentID != imgID || !strings.Contains(rep.RootCause.Statement+rep.Summary, "egmentation") {
		t.Errorf("show --json: %v\n%s", err, r.stdout)
	}
	r = incidentsCmd(t, root, "show", apiID, "--path")
	if r.stdout != filepath.Join(root, apiID)+"\n" {
		t.Errorf("show --path: %q", r.stdout)
	}
	r = incidentsCmd(t, root, "show", "ffff")
	if r.code != 1 || !strings.Contains(r.stderr, `no incident matches "ffff" in `+root+"; run 'kubectl triage list'") {
		t.Errorf("show unknown: exit %d %q", r.code, r.stderr)
	}
	if apiID[:4] == imgID[:4] {
		if r = incidentsCmd(t, root, "show", apiID[:4]); r.code != 1 || !strings.Contains(r.stderr, "ambiguous") {
			t.Errorf("show ambiguous prefix: exit %d %q", r.code, r.stderr)
		}
	}

	// status
	r = incidentsCmd(t, root, "status", apiID[:8])
	t.Logf("kubectl triage status %s\n%s", apiID[:8], r.stdout)
	for _, want := range []string{"Incident:", apiID, "Status:", "resolved", "Pod/api -n " + ns, "builtin, state success, exit code 0",
		"Started:", "Completed:", "Duration:", "Workspace:", filepath.Join(root, apiID), "Root cause:", "DATABASE_URL"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	r = incidentsCmd(t, root, "status", imgID[:8], "-o", "json")
	var inc incident.Incident
	if err := json.Unmarshal([]byte(r.stdout), &inc); err != nil || inc.IncidentID != imgID || inc.Workspace != filepath.Join(root, imgID) {
		t.Errorf("status -o json: %v\n%s", err, r.stdout)
	}

	// gc --dry-run lists both, removes nothing; a real gc of old ones keeps both.
	r = incidentsCmd(t, root, "gc", "--older-than", "0s", "--dry-run")
	t.Logf("kubectl triage gc --older-than 0s --dry-run\n%s%s", r.stdout, r.stderr)
	if r.code != 0 || !strings.Contains(r.stdout, "would remove "+apiID) || !strings.Contains(r.stdout, "would remove "+imgID) ||
		!strings.Contains(r.stdout, "would remove 2 incidents, freeing ") {
		t.Errorf("gc --dry-run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = incidentsCmd(t, root, "gc", "--older-than", "1h")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "removed 0 incidents, freed 0 bytes") {
		t.Errorf("gc --older-than 1h: %s %s", r.stdout, r.stderr)
	}
	for _, id := range ids {
		if _, err := os.Stat(filepath.Join(root, id, "output", "investigation.md")); err != nil {
			t.Errorf("gc removed %s: %v", id, err)
		}
	}
	r = incidentsCmd(t, root, "gc", "--older-than", "0s")
	if r.code != 0 || !strings.Contains(r.stdout, "removed 2 incidents") {
		t.Errorf("gc --older-than 0s: %s %s", r.stdout, r.stderr)
	}
	if r = incidentsCmd(t, root, "list"); r.stdout != "" || r.stderr != "No incidents found in "+root+".\n" {
		t.Errorf("list after gc: %q %q", r.stdout, r.stderr)
	}
}
