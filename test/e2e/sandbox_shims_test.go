package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// shimmedAgent is a fake `claude` that runs a pyenv shim's python3 and a
// volta link's node from the user's PATH, and tries a credential file that
// lives inside ~/.pyenv.
const shimmedAgent = `#!/bin/sh
echo '{"type":"system","subtype":"init"}'
python3 > output/python.txt 2>&1
node > output/node.txt 2>&1
cat "$HOME/.pyenv/.netrc" > output/netrc.txt 2>&1
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"# Triage: Pod/api\n## Summary\nmissing env\n## Root cause\n**DATABASE_URL is empty** (confident, 0.8)\n"}'
`

// TestSandboxRunsVersionManagerShims: with pyenv's shims first on PATH and a
// volta link behind them, the agent's python3 and node run inside the
// sandbox, a credential inside ~/.pyenv stays unreadable, and the report's
// footer says what of the home was exposed.
func TestSandboxRunsVersionManagerShims(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		if os.Getenv("KUBECTL_TRIAGE_EXPECT_SANDBOX") == "1" {
			t.Fatalf("this machine is known to support the sandbox, but: %v", err)
		}
		t.Skipf("user namespaces unavailable (%v): the shims need the namespace sandbox", err)
	}
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	env, root, _ := agentEnvBin(t, c, "claude", shimmedAgent)
	home := strings.TrimPrefix(env[1], "HOME=")
	files := map[string]string{
		".pyenv/versions/3.12.1/bin/python3":      "#!/bin/sh\necho python-ok\n",
		".pyenv/shims/python3":                    "#!/bin/sh\nexec \"" + home + "/.pyenv/versions/3.12.1/bin/python3\" \"$@\"\n",
		".pyenv/.netrc":                           "machine pypi password shims-planted-netrc\n",
		".volta/tools/image/node/20.1.0/bin/node": "#!/bin/sh\necho node-ok\n",
		".volta/bin/volta-shim":                   "#!/bin/sh\nexec \"" + home + "/.volta/tools/image/node/20.1.0/bin/node\" \"$@\"\n",
	}
	for rel, content := range files {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".volta/bin/volta-shim"), filepath.Join(home, ".volta/bin/node")); err != nil {
		t.Fatal(err)
	}
	env[0] = "PATH=" + filepath.Join(home, ".pyenv/shims") + ":" + filepath.Join(home, ".volta/bin") + ":" + strings.TrimPrefix(env[0], "PATH=")
	code, stdout, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--require-sandbox")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dir := onlyWorkspace(t, root)
	read := func(rel string) string {
		data, _ := os.ReadFile(filepath.Join(dir, rel))
		return strings.TrimSpace(string(data))
	}
	if got := read("output/python.txt"); got != "python-ok" {
		t.Errorf("python3 through the pyenv shim inside the sandbox: %q", got)
	}
	if got := read("output/node.txt"); got != "node-ok" {
		t.Errorf("node through the volta link inside the sandbox: %q", got)
	}
	if got := read("output/netrc.txt"); strings.Contains(got, "planted") {
		t.Errorf("a credential inside ~/.pyenv was readable: %q", got)
	}
	if !strings.Contains(stdout, "exposed read-only from your home") || !strings.Contains(stdout, "~/.pyenv") || !strings.Contains(stdout, "~/.volta") {
		t.Errorf("the report footer does not list what of the home was exposed:\n%s", stdout)
	}
}
