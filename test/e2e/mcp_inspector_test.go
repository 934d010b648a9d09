package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// inspector returns the MCP Inspector's launcher (hack/inspector.sh
// installs the pinned version; make test passes its path), or skips.
func inspector(t *testing.T) string {
	t.Helper()
	entry := os.Getenv("KUBECTL_TRIAGE_INSPECTOR")
	if entry == "" {
		t.Skip("MCP Inspector not installed: run ./hack/inspector.sh and set KUBECTL_TRIAGE_INSPECTOR to the path it prints (make test does)")
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("KUBECTL_TRIAGE_INSPECTOR: %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("KUBECTL_TRIAGE_INSPECTOR is set but node is not on PATH: %v", err)
	}
	return entry
}

// runInspector runs the Inspector's CLI mode, as `mcp-inspector --cli …`.
func runInspector(t *testing.T, entry string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{entry, "--cli"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "mcp.json"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("run the inspector: %v", err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// inspectorResult is what the Inspector prints for tools/call.
type inspectorResult struct {
	Content []struct {
		Type, Text string
	}
	StructuredContent struct {
		IncidentID, Status, RootCause string
		Evidence                      []struct{ ID, Command string }
	}
	IsError bool
}

func checkInspectorTriage(t *testing.T, code int, stdout, stderr string) {
	t.Helper()
	if code != 0 {
		t.Fatalf("inspector exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var r inspectorResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("inspector output is not the tool result: %v\n%s", err, stdout)
	}
	if r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "DATABASE_URL") {
		t.Errorf("the report does not name the cause:\n%s", stdout)
	}
	if r.StructuredContent.Status != "resolved" || !strings.Contains(r.StructuredContent.RootCause, "DATABASE_URL") || len(r.StructuredContent.Evidence) == 0 {
		t.Errorf("structured content: %+v", r.StructuredContent)
	}
}

// TestMCPInspector: the official MCP Inspector's CLI lists the tools and
// calls triage on a crash-looping pod, over stdio (launching the plugin)
// and over streamable HTTP with the token (and is refused without it).
func TestMCPInspector(t *testing.T) {
	entry := inspector(t)
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)

	t.Run("stdio", func(t *testing.T) {
		server := []string{pluginBinary(t), "mcp", "--kubeconfig", c.UserKubeconfig, "--workspace-root", filepath.Join(t.TempDir(), "incidents")}
		code, stdout, stderr := runInspector(t, entry, append(server, "--method", "tools/list")...)
		if code != 0 || !strings.Contains(stdout, `"triage_namespace"`) || !strings.Contains(stdout, `"readOnlyHint": true`) {
			t.Fatalf("tools/list: exit %d\n%s\n%s", code, stdout, stderr)
		}
		code, stdout, stderr = runInspector(t, entry, append(server, "--method", "tools/call", "--tool-name", "triage",
			"--tool-arg", "target=pod/api", "--tool-arg", "namespace="+ns)...)
		checkInspectorTriage(t, code, stdout, stderr)
	})

	t.Run("http", func(t *testing.T) {
		s := startServe(t, c, "http")
		call := []string{s.url, "--transport", "http", "--method", "tools/call", "--tool-name", "triage",
			"--tool-arg", "target=pod/api", "--tool-arg", "namespace=" + ns}
		code, stdout, stderr := runInspector(t, entry, append(call, "--header", "Authorization: Bearer "+s.token)...)
		checkInspectorTriage(t, code, stdout, stderr)

		// The Inspector reads the 401 as "authorization required" and,
		// non-interactive, gives up.
		code, stdout, stderr = runInspector(t, entry, append(call, "--stored-auth-only")...)
		if code == 0 || !strings.Contains(stdout+stderr, "auth_required") || strings.Contains(stdout, "DATABASE_URL") {
			t.Errorf("without the token: exit %d\n%s\n%s", code, stdout, stderr)
		}
		if n := countWorkspaces(t, s.root); n != 1 {
			t.Errorf("%d incidents, want the one of the call with the token", n)
		}
	})
}
