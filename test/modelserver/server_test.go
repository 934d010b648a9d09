package modelserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The wire shapes are checked against the real CLIs (TestRealCLIs); these
// cover the server's own logic: which turn a request gets, how a shell
// tool's arguments are filled, and what the log keeps.

func TestShellToolAndArgs(t *testing.T) {
	tests := []struct {
		offered []string
		schema  map[string]any
		want    string
		args    map[string]any
	}{
		{[]string{"Read", "Bash"}, nil, "Bash", map[string]any{"command": "kubectl get pods"}},
		{[]string{"read_file", "run_shell_command"}, nil, "run_shell_command", map[string]any{"command": "kubectl get pods"}},
		{[]string{"exec_command", "write_stdin"}, map[string]any{"properties": map[string]any{"cmd": map[string]any{"type": "string"}}}, "exec_command", map[string]any{"cmd": "kubectl get pods"}},
		{[]string{"shell"}, map[string]any{"properties": map[string]any{"command": map[string]any{"type": "array"}}}, "shell", map[string]any{"command": []string{"bash", "-lc", "kubectl get pods"}}},
		{[]string{"exec", "wait"}, nil, "exec", map[string]any{"command": "kubectl get pods"}},
		{[]string{"Read", "Glob"}, nil, "", map[string]any{"command": "kubectl get pods"}},
	}
	for _, tt := range tests {
		if got := shellTool(tt.offered); got != tt.want {
			t.Errorf("shellTool(%v) = %q, want %q", tt.offered, got, tt.want)
		}
		if got := shellArgs(tt.schema, "kubectl get pods"); !reflect.DeepEqual(got, tt.args) {
			t.Errorf("shellArgs(%v) = %v, want %v", tt.schema, got, tt.args)
		}
	}
}

func TestFillSchema(t *testing.T) {
	// gemini's routing classifier validates complexity_score >= 1.
	schema := map[string]any{"type": "OBJECT", "properties": map[string]any{
		"complexity_reasoning": map[string]any{"type": "STRING"},
		"complexity_score":     map[string]any{"type": "INTEGER"},
		"next_speaker":         map[string]any{"type": "string", "enum": []any{"user", "model"}},
		"bounded":              map[string]any{"type": "number", "minimum": 3.0},
	}}
	got := fillSchema(schema).(map[string]any)
	if got["complexity_score"] != 1 || got["next_speaker"] != "user" || got["bounded"] != 3.0 || got["complexity_reasoning"] != "scripted" {
		t.Errorf("fillSchema: %v", got)
	}
}

// TestTurnsAndLog: a request with k tool results gets command k+1, then the
// report quoting the results; a side request without tools gets text; the
// log has every request without the key.
func TestTurnsAndLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "log.jsonl")
	srv, err := Start("", Script{Commands: []string{"kubectl get pods", "kubectl logs api"}}, logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post := func(body string) {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/messages", strings.NewReader(body))
		req.Header.Set("x-api-key", "sk-secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	tools := `"tools":[{"name":"Bash","input_schema":{}}]`
	post(`{"system":"READ-ONLY","messages":[{"role":"user","content":"go"}],` + tools + `}`)
	post(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"NAME READY\napi 0/1"}]}],` + tools + `}`)
	post(`{"messages":[{"role":"user","content":[{"type":"tool_result","content":"pods"},{"type":"tool_result","content":[{"type":"text","text":"FATAL: boom"}]}]}],` + tools + `}`)
	post(`{"messages":[{"role":"user","content":"title this"}]}`)
	var replies []string
	for _, e := range srv.Entries() {
		replies = append(replies, e.Reply)
	}
	want := []string{"tool:kubectl get pods", "tool:kubectl logs api", "report", "text"}
	if !reflect.DeepEqual(replies, want) {
		t.Errorf("replies %v, want %v", replies, want)
	}
	if e := srv.Entries()[0]; e.System != "READ-ONLY" || !reflect.DeepEqual(e.Tools, []string{"Bash"}) {
		t.Errorf("first entry: %+v", e)
	}
	report := DefaultReport(srv.Script.Commands)([]string{"pods", "FATAL: boom"})
	if !strings.Contains(report, "## Root cause") || !strings.Contains(report, "FATAL: boom") || !strings.Contains(report, "`kubectl logs api`") {
		t.Errorf("report:\n%s", report)
	}
	f, _ := os.Open(logPath)
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(sc.Text(), "sk-secret") {
			t.Errorf("the log holds the API key: %s", sc.Text())
		}
	}
	if lines != 4 {
		t.Errorf("%d log lines, want 4", lines)
	}
}
