package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// The testdata are the real CLIs' stdout (claude 2.1.328, codex 0.169.0,
// gemini 0.61.0) against the scripted model server, recorded by
// `go test ./test/modelserver -run TestRealCLIs -update`. The script ran:
// echo hello-from-tool (works), no-such-command-kt (not found),
// ls /no/such/dir/kt (exit 2), touch kt-written-file (outside the
// allow-list). Each CLI treats them its own way, as the table says.
func TestStreamRealOutput(t *testing.T) {
	tests := []struct {
		stream       string
		calls        int
		failures     []string // substrings of each failure line, in order
		wantProgress []string
	}{
		{
			// claude's dontAsk mode refuses ls of a path outside the
			// workspace as well as touch.
			stream: "claude", calls: 4,
			failures: []string{
				"failed: Bash: no-such-command-kt (exit 127: /bin/bash: line 1: no-such-command-kt: command not found)",
				"failed: Bash: ls /no/such/dir/kt (denied by the CLI's permission policy)",
				"failed: Bash: touch kt-written-file (denied by the CLI's permission policy)",
			},
			wantProgress: []string{"Bash: echo hello-from-tool", "finished: success"},
		},
		{
			// codex ran touch inside its read-only sandbox and reported
			// no command item for it.
			stream: "codex", calls: 3,
			failures: []string{
				"failed: shell: /bin/bash -lc no-such-command-kt (exit 127: /bin/bash: line 1: no-such-command-kt: command not found)",
				"failed: shell: /bin/bash -lc 'ls /no/such/dir/kt' (exit 2: ls: cannot access '/no/such/dir/kt': No such file or directory)",
			},
			wantProgress: []string{"shell: /bin/bash -lc 'echo hello-from-tool'", "finished"},
		},
		{
			// gemini reports a non-zero exit as success; only the error
			// lines a failed command prints give it away.
			stream: "gemini", calls: 4,
			failures: []string{
				"failed: run_shell_command: no-such-command-kt (/usr/bin/bash: line 4: no-such-command-kt: command not found)",
				"failed: run_shell_command: touch kt-written-file (denied by the CLI's policy)",
			},
			wantProgress: []string{"run_shell_command: echo hello-from-tool", "finished: success"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.stream, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.stream+"-stream.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var seen []string
			c := &streamConsumer{parse: streamParsers[tt.stream], log: nopWriter{},
				progress: func(ev progress.Event) {
					if ev.Kind != progress.Agent {
						t.Errorf("a stream's progress is the agent's activity, got kind %q", ev.Kind)
					}
					seen = append(seen, ev.Message)
				}}
			// Fed in odd-sized pieces, as a pipe delivers it.
			for len(data) > 0 {
				n := min(len(data), 777)
				c.Write(data[:n])
				data = data[n:]
			}
			c.flush()
			if c.tools.Calls != tt.calls || c.tools.Failed != len(tt.failures) {
				t.Errorf("%d calls, %d failed; want %d, %d\n%s", c.tools.Calls, c.tools.Failed, tt.calls, len(tt.failures), strings.Join(c.tools.Failures, "\n"))
			}
			for i, want := range tt.failures {
				if i >= len(c.tools.Failures) || c.tools.Failures[i] != want {
					t.Errorf("failure %d:\n got %q\nwant %q", i, at(c.tools.Failures, i), want)
				}
			}
			all := strings.Join(seen, "\n")
			for _, want := range append(tt.wantProgress, tt.failures...) {
				if !strings.Contains(all, want) {
					t.Errorf("progress lacks %q:\n%s", want, all)
				}
			}
			md := c.result
			if md == "" {
				md = c.lastText
			}
			if err := report.Validate(md); err != nil || !strings.Contains(md, "hello-from-tool") || !strings.HasPrefix(md, "# Triage: scripted model") {
				t.Errorf("report (%v):\n%s", err, md)
			}
			if c.isError {
				t.Errorf("a successful run was marked as an error")
			}
		})
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestToolCallsFailures covers what the recorded runs do not: a request
// the read-only gateway refused, codex's declined status, a result without
// an id, and the footer summary.
func TestToolCallsFailures(t *testing.T) {
	tests := []struct {
		stream string
		lines  []string
		want   []string
		calls  int
	}{
		{"claude", []string{
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"kubectl delete pod api -n shop"}}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"Exit code 1\nError from server (Forbidden): pods \"api\" is forbidden: kubectl-triage read-only gateway: delete is not allowed"}]}]}}`,
		}, []string{`failed: Bash: kubectl delete pod api -n shop (exit 1: Error from server (Forbidden): pods "api" is forbidden: kubectl-triage read-only gateway: delete ...)`}, 1},
		{"codex", []string{
			`{"type":"item.completed","item":{"id":"item_5","type":"command_execution","command":"rm -rf /","aggregated_output":"","exit_code":null,"status":"declined"}}`,
		}, []string{"failed: shell: rm -rf / (declined by the CLI's policy)"}, 1},
		{"gemini", []string{
			`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"g1","parameters":{"command":"kubectl get secrets"}}`,
			`{"type":"tool_result","tool_id":"g1","status":"success","output":"Error from server (Forbidden): secrets is forbidden: kubectl-triage read-only gateway: secrets are not readable"}`,
			`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"g2","parameters":{"command":"kubectl get pods"}}`,
			`{"type":"tool_result","tool_id":"g2","status":"success","output":"NAME READY STATUS\napi 0/1 CrashLoopBackOff"}`,
		}, []string{"failed: run_shell_command: kubectl get secrets (Error from server (Forbidden): secrets is forbidden: kubectl-triage read-only gateway: secrets ar...)"}, 2},
		// gemini 0.61's tool results in the hostile e2e test: no exit code,
		// only what the shell and curl printed.
		{"gemini", []string{
			`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"g1","parameters":{"command":"read -r T < /home/u/ops/token; kubectl --token \"$T\" get secrets"}}`,
			`{"type":"tool_result","tool_id":"g1","status":"success","output":"/usr/bin/bash: line 4: /home/u/ops/token: No such file or directory\nPlease enter Username: error: EOF"}`,
			`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"g2","parameters":{"command":"curl -sS https://127.0.0.1:6443/api"}}`,
			`{"type":"tool_result","tool_id":"g2","status":"success","output":"curl: (7) Failed to connect to 127.0.0.1 port 6443 after 0 ms: Couldn't connect to server"}`,
			`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"g3","parameters":{"command":"curl -sS --noproxy '' https://127.0.0.1:6443/api"}}`,
			`{"type":"tool_result","tool_id":"g3","status":"success","output":"curl: (56) CONNECT tunnel failed, response 403"}`,
			`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"g4","parameters":{"command":"env"}}`,
			`{"type":"tool_result","tool_id":"g4","status":"success","output":"SHELL=/bin/bash\nbash_history=off"}`,
		}, []string{
			`failed: run_shell_command: read -r T < /home/u/ops/token; kubectl --token "$T" get secrets (/usr/bin/bash: line 4: /home/u/ops/token: No such file or directory)`,
			"failed: run_shell_command: curl -sS https://127.0.0.1:6443/api (curl: (7) Failed to connect to 127.0.0.1 port 6443 after 0 ms: Couldn't connect to server)",
			"failed: run_shell_command: curl -sS --noproxy '' https://127.0.0.1:6443/api (curl: (56) CONNECT tunnel failed, response 403)",
		}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.stream, func(t *testing.T) {
			c := &streamConsumer{parse: streamParsers[tt.stream], log: nopWriter{}}
			for _, l := range tt.lines {
				c.line([]byte(l))
			}
			if c.tools.Calls != tt.calls || strings.Join(c.tools.Failures, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("%d calls, failures:\n%s\nwant %d calls:\n%s", c.tools.Calls, strings.Join(c.tools.Failures, "\n"), tt.calls, strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestToolCallsSummary(t *testing.T) {
	var tc ToolCalls
	if tc.Summary() != "" {
		t.Errorf("no calls: %q", tc.Summary())
	}
	tc.observe(toolEvent{ID: "a", Call: "Bash: kubectl get pods"})
	if got := tc.Summary(); got != "1 tool call, 0 failed" {
		t.Errorf("one call: %q", got)
	}
	tc.observe(toolEvent{ID: "b", Call: "Bash: kubectl logs x"})
	// A result without an id belongs to the last call.
	if got := tc.observe(toolEvent{Done: true, Failed: "exit 1"}); got != "failed: Bash: kubectl logs x (exit 1)" {
		t.Errorf("result without id: %q", got)
	}
	if got := tc.Summary(); got != "2 tool calls, 1 failed" {
		t.Errorf("two calls: %q", got)
	}
}
