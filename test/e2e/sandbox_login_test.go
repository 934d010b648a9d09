package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestSandboxWritesBackOnlyTheRefreshedLogin: a CLI that rotates its OAuth
// login inside the sandbox (in its in-memory home) keeps the user logged
// in: the refreshed login, and nothing else the CLI changed there, is
// written back to the user's own file after the run, with its mode; the
// workspace holds no copy of it.
func TestSandboxWritesBackOnlyTheRefreshedLogin(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		if os.Getenv("KUBECTL_TRIAGE_EXPECT_SANDBOX") == "1" {
			t.Fatalf("this machine is known to support the sandbox, but: %v", err)
		}
		t.Skipf("user namespaces unavailable here (%v): no in-memory home to refresh a login in", err)
	}
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	script := `#!/bin/sh
echo '{"type":"system","subtype":"init"}'
# Rotate the login only if the old one was copied in; change the settings too.
grep -q login-before "$HOME/.claude/.credentials.json" && printf '{"token":"login-after-rotation"}' > "$HOME/.claude/.credentials.json"
printf '{"changed":"by-the-cli"}' > "$HOME/.claude.json"
mkdir -p "$HOME/.claude/projects" && echo transcript > "$HOME/.claude/projects/session.jsonl"
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"# Triage: Pod/api\n## Summary\nmissing env\n## Root cause\n**DATABASE_URL is empty** (confident, 0.8)\n"}'
`
	env, root := agentEnv(t, c, "claude", script)
	home := strings.TrimPrefix(env[1], "HOME=")
	creds := filepath.Join(home, ".claude", ".credentials.json")
	settings := filepath.Join(home, ".claude.json")
	os.MkdirAll(filepath.Dir(creds), 0o700)
	if err := os.WriteFile(creds, []byte(`{"token":"login-before"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"user":"settings"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude", "--require-sandbox")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dir := onlyWorkspace(t, root)
	assertWorkspace(t, dir, incident.Resolved)
	got, _ := os.ReadFile(creds)
	if string(got) != `{"token":"login-after-rotation"}` {
		t.Errorf("the refreshed login was not written back: %s", got)
	}
	if fi, err := os.Stat(creds); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the written-back login's mode: %v %v", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(settings); string(got) != `{"user":"settings"}` {
		t.Errorf("a change to the CLI's settings reached the user's home: %s", got)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "projects")); err == nil {
		t.Errorf("the CLI's session reached the user's home")
	}
	log, _ := os.ReadFile(filepath.Join(dir, "output", "agent.log"))
	if !strings.Contains(string(log), "refreshed its login; wrote it back to "+creds) {
		t.Errorf("agent.log does not say the login was written back:\n%s", log)
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), "login-after-rotation") || strings.Contains(string(data), "login-before") {
				t.Errorf("%s holds the login", p)
			}
		}
		return nil
	})
}
