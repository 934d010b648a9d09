package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestFinalSaveFailureIsAnError: an agent that replaces incident.json with
// a directory leaves the plugin unable to record the outcome. That is not
// "resolved, exit 0": it is exit 4, saying where the report is.
func TestFinalSaveFailureIsAnError(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	script := filepath.Join(t.TempDir(), "vandal.sh")
	body := "#!/bin/sh\ncat >/dev/null\nrm -f incident.json && mkdir incident.json\n" +
		"printf '# Triage: Pod/victim — vandal\\n\\n## Summary\\nthe record is gone\\n\\n## Root cause\\nan agent replaced incident.json\\n'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "incidents")
	r := run(t, c, root, "pod/victim", "-n", ns, "--agent-command", script)
	if r.code != 4 {
		t.Fatalf("exit %d, want 4\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	ids := incidentDirs(t, root)
	if len(ids) != 1 {
		t.Fatalf("incidents %v", ids)
	}
	report := filepath.Join(root, ids[0], "output", "investigation.md")
	if !strings.Contains(r.stderr, "the report is at "+report) || !strings.Contains(r.stderr, "incident.json") {
		t.Errorf("the error does not say what failed and where the report is:\n%s", r.stderr)
	}
	if _, err := os.Stat(report); err != nil {
		t.Errorf("the report is not where the error says: %v", err)
	}
}
