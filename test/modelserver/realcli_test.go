package modelserver

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// -update rewrites pkg/agent/testdata/<cli>-stream.jsonl from these runs:
// the real stream-json the stream parsers are tested against.
var update = flag.Bool("update", false, "record the real CLIs' stdout as pkg/agent/testdata")

// agentCLIs is the directory hack/agentclis.sh installed the pinned CLIs
// into; `make test` sets it.
func agentCLIs(t *testing.T) string {
	dir := os.Getenv("KUBECTL_TRIAGE_AGENTCLIS")
	if dir == "" {
		t.Skip("KUBECTL_TRIAGE_AGENTCLIS is not set (make test sets it; ./hack/agentclis.sh prints it)")
	}
	return dir
}

// The commands every CLI runs: one that works, one that is not installed,
// one that exits non-zero, and one outside the read-only allow-list (each
// CLI's own policy refuses it).
var scriptCommands = []string{
	"echo hello-from-tool",
	"no-such-command-kt",
	"ls /no/such/dir/kt",
	"touch kt-written-file",
}

// realCLI is how one CLI runs headless against the server at url.
type realCLI struct {
	name string
	cmd  func(bin, url, home, ws string) (args, env []string, stdin string)
}

var realCLIs = []realCLI{
	{"claude", func(bin, url, home, ws string) ([]string, []string, string) {
		return []string{filepath.Join(bin, "claude"), "-p", "investigate", "--output-format", "stream-json", "--verbose",
				"--permission-mode", "dontAsk", "--disallowedTools", "Edit,Write,NotebookEdit,WebFetch,WebSearch",
				"--allowedTools", "Bash(echo *),Bash(ls *),Bash(no-such-command-kt *),Bash(no-such-command-kt)",
				"--append-system-prompt", "You are in READ-ONLY triage mode.", "--max-turns", "10"},
			[]string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=sk-ant-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}, ""
	}},
	{"codex", func(bin, url, home, ws string) ([]string, []string, string) {
		// Commands its rules allow run outside its read-only sandbox (with
		// the network); everything else inside it, unable to write.
		os.MkdirAll(filepath.Join(ws, ".codex", "rules"), 0o700)
		os.WriteFile(filepath.Join(ws, ".codex", "rules", "allow.rules"), []byte(`prefix_rule(pattern = ["echo"], decision = "allow")
prefix_rule(pattern = ["ls"], decision = "allow")
prefix_rule(pattern = ["no-such-command-kt"], decision = "allow")
`), 0o600)
		return []string{filepath.Join(bin, "codex"), "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--trust",
				"-c", `openai_base_url="` + url + `/v1"`, "--sandbox", "read-only", "--cd", ws, "-"},
			[]string{"CODEX_API_KEY=sk-test"}, "investigate"
	}},
	{"gemini", func(bin, url, home, ws string) ([]string, []string, string) {
		policy := filepath.Join(ws, "policy.toml")
		os.WriteFile(policy, []byte(`[[rule]]
toolName = "run_shell_command"
commandPrefix = ["echo", "ls", "no-such-command-kt"]
decision = "allow"
priority = 900
`), 0o600)
		os.MkdirAll(filepath.Join(home, ".gemini"), 0o700)
		os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o600)
		return []string{filepath.Join(bin, "gemini"), "-p", "investigate", "--output-format", "stream-json",
				"--approval-mode", "default", "--policy", policy},
			[]string{"GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_TRUST_WORKSPACE=true"}, ""
	}},
}

// TestRealCLIs runs each pinned CLI headless against the scripted server:
// it must call the shell tool once per command, send each result back, and
// end with the report that quotes them.
func TestRealCLIs(t *testing.T) {
	bin := agentCLIs(t)
	for _, cli := range realCLIs {
		t.Run(cli.name, func(t *testing.T) {
			srv, err := Start("", Script{Commands: scriptCommands}, filepath.Join(t.TempDir(), "requests.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			home, ws := t.TempDir(), t.TempDir()
			args, env, stdin := cli.cmd(bin, srv.URL, home, ws)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, args[0], args[1:]...)
			cmd.Dir = ws
			cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + home}, env...)
			cmd.Stdin = strings.NewReader(stdin)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\nstderr:\n%s\nstdout:\n%s", cli.name, err, errOut.String(), out.String())
			}
			var reports int
			var results []string
			for _, e := range srv.Entries() {
				if e.Reply == "report" {
					reports++
					results = e.Results
				}
			}
			if reports != 1 || len(results) != len(scriptCommands) {
				t.Fatalf("%d reports, the last after %d tool results (want 1 after %d)\n%s", reports, len(results), len(scriptCommands), out.String())
			}
			if !strings.Contains(results[0], "hello-from-tool") {
				t.Errorf("the first tool result lacks the command's output: %q", results[0])
			}
			if !strings.Contains(out.String(), "hello-from-tool") {
				t.Errorf("stdout lacks the quoted tool result:\n%s", out.String())
			}
			if _, err := os.Stat(filepath.Join(ws, "kt-written-file")); err == nil {
				t.Errorf("%s ran the command outside its allow-list (touch)", cli.name)
			}
			if *update {
				dst := filepath.Join("..", "..", "pkg", "agent", "testdata", cli.name+"-stream.jsonl")
				os.MkdirAll(filepath.Dir(dst), 0o755)
				if err := os.WriteFile(dst, scrub(out.Bytes(), home, ws), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// scrub replaces this run's temporary paths, so recorded testdata does not
// change with every run's directories.
func scrub(b []byte, home, ws string) []byte {
	b = bytes.ReplaceAll(b, []byte(ws), []byte("/workspace"))
	return bytes.ReplaceAll(b, []byte(home), []byte("/home/user"))
}
