package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// `kubectl triage pod/x > report.md` gives a clean file: the binary, with
// stdout and stderr apart, prints only the report on stdout whatever stderr
// is; on a terminal (forced) progress is a live line redrawn with \r, and
// on a pipe plain lines.
func TestStdoutIsOnlyTheReport(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)

	for _, tt := range []struct {
		name   string
		env    []string
		wantCR bool
	}{
		{"stderr is a terminal", []string{term.EnvForceTTY + "=1", "TERM=xterm-256color", "NO_COLOR="}, true},
		{"stderr is a pipe", []string{term.EnvForceTTY + "=", "TERM=xterm-256color", "NO_COLOR="}, false},
		{"a dumb terminal", []string{term.EnvForceTTY + "=1", "TERM=dumb", "NO_COLOR="}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := append([]string{"KUBECONFIG=" + c.UserKubeconfig, "WORKSPACE_ROOT=" + t.TempDir(), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}, tt.env...)
			code, stdout, stderr := runBinary(t, env, "pod/api", "-n", ns)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if !strings.HasPrefix(stdout, "# Triage: Pod/api") || !strings.Contains(stdout, "DATABASE_URL") {
				t.Errorf("stdout is not the report:\n%s", stdout)
			}
			if strings.ContainsAny(stdout, "\r\x1b") || strings.Contains(stdout, "Collected") || strings.Contains(stdout, "Incident ") {
				t.Errorf("progress or control characters on stdout:\n%q", stdout)
			}
			if got := strings.Contains(stderr, "\r"); got != tt.wantCR {
				t.Errorf("stderr has \\r: %v, want %v:\n%q", got, tt.wantCR, stderr)
			}
			if tt.wantCR {
				// The live line went through the steps and was erased
				// before the closing line.
				if !strings.Contains(stderr, "Collected ") || !strings.Contains(stderr, "\r\x1b[KIncident ") {
					t.Errorf("terminal progress:\n%q", stderr)
				}
				last := stderr[strings.LastIndex(stderr, "\r\x1b[K")+len("\r\x1b[K"):]
				if !strings.HasPrefix(last, "Incident ") || !strings.Contains(last, " resolved: ") || strings.Count(last, "\n") != 1 {
					t.Errorf("after the last erase, want only the closing line: %q", last)
				}
			} else {
				if strings.Contains(stderr, "\x1b") {
					t.Errorf("escape sequences on stderr:\n%q", stderr)
				}
				for _, step := range []string{"Resolving pod/api", "Collected ", "Investigating with the builtin agent"} {
					if !strings.Contains(stderr, step) {
						t.Errorf("stderr lacks the step %q:\n%s", step, stderr)
					}
				}
			}
		})
	}
}

// -o json: one JSON document on stdout with the outcome and the report; a
// bad -o is a usage error before anything happens.
func TestOutputJSON(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	root := t.TempDir()
	env := []string{"KUBECONFIG=" + c.UserKubeconfig, "WORKSPACE_ROOT=" + root, "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), term.EnvForceTTY + "=1", "NO_COLOR=1"}

	code, stdout, stderr := runBinary(t, env, "pod/api", "-n", ns, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var doc cmd.TriageOutput
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Errorf("more than one document on stdout:\n%s", stdout)
	}
	if doc.Status != incident.Resolved || doc.Resource.Kind != "Pod" || doc.Resource.Name != "api" || doc.Resource.Namespace != ns ||
		doc.Agent != "builtin" || doc.IncidentID == "" || !strings.Contains(doc.RootCause, "DATABASE_URL") || doc.ConfidenceLevel == "" || doc.Severity == "" {
		t.Errorf("document: %+v", doc)
	}
	if dir := onlyWorkspace(t, root); doc.Workspace != dir {
		t.Errorf("workspace %q, want %q", doc.Workspace, dir)
	}
	report, err := os.ReadFile(doc.ReportPath)
	if err != nil || string(report) != doc.Report || !strings.HasPrefix(doc.Report, "# Triage: Pod/api") {
		t.Errorf("report field and %s differ (%v)", doc.ReportPath, err)
	}

	code, stdout, stderr = runBinary(t, env, "pod/api", "-n", ns, "-o", "yaml")
	if code != cmd.ExitError || stdout != "" || !strings.Contains(stderr, `error: unknown output format "yaml": use markdown or json`) {
		t.Errorf("-o yaml: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
