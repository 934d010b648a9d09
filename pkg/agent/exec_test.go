package agent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

const validReport = `# Triage: Pod/api (shop) — missing env
## Summary
DATABASE_URL is unset.
## Root cause
**Required env DATABASE_URL is empty** (confident, 0.8)
`

// fakeCLI writes an executable shell script named name into dir.
func fakeCLI(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// harness is a workspace, a PATH with fake CLIs, and a recorder of progress.
type harness struct {
	t        *testing.T
	bin      string
	ws       *workspace.Workspace
	inc      incident.Incident
	mu       sync.Mutex
	progress []string
	environ  []string
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, bin: t.TempDir()}
	id := uuid.NewString()
	ws, err := workspace.Create(t.TempDir(), id, func(tmp *workspace.Workspace, _ string) error {
		for rel, content := range map[string]string{
			workspace.PromptFile:       "# Kubernetes incident triage: Pod/api\nInvestigate.\n",
			workspace.InstructionsFile: "You are in READ-ONLY triage mode.\n",
		} {
			if err := os.WriteFile(tmp.MustPath(rel), []byte(content), 0o600); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.ws = ws
	h.inc = incident.Incident{IncidentID: id, Cluster: "prod", Namespace: "shop", CreatedAt: time.Now()}
	// The user's environment: credentials that must not reach the agent.
	h.environ = []string{
		"PATH=" + h.bin + ":/usr/bin:/bin",
		"HOME=/home/user",
		"LANG=C.UTF-8",
		"KUBECONFIG=/home/user/.kube/prod-admin.yaml",
		"AWS_SECRET_ACCESS_KEY=planted-aws-secret",
		"GITHUB_TOKEN=planted-gh-token",
		"ANTHROPIC_API_KEY=sk-ant-test-key",
	}
	t.Cleanup(func() { assertNoSurvivors(t, id) })
	return h
}

func (h *harness) exec(def *Definition) *Exec {
	return &Exec{Def: def, WaitDelay: 300 * time.Millisecond, Environ: func() []string { return h.environ }, Home: "/home/user",
		LookPath: func(name string) (string, error) {
			p := filepath.Join(h.bin, name)
			if _, err := os.Stat(p); err != nil {
				return "", errors.New("not found")
			}
			return p, nil
		}}
}

func (h *harness) run(ctx context.Context, e *Exec) (*Outcome, error) {
	return e.Run(ctx, &Run{Workspace: h.ws, Incident: h.inc, Started: func(int) {},
		Progress: func(ev progress.Event) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.progress = append(h.progress, ev.String())
		}})
}

func (h *harness) read(rel string) string {
	data, _ := os.ReadFile(h.ws.MustPath(rel))
	return string(data)
}

func streamDef(name string) *Definition {
	return &Definition{Name: name, Binary: name, Args: []string{"-p", "{{.Prompt}}"}, ModelArgs: []string{"--model", "{{.Model}}"},
		Env: []string{"ANTHROPIC_API_KEY"}, APIKeyEnv: []string{"ANTHROPIC_API_KEY"}, Output: "stream-json", Stream: "claude", Report: "result"}
}

// assertNoSurvivors fails if any process still carries the incident's
// marker: no agent process, child or grandchild may outlive Run.
func assertNoSurvivors(t *testing.T, incidentID string) {
	t.Helper()
	marker := []byte("\x00INCIDENT_ID=" + incidentID + "\x00")
	deadline := time.Now().Add(2 * time.Second) // SIGKILLed processes need a moment to be reaped by init
	for {
		var alive []string
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), marker) {
				continue
			}
			stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			if fields := strings.Fields(string(stat)); len(fields) > 2 && fields[2] == "Z" {
				continue // a zombie is dead; only its parent's wait remains
			}
			alive = append(alive, e.Name())
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("agent processes survived the run: pids %v", alive)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStreamJSONSuccess(t *testing.T) {
	h := newHarness(t)
	result := strings.ReplaceAll(strings.ReplaceAll(validReport, "\n", `\n`), `"`, `\"`)
	fakeCLI(t, h.bin, "claude", `
echo '{"type":"system","subtype":"init"}'
echo '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"kubectl get events -n shop"}}]}}'
echo '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"context/logs.txt"}}]}}'
echo "progress on stderr" >&2
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"`+result+`"}'
`)
	out, err := h.run(context.Background(), h.exec(streamDef("claude")))
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, out)
	}
	if got := h.read(workspace.ReportFile); got != validReport {
		t.Errorf("report = %q", got)
	}
	want := []string{"  agent: Bash: kubectl get events -n shop", "  agent: Read: context/logs.txt", "  agent: finished: success"}
	if strings.Join(h.progress, "|") != strings.Join(want, "|") {
		t.Errorf("progress = %q", h.progress)
	}
	log := h.read(workspace.AgentLogFile)
	if !strings.Contains(log, `"type":"system"`) || !strings.Contains(log, "progress on stderr") || !strings.Contains(log, "agent exited: code 0") {
		t.Errorf("agent.log incomplete:\n%s", log)
	}
}

func TestEnvironmentIsAllowListed(t *testing.T) {
	h := newHarness(t)
	fakeCLI(t, h.bin, "claude", `env > "$INCIDENT_WORKSPACE/output/env.txt"; printf '%s' "$@" > "$INCIDENT_WORKSPACE/output/args.txt"`)
	e := h.exec(streamDef("claude"))
	e.ModelName = "sonnet"
	if _, err := h.run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	env := h.read("output/env.txt")
	for _, bad := range []string{"planted-aws-secret", "planted-gh-token", "prod-admin.yaml", "/home/user"} {
		if strings.Contains(env, bad) {
			t.Errorf("agent environment leaks %q:\n%s", bad, env)
		}
	}
	for _, want := range []string{"HOME=" + h.ws.Dir + "\n", "KUBECONFIG=" + h.ws.MustPath(workspace.AgentKubeconfig) + "\n", "CLAUDE_READ_ONLY_MODE=true\n",
		"INCIDENT_ID=" + h.inc.IncidentID + "\n", "KUBERNETES_NAMESPACE=shop\n", "ANTHROPIC_API_KEY=sk-ant-test-key\n", "LANG=C.UTF-8\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("agent environment lacks %q", strings.TrimSpace(want))
		}
	}
	if args := h.read("output/args.txt"); !strings.Contains(args, "--modelsonnet") || !strings.Contains(args, "Investigate.") {
		t.Errorf("args = %q", args)
	}
}

func TestNonZeroExit(t *testing.T) {
	h := newHarness(t)
	fakeCLI(t, h.bin, "claude", `echo "boom" >&2; exit 3`)
	out, err := h.run(context.Background(), h.exec(streamDef("claude")))
	if err != nil || out.ExitCode != 3 {
		t.Fatalf("want exit 3 and no error, got %+v %v", out, err)
	}
	if !strings.Contains(h.read(workspace.AgentLogFile), "boom") {
		t.Errorf("stderr not in agent.log")
	}
}

func TestHangIgnoringSIGINTIsKilled(t *testing.T) {
	h := newHarness(t)
	// Ignores SIGINT, with a grandchild that ignores it too and holds stdout.
	fakeCLI(t, h.bin, "claude", `trap '' INT; (trap '' INT; sleep 300) & echo started; sleep 300`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	start := time.Now()
	out, err := h.run(ctx, h.exec(streamDef("claude")))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if out == nil || out.Signal != "killed" {
		t.Errorf("want the agent SIGKILLed after WaitDelay, got %+v", out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v: WaitDelay not honoured", d)
	}
}

func TestTimeout(t *testing.T) {
	h := newHarness(t)
	fakeCLI(t, h.bin, "claude", `sleep 300`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := h.run(ctx, h.exec(streamDef("claude")))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want DeadlineExceeded, got %v", err)
	}
}

func TestGrandchildrenDoNotSurvive(t *testing.T) {
	h := newHarness(t)
	// One child in the group, one that leaves it with setsid; the agent
	// exits at once with a valid report.
	fakeCLI(t, h.bin, "claude", `sleep 300 >/dev/null 2>&1 &
setsid sleep 301 >/dev/null 2>&1 &
cat > "$INCIDENT_WORKSPACE/output/investigation.md" <<'EOF'
`+validReport+`EOF
`)
	out, err := h.run(context.Background(), h.exec(streamDef("claude")))
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, out)
	}
	assertNoSurvivors(t, h.inc.IncidentID)
	if got := h.read(workspace.ReportFile); got != validReport {
		t.Errorf("the agent's own report file must win: %q", got)
	}
}

func TestPrintsNothing(t *testing.T) {
	h := newHarness(t)
	fakeCLI(t, h.bin, "claude", `exit 0`)
	out, err := h.run(context.Background(), h.exec(streamDef("claude")))
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, out)
	}
	if _, err := os.Stat(h.ws.MustPath(workspace.ReportFile)); !os.IsNotExist(err) {
		t.Errorf("no report may be invented: %v", err)
	}
}

func TestReportSymlinkIsNotFollowed(t *testing.T) {
	h := newHarness(t)
	outside := filepath.Join(t.TempDir(), "victim.md")
	os.WriteFile(outside, []byte(validReport), 0o600)
	fakeCLI(t, h.bin, "claude", `ln -s "`+outside+`" "$INCIDENT_WORKSPACE/output/investigation.md"`)
	if _, err := h.run(context.Background(), h.exec(streamDef("claude"))); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(h.ws.MustPath(workspace.ReportFile)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Errorf("report symlink left in place")
	}
	if data, _ := os.ReadFile(outside); string(data) != validReport {
		t.Errorf("file outside the workspace was changed")
	}
}

func TestTextAgentCommand(t *testing.T) {
	h := newHarness(t)
	fakeCLI(t, h.bin, "mycli", `cat >/dev/null; cat <<'EOF'
`+validReport+`EOF
`)
	def, err := commandDefinition("mycli --headless")
	if err != nil {
		t.Fatal(err)
	}
	if !def.PromptStdin || def.Binary != "mycli" || def.Args[0] != "--headless" {
		t.Fatalf("definition = %+v", def)
	}
	out, err := h.run(context.Background(), h.exec(def))
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, out)
	}
	if got := h.read(workspace.ReportFile); got != validReport {
		t.Errorf("stdout should be the report: %q", got)
	}
}

func TestPreflight(t *testing.T) {
	h := newHarness(t)
	e := h.exec(streamDef("claude"))
	e.Def.Install = "npm install -g @anthropic-ai/claude-code"
	if err := e.Preflight(); !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "npm install") {
		t.Errorf("missing binary: %v", err)
	}
	fakeCLI(t, h.bin, "claude", "exit 0")
	h.environ = []string{"PATH=" + h.bin}
	e = h.exec(streamDef("claude"))
	e.Def.LoginFiles = []string{"~/.claude.json"}
	if err := e.Preflight(); !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || !strings.Contains(err.Error(), "log in") {
		t.Errorf("missing key: %v", err)
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte("{}"), 0o600)
	e.Home = home
	if err := e.Preflight(); err != nil {
		t.Errorf("a login file is enough: %v", err)
	}
}

func TestEmbeddedDefinitions(t *testing.T) {
	defs, err := Definitions("")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"claude", "codex", "gemini", "goose"} {
		d, ok := defs[name]
		if !ok {
			t.Errorf("no embedded definition for %s", name)
			continue
		}
		if d.Install == "" || len(d.APIKeyEnv) == 0 || len(d.ConfigDirs) == 0 || len(d.Instructions) == 0 {
			t.Errorf("%s: incomplete definition %+v", name, d)
		}
		for _, k := range d.Env {
			if strings.Contains(k, "KUBECONFIG") || strings.HasPrefix(k, "AWS_") {
				t.Errorf("%s passes %s through", name, k)
			}
		}
	}
	if !strings.Contains(defs["claude"].AllowedTools, "Bash(kubectl get *)") || strings.Contains(defs["claude"].AllowedTools, "Write") {
		t.Errorf("claude allow-list is not read-only: %s", defs["claude"].AllowedTools)
	}
}

func TestUserDefinitionOverrides(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "agents"), 0o700)
	os.WriteFile(filepath.Join(dir, "agents", "claude.yaml"), []byte("name: claude\nbinary: my-claude\nargs: [-p, '{{.Prompt}}']\noutput: text\nreport: stdout\n"), 0o600)
	defs, err := Definitions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if defs["claude"].Binary != "my-claude" {
		t.Errorf("override not applied: %+v", defs["claude"])
	}
	os.WriteFile(filepath.Join(dir, "agents", "bad.yaml"), []byte("name: bad\nbinary: x\noutput: text\nreport: stdout\nunknownField: 1\n"), 0o600)
	if _, err := Definitions(dir); err == nil || !strings.Contains(err.Error(), "unknownField") {
		t.Errorf("unknown field must be an error naming it: %v", err)
	}
}
