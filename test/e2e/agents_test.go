package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// fakeClaude is a stand-in for Claude Code that behaves like `claude -p
// --output-format stream-json --verbose`: tool calls, then a final result
// whose text is the report.
const fakeClaude = `#!/bin/sh
echo '{"type":"system","subtype":"init","session_id":"s1"}'
echo '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"context/logs.txt"}}]}}'
echo '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"kubectl get events -n shop"}}]}}'
test -f .claude/skills/k8s-troubleshooter/SKILL.md || { echo "skill missing" >&2; exit 7; }
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"# Triage: Pod/api — missing env\n## Summary\nThe app needs DATABASE_URL.\n## Root cause\n**Required env DATABASE_URL is empty** (confident, 0.85)\n"}'
`

// agentEnv is a user environment with a fake agent CLI first on PATH.
func agentEnv(t *testing.T, c *testcluster.Cluster, name, script string) (env []string, root string) {
	env, root, _ = agentEnvBin(t, c, name, script)
	return env, root
}

func agentEnvBin(t *testing.T, c *testcluster.Cluster, name, script string) ([]string, string, string) {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	return []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "KUBECONFIG=" + c.UserKubeconfig,
		"WORKSPACE_ROOT=" + root, "ANTHROPIC_API_KEY=sk-ant-fake"}, root, bin
}

func runWith(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(pluginBinary(t), args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func TestClaudeAgentEndToEnd(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	env, root := agentEnv(t, c, "claude", fakeClaude)
	code, stdout, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--model", "sonnet")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"agent: Read: context/logs.txt", "agent: Bash: kubectl get events -n shop", "agent: finished: success"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("live progress lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.HasPrefix(stdout, "# Triage: Pod/api") || !strings.Contains(stdout, "DATABASE_URL") || !strings.Contains(stdout, "through the read-only gateway") {
		t.Errorf("report on stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "sandbox: namespaces") {
		t.Errorf("progress does not say how the agent is sandboxed:\n%s", stderr)
	}
	dir := onlyWorkspace(t, root)
	inc := assertWorkspace(t, dir, incident.Resolved)
	if inc.Agent.Name != "claude" || inc.Agent.Model != "sonnet" || inc.Agent.PID == 0 || len(inc.Agent.Command) < 2 || inc.Agent.Command[0] != "claude" {
		t.Errorf("agent record: %+v", inc.Agent)
	}
	if inc.Sandbox != "namespaces" {
		t.Errorf("sandbox = %q, want namespaces", inc.Sandbox)
	}
	for _, f := range []string{"output/agent.log", "PROMPT.md", ".claude/skills/k8s-troubleshooter/SKILL.md", "CLAUDE.md", "context/kubeconfig"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("workspace lacks %s", f)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "output/agent.log"))
	if !strings.Contains(string(log), `"type":"result"`) {
		t.Errorf("agent.log lacks the raw stream")
	}
	// The agent's kubeconfig names the gateway with its own (now dead)
	// token: never the user's API server or credentials.
	kc, _ := os.ReadFile(filepath.Join(dir, "context/kubeconfig"))
	if userToken := c.UserConfig().BearerToken; userToken == "" || strings.Contains(string(kc), userToken) || strings.Contains(string(kc), c.Server) {
		t.Errorf("context/kubeconfig carries the user's cluster or credentials:\n%s", kc)
	}
	if !strings.Contains(string(kc), "server: https://127.0.0.1:") {
		t.Errorf("context/kubeconfig does not point at the loopback gateway:\n%s", kc)
	}
}

func TestAgentFailedWithoutReport(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	env, root := agentEnv(t, c, "claude", "#!/bin/sh\nexit 0\n")
	code, stdout, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude")
	if code != 3 || stdout != "" {
		t.Fatalf("exit %d, stdout %q; want 3 and nothing on stdout\n%s", code, stdout, stderr)
	}
	inc := assertWorkspace(t, onlyWorkspace(t, root), incident.AgentFailed)
	if !strings.Contains(inc.FailureReason, "report") || inc.Agent.State != incident.AgentSuccess {
		t.Errorf("agent_failed incident: %+v", inc)
	}
}

func TestAgentNonZeroExit(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	env, root := agentEnv(t, c, "claude", "#!/bin/sh\necho 'API error' >&2\nexit 2\n")
	code, _, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude")
	if code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, stderr)
	}
	inc := assertWorkspace(t, onlyWorkspace(t, root), incident.Failed)
	if inc.Agent.State != incident.AgentFailure || inc.Agent.ExitCode == nil || *inc.Agent.ExitCode != 2 {
		t.Errorf("failed incident: %+v", inc.Agent)
	}
}

func TestMissingAgentFailsFast(t *testing.T) {
	c := testcluster.Get(t)
	env, root, bin := agentEnvBin(t, c, "unrelated", "#!/bin/sh\n")
	code, _, stderr := runWith(t, env, "pod/api", "-n", "default", "--agent", "codex")
	if code != 1 || !strings.Contains(stderr, `needs "codex" on PATH`) || !strings.Contains(stderr, "npm install -g @openai/codex") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	env = append(env[:len(env)-1], "ANTHROPIC_API_KEY=") // no key, no login in the fresh HOME
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runWith(t, env, "pod/api", "-n", "default", "--agent", "claude")
	if code != 1 || !strings.Contains(stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a workspace was created before the agent check: %d entries", len(entries))
	}
}

// TestCtrlCDuringAgent sends SIGINT to the plugin while a hanging agent
// (which ignores SIGINT and has a grandchild) runs: the plugin ends within
// the wait delay with exit 130, the incident is failed/cancelled, and no
// agent process survives.
func TestCtrlCDuringAgent(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	env, root := agentEnv(t, c, "claude", "#!/bin/sh\ntrap '' INT\necho '{\"type\":\"system\",\"subtype\":\"init\"}'\n(trap '' INT; sleep 317) &\nsleep 317\n")
	cmd := exec.Command(pluginBinary(t), "pod/api", "-n", ns, "--agent", "claude", "--wait-delay", "500ms")
	cmd.Env = env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the agent runs, then press Ctrl-C.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(errOut.String(), "Investigating") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v\n%s", err, errOut.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Ctrl-C took %v", d)
	}
	inc := assertWorkspace(t, onlyWorkspace(t, root), incident.Failed)
	if inc.FailureReason != incident.ReasonCancelled || inc.Agent.State != incident.AgentCancelled {
		t.Errorf("after Ctrl-C: %q %q", inc.FailureReason, inc.Agent.State)
	}
	time.Sleep(100 * time.Millisecond)
	out, _ := exec.Command("pgrep", "-f", "sleep 317").Output()
	if len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("agent processes survived Ctrl-C: %s", out)
	}
}
