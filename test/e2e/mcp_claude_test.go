package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/modelserver"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// toolCall is one tool the scripted model calls.
type toolCall struct {
	name  string
	input map[string]any
}

// mcpToolModel is the scripted model for an assistant that has kubectl
// triage mcp configured: a request that offers tools and holds k tool
// results gets calls[k]; once every call has a result, and for side
// requests, the scripted model server answers, with a report quoting the
// tool results, so the test sees what the tool returned reach the
// assistant's answer.
type mcpToolModel struct {
	next  *modelserver.Server
	calls []toolCall

	mu      sync.Mutex
	made    int      // calls made
	results []string // the tool results of the last request
	tools   [][]string
}

func (m *mcpToolModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/messages") {
		m.next.ServeHTTP(w, r)
		return
	}
	var req struct {
		Stream bool `json:"stream"`
		Tools  []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	var results []string
	for _, msg := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(msg.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					results = append(results, string(b.Content))
				}
			}
		}
	}
	m.mu.Lock()
	m.tools = append(m.tools, names)
	var call *toolCall
	if len(names) > 0 {
		m.results = results
		if k := len(results); k < len(m.calls) && k == m.made {
			call = &m.calls[k]
			m.made++
		}
	}
	m.mu.Unlock()
	if call == nil {
		m.next.ServeHTTP(w, r)
		return
	}
	id := fmt.Sprintf("toolu_mcp_%d", len(results)+1)
	msg := map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": "claude-scripted", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}
	if !req.Stream {
		msg["content"] = []any{map[string]any{"type": "tool_use", "id": id, "name": call.name, "input": call.input}}
		msg["stop_reason"] = "tool_use"
		json.NewEncoder(w).Encode(msg)
		return
	}
	// One tool_use block, streamed as the Messages API streams it.
	w.Header().Set("Content-Type", "text/event-stream")
	input, _ := json.Marshal(call.input)
	for _, e := range []struct {
		name string
		data any
	}{
		{"message_start", map[string]any{"type": "message_start", "message": msg}},
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": id, "name": call.name, "input": map[string]any{}}}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	} {
		data, _ := json.Marshal(e.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, data)
	}
}

// TestMCPWithRealClaude: the real Claude Code (pinned, from npm), set up
// with the README's `claude mcp add triage -- kubectl triage mcp` and driven
// by a scripted model, calls the triage tool on a crash-looping pod; the
// tool's answer (the report naming the cause) reaches Claude's final
// answer, and the incident is the one-shot command's.
func TestMCPWithRealClaude(t *testing.T) {
	bin := agentCLIDir(t)
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)

	// Claude Code defers MCP tools behind its ToolSearch tool: the model
	// loads the triage tool first, as a real model does, then calls it.
	model := &mcpToolModel{next: &modelserver.Server{Script: modelserver.Script{}}, calls: []toolCall{
		{"ToolSearch", map[string]any{"query": "select:mcp__triage__triage", "max_results": 1}},
		{"mcp__triage__triage", map[string]any{"target": "pod/api", "namespace": ns}},
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()

	// kubectl finds the plugin on PATH, as for a user.
	plugin := pluginBinary(t)
	if filepath.Base(plugin) != "kubectl-triage" {
		t.Fatalf("the plugin binary must be named kubectl-triage for kubectl to find it: %s", plugin)
	}
	root := filepath.Join(t.TempDir(), "incidents")
	home, project := t.TempDir(), t.TempDir()
	env := []string{"PATH=" + bin + ":" + filepath.Dir(plugin) + ":" + testBinDir(t) + ":/usr/bin:/bin", "HOME=" + home,
		"KUBECONFIG=" + c.UserKubeconfig, "WORKSPACE_ROOT=" + root,
		"ANTHROPIC_API_KEY=sk-ant-test-key", "ANTHROPIC_BASE_URL=" + srv.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	claude := func(args ...string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "claude"), args...)
		cmd.Env, cmd.Dir = env, project
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	if out, errOut, err := claude("mcp", "add", "triage", "--", "kubectl", "triage", "mcp"); err != nil {
		t.Fatalf("claude mcp add: %v\n%s\n%s", err, out, errOut)
	}
	out, errOut, err := claude("-p", "Why is pod api in namespace "+ns+" crash-looping?", "--output-format", "json",
		"--allowedTools", "mcp__triage__triage", "--permission-mode", "dontAsk", "--max-turns", "5")
	if err != nil {
		t.Fatalf("claude -p: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	var answer struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		t.Fatalf("claude's output is not its JSON result: %v\n%s", err, out)
	}
	model.mu.Lock()
	made, results, tools := model.made, model.results, model.tools
	model.mu.Unlock()
	if made != 2 || len(results) != 2 || !strings.Contains(results[1], "# Triage: Pod/api") || !strings.Contains(results[1], "DATABASE_URL") {
		t.Fatalf("the triage tool's result that reached the model does not name the cause (%d calls made)\nresults: %q\ntools offered per request: %v\nstdout:\n%s\nstderr:\n%s", made, results, tools, out, errOut)
	}
	if answer.IsError || !strings.Contains(answer.Result, "DATABASE_URL") {
		t.Errorf("claude's answer does not carry the cause: %+v", answer)
	}
	if strings.Contains(out, plantedSecret) || strings.Contains(strings.Join(results, ""), plantedSecret) {
		t.Errorf("the planted secret reached the assistant")
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Fatalf("%d incidents in the workspace root, want 1", len(entries))
	}
	assertWorkspace(t, filepath.Join(root, entries[0].Name()), incident.Resolved)
}
