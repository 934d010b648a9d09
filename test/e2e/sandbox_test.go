package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// sandboxedHostile is a fake `claude` that, inside the sandbox, tries to
// reach the user's credentials and the plugin's process, and to write
// outside the workspace; then does legitimate work through the gateway and
// reads its own login from ~/.claude.
const sandboxedHostile = `#!/bin/sh
out=output/attempts.log
echo '{"type":"system","subtype":"init"}'
for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f" 2>/dev/null; echo; done > output/procs.txt
# A masked file reads as empty, a masked directory as empty: "READ" only
# when content came back.
grep -q . "$HOME/.kube/config" 2>>$out && echo "READ home kube" >> $out
grep -q . "$HOME/.aws/credentials" 2>>$out && echo "READ aws" >> $out
grep -q . "$HOME/.ssh/id_ed25519" 2>>$out && echo "READ ssh" >> $out
grep -q . "@USERKUBECONFIG@" 2>>$out && echo "READ user kubeconfig" >> $out
kubectl --kubeconfig "@USERKUBECONFIG@" get secrets >> $out 2>&1 && echo "ALLOWED get secrets" >> $out
kubectl --kubeconfig "@USERKUBECONFIG@" delete pod api >> $out 2>&1 && echo "ALLOWED delete" >> $out
touch /tmp/sandbox-escape-$$ >> $out 2>&1 && echo "WROTE /tmp" >> $out
touch "$HOME/pwned" 2>/dev/null # in memory: must not reach the disk
touch "@OUTSIDE@/pwned" >> $out 2>&1 && echo "WROTE outside" >> $out
# Credentials left at ordinary paths no mask list names: readable, but the
# API server is unreachable from the agent's network namespace.
kubectl --kubeconfig "@OPSKUBECONFIG@" get secrets >> $out 2>&1 && echo "ALLOWED ops kubeconfig" >> $out
kubectl --kubeconfig "@OPSKUBECONFIG@" delete pod api --wait=false >> $out 2>&1 && echo "ALLOWED ops delete" >> $out
kubectl --kubeconfig /dev/null --server "@APISERVER@" --insecure-skip-tls-verify --token "$(cat @TOKENFILE@)" get secrets >> $out 2>&1 && echo "ALLOWED token file" >> $out
curl -sk --max-time 5 "@APISERVER@/api/v1/secrets" >> $out 2>&1 && echo "ALLOWED curl" >> $out
curl -sk --max-time 5 --noproxy '' -x "$HTTPS_PROXY" "https://apiserver.example:6443/api" >> $out 2>&1 && echo "ALLOWED proxy" >> $out
kubectl delete pod api --wait=false >> $out 2>&1 && echo "ALLOWED gateway delete" >> $out
# The CLI keeps its state under its own config dir: writable, in memory.
mkdir -p "$HOME/.claude/shell-snapshots" && echo snap > "$HOME/.claude/shell-snapshots/s.sh" || echo "SNAPSHOT FAILED" >> $out
env > output/env.txt
cat "$HOME/.claude/.credentials.json" > output/claude-login.txt 2>&1
kubectl get pods > output/artifacts/pods.txt 2>&1 || echo "LIST FAILED" >> $out
kubectl logs api -c app --previous > output/artifacts/logs.txt 2>&1 || echo "LOGS FAILED" >> $out
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"# Triage: Pod/api\n## Summary\nmissing env\n## Root cause\n**DATABASE_URL is empty** (confident, 0.8)\n"}'
`

func TestSandboxedAgentCannotReachCredentials(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	if err := sandbox.Probe(); err != nil {
		if os.Getenv("KUBECTL_TRIAGE_EXPECT_SANDBOX") == "1" {
			t.Fatalf("this machine is known to support the sandbox, but: %v", err)
		}
		// This kernel forbids user namespaces: prove the refusal path instead.
		t.Logf("user namespaces unavailable (%v): checking that --require-sandbox refuses", err)
		env, root := agentEnv(t, c, "claude", fakeClaude)
		code, _, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--require-sandbox")
		if code != 1 || !strings.Contains(stderr, "no sandbox can be made") {
			t.Errorf("--require-sandbox without namespaces: exit %d\n%s", code, stderr)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 0 {
			t.Errorf("a refused run created a workspace")
		}
		return
	}
	outside := t.TempDir()
	// An admin kubeconfig and a token file at ordinary paths, which no
	// mask list knows about.
	ops := filepath.Join(t.TempDir(), "ops-admin.kubeconfig")
	userKC, _ := os.ReadFile(c.UserKubeconfig)
	os.WriteFile(ops, userKC, 0o600)
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("planted-token"), 0o600)
	script := strings.NewReplacer("@USERKUBECONFIG@", c.UserKubeconfig, "@OUTSIDE@", outside, "@OPSKUBECONFIG@", ops,
		"@TOKENFILE@", tokenFile, "@APISERVER@", c.Config.Host).Replace(sandboxedHostile)
	env, _, bin := agentEnvBin(t, c, "claude", script)
	// The default workspace root, inside the user's home as for a user.
	var root string
	for i, kv := range env {
		if strings.HasPrefix(kv, "WORKSPACE_ROOT=") {
			env = append(env[:i], env[i+1:]...)
			break
		}
	}
	if err := os.Symlink(c.KubectlPath, filepath.Join(bin, "kubectl")); err != nil {
		t.Fatal(err)
	}
	home := strings.TrimPrefix(env[1], "HOME=")
	root = filepath.Join(home, ".local", "state", "kubectl-triage", "incidents")
	plant := map[string]string{
		".kube/config":              string(userKC),
		".aws/credentials":          "[default]\naws_secret_access_key = sandbox-planted-aws\n",
		".ssh/id_ed25519":           "sandbox-planted-ssh\n",
		".claude/.credentials.json": `{"token":"claude-login-ok"}`,
	}
	for rel, content := range plant {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mark := c.AuditMark()
	code, stdout, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--kubeconfig", c.UserKubeconfig)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dir := onlyWorkspace(t, root)
	inc := assertWorkspace(t, dir, incident.Resolved)
	if inc.Sandbox != "namespaces" || !strings.Contains(stderr, "sandbox: namespaces") {
		t.Fatalf("sandbox %q; stderr:\n%s", inc.Sandbox, stderr)
	}
	read := func(rel string) string {
		data, _ := os.ReadFile(filepath.Join(dir, rel))
		return string(data)
	}
	attempts := read("output/attempts.log")
	for _, bad := range []string{"READ ", "ALLOWED", "WROTE", "sandbox-planted", "harness", "SNAPSHOT FAILED"} {
		if strings.Contains(attempts, bad) {
			t.Errorf("attempt log shows %q:\n%s", bad, attempts)
		}
	}
	if strings.Contains(attempts, "LIST FAILED") || strings.Contains(attempts, "LOGS FAILED") {
		t.Errorf("the gateway did not work from inside the sandbox:\n%s", attempts)
	}
	if !strings.Contains(read("output/artifacts/pods.txt"), "api") || !strings.Contains(read("output/artifacts/logs.txt"), "DATABASE_URL") {
		t.Errorf("pods/logs through the gateway:\n%s\n%s", read("output/artifacts/pods.txt"), read("output/artifacts/logs.txt"))
	}
	if !strings.Contains(read("output/claude-login.txt"), "claude-login-ok") {
		t.Errorf("the agent CLI could not read its own login in ~/.claude: %q", read("output/claude-login.txt"))
	}
	procs := read("output/procs.txt")
	if strings.Contains(procs, "--agent") || strings.Contains(procs, "kubectl-triage pod/api") {
		t.Errorf("the plugin's own command line is visible inside the sandbox:\n%s", procs)
	}
	if envDump := read("output/env.txt"); strings.Contains(envDump, c.UserKubeconfig) || !strings.Contains(envDump, "HOME="+home) {
		t.Errorf("agent environment:\n%s", envDump)
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Errorf("the agent wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(home, "pwned")); err == nil {
		t.Errorf("the agent wrote into the user's home")
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "shell-snapshots")); err == nil {
		t.Errorf("the CLI's in-memory state reached the user's home on disk")
	}
	if !strings.Contains(read("output/audit.jsonl"), `"kind":"egress","method":"CONNECT","host":"apiserver.example:6443","code":403,"allowed":false`) {
		t.Errorf("the refused proxy connection is not audited:\n%s", read("output/audit.jsonl"))
	}
	if !strings.Contains(stdout, "its own network namespace") {
		t.Errorf("the report footer does not say how the agent's network was contained:\n%s", stdout)
	}
	for _, e := range c.AuditSince(t, mark, c.UserName) {
		if e.Verb != "get" && e.Verb != "list" && e.Verb != "watch" {
			t.Errorf("mutation reached the API server: %s %s", e.Verb, e.RequestURI)
		}
		if e.Resource == "secrets" {
			t.Errorf("secret read reached the API server: %s", e.RequestURI)
		}
	}
	if !strings.Contains(stdout, "DATABASE_URL") {
		t.Errorf("report:\n%s", stdout)
	}
}

func TestRequireAndNoSandboxFlags(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	env, root := agentEnv(t, c, "claude", fakeClaude)
	code, _, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--no-sandbox")
	if code != 0 || !strings.Contains(stderr, "WARNING: --no-sandbox") {
		t.Errorf("--no-sandbox: exit %d\n%s", code, stderr)
	}
	inc := assertWorkspace(t, onlyWorkspace(t, root), incident.Resolved)
	if inc.Sandbox != "none: disabled with --no-sandbox" {
		t.Errorf("sandbox = %q", inc.Sandbox)
	}
	code, _, stderr = runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--no-sandbox", "--require-sandbox")
	if code != 1 || !strings.Contains(stderr, "contradict") {
		t.Errorf("contradictory flags: exit %d\n%s", code, stderr)
	}
}

// TestSandboxHidesTheConfigFile: the config file may hold a Slack webhook;
// the agent's sandbox hides it like the user's other credentials.
func TestSandboxHidesTheConfigFile(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		t.Skipf("user namespaces unavailable here (%v): TestSandboxedAgentCannotReachCredentials covers the refusal path", err)
	}
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	configHome := t.TempDir()
	cfg := filepath.Join(configHome, "kubectl-triage", "config.yaml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	if err := os.WriteFile(cfg, []byte("model: sonnet\nwatch:\n  slack-webhook: https://hooks.slack.com/services/T0/B0/cfg-planted-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
cat "` + cfg + `" > output/config-read.txt 2>&1
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"# Triage: Pod/api\n## Summary\nmissing env\n## Root cause\n**DATABASE_URL is empty** (confident, 0.8)\n"}'
`
	env, root := agentEnv(t, c, "claude", script)
	env = append(env, "XDG_CONFIG_HOME="+configHome)
	code, _, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dir := onlyWorkspace(t, root)
	inc := assertWorkspace(t, dir, incident.Resolved)
	if inc.Agent.Model != "sonnet" {
		t.Errorf("model %q: the config file was not applied", inc.Agent.Model)
	}
	got, err := os.ReadFile(filepath.Join(dir, "output", "config-read.txt"))
	if err != nil {
		t.Fatalf("the fake agent did not run: %v", err)
	}
	if strings.Contains(string(got), "cfg-planted-secret") {
		t.Errorf("the agent read the config file's secret: %s", got)
	}
}

// TestUnreachableModelEndsTheRun: a CLI that retries its model API forever
// (as codex does) ends as failed with the egress proxy's reason, not at
// --timeout.
func TestUnreachableModelEndsTheRun(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		if os.Getenv("KUBECTL_TRIAGE_EXPECT_SANDBOX") == "1" {
			t.Fatalf("this machine is known to support the sandbox, but: %v", err)
		}
		t.Skipf("no network namespace here: %v", err)
	}
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	script := `#!/bin/sh
echo '{"type":"system","subtype":"init"}'
while :; do curl -s --max-time 2 "$ANTHROPIC_BASE_URL/v1/messages" >/dev/null; sleep 0.2; done
`
	env, root := agentEnv(t, c, "claude", script)
	// Nothing listens on port 1 of the loopback.
	env = append(env, "ANTHROPIC_BASE_URL=http://127.0.0.1:1")
	code, _, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--timeout", "60s", "--wait-delay", "2s")
	if code != 4 {
		t.Fatalf("exit %d, want 4 (failed)\n%s", code, stderr)
	}
	inc := assertWorkspace(t, onlyWorkspace(t, root), incident.Failed)
	if !strings.Contains(inc.FailureReason, "could not reach 127.0.0.1:1 through the egress proxy") {
		t.Errorf("failure reason %q", inc.FailureReason)
	}
}

// TestAgentDiesWithThePlugin: kill -9 of the plugin takes every agent
// process with it, sandboxed (the PID namespace dies with its init) and
// with --no-sandbox (a supervisor kills the tree), setsid'd ones included.
func TestAgentDiesWithThePlugin(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	for _, mode := range []string{"sandboxed", "no-sandbox"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "sandboxed" && sandbox.Probe() != nil && os.Getenv("KUBECTL_TRIAGE_EXPECT_SANDBOX") != "1" {
				t.Skip("no namespaces here")
			}
			script := "#!/bin/sh\nsleep 300 &\nsetsid sleep 301 &\necho started > output/started\nwait\n"
			env, root := agentEnv(t, c, "claude", script)
			args := []string{"pod/api", "-n", ns, "--agent", "claude"}
			if mode == "no-sandbox" {
				args = append(args, "--no-sandbox")
			}
			cmd := exec.Command(pluginBinary(t), args...)
			cmd.Env = env
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var id string
			deadline := time.Now().Add(60 * time.Second)
			for id == "" {
				if time.Now().After(deadline) {
					t.Fatal("the agent never started")
				}
				time.Sleep(50 * time.Millisecond)
				entries, _ := os.ReadDir(root)
				for _, e := range entries {
					if _, err := os.Stat(filepath.Join(root, e.Name(), "output", "started")); err == nil {
						id = e.Name()
					}
				}
			}
			if n := processesOf(id); n < 2 {
				t.Fatalf("expected the agent's processes to be running, found %d", n)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			for deadline := time.Now().Add(10 * time.Second); processesOf(id) > 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%d agent processes outlived the plugin", processesOf(id))
				}
			}
			// Nothing of the killed run stays either: gc takes the
			// interrupted incident and the egress hub's socket directory
			// (named after the plugin's PID) that the kill left in TMPDIR.
			hubDirs := filepath.Join(os.TempDir(), "kubectl-triage-net-"+strconv.Itoa(cmd.Process.Pid)+".*")
			if left, _ := filepath.Glob(hubDirs); mode == "sandboxed" && len(left) != 1 {
				t.Errorf("expected the killed run's socket directory %s, found %v", hubDirs, left)
			}
			if code, _, stderr := runWith(t, env, "gc", "--older-than", "0s"); code != 0 {
				t.Fatalf("gc after the kill: exit %d\n%s", code, stderr)
			}
			if left, _ := filepath.Glob(hubDirs); len(left) != 0 {
				t.Errorf("gc left the killed run's socket directory: %v", left)
			}
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Errorf("gc left %d entries in the root after the kill (%s)", len(entries), entries[0].Name())
			}
		})
	}
}

// processesOf counts live processes whose environment names the incident.
func processesOf(id string) int {
	marker := []byte("INCIDENT_ID=" + id + "\x00")
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, marker) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && bytes.HasPrefix(bytes.TrimSpace(stat[i+1:]), []byte("Z")) {
				continue
			}
		}
		n++
	}
	return n
}
