//go:build unix

package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// TestReadsRefuse: get_evidence and show_incident on a named pipe or a
// linked report answer at once with one line naming the file, and never
// its target's content.
func TestReadsRefuse(t *testing.T) {
	root := t.TempDir()
	cs := connect(t, Options{Engine: &stubEngine{root: root}, WorkspaceRoot: root})
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolTriage, Arguments: map[string]any{"target": "api"}})
	if err != nil {
		t.Fatal(err)
	}
	var out TriageOutput
	data, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(data, &out)
	dir := filepath.Join(root, out.IncidentID)
	if err := syscall.Mkfifo(filepath.Join(dir, "context", "events.json"), 0o600); err != nil {
		t.Skip(err)
	}
	// Resolved, with its report a link to a kubeconfig.
	inc, err := incident.Load(filepath.Join(dir, incident.FileName))
	if err != nil {
		t.Fatal(err)
	}
	inc.Status = incident.Resolved
	if err := incident.Save(filepath.Join(dir, incident.FileName), inc); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "output"), 0o700)
	if err := os.Symlink(filepath.Join(dir, "context", "kubeconfig"), filepath.Join(dir, "output", "investigation.md")); err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolGetEvidence, map[string]any{"id": out.IncidentID, "file": "context/events.json"}, "context/events.json is not a regular file (it is a named pipe); not read"},
		{ToolShowIncident, map[string]any{"id": out.IncidentID}, "output/investigation.md is a symbolic link (not followed)"},
	} {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, tc.want) || strings.Contains(text, "gateway-secret") || strings.Contains(strings.TrimSpace(text), "\n") {
			t.Errorf("%s: error %v, %q; want one line with %q", tc.tool, res.IsError, text, tc.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %s", tc.tool, d)
		}
	}
	// The listing names the pipe's neighbours, not the pipe nor the link.
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolGetEvidence, Arguments: map[string]any{"id": out.IncidentID}})
	data, _ = json.Marshal(res.StructuredContent)
	if !strings.Contains(string(data), "context/logs.txt") || strings.Contains(string(data), "events.json") || strings.Contains(string(data), "link.txt") {
		t.Errorf("evidence list: %s", data)
	}
}
