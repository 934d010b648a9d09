package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/prompt"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// DefaultWaitDelay is how long a cancelled agent gets between SIGINT and
// SIGKILL.
const DefaultWaitDelay = 30 * time.Second

// maxStdout bounds what is kept of an agent's stdout in memory (for a text
// report); agent.log always gets all of it.
const maxStdout = 8 << 20

// Exec runs an external agent CLI described by a Definition.
type Exec struct {
	Def              *Definition
	ModelName        string
	AllowedTools     string // overrides Def.AllowedTools when set
	SystemPromptFile string // replaces the read-only instructions file when set
	WaitDelay        time.Duration
	// Kubeconfig is the file the agent's KUBECONFIG points at (the read-only
	// gateway's, or a dedicated read-only identity); empty means the agent
	// works from the context files only.
	Kubeconfig string
	// Environ and LookPath default to the process's; tests replace them.
	Environ  func() []string
	LookPath func(string) (string, error)
	Home     string
	// Probe says whether the namespace sandbox can be made here (default
	// sandbox.Probe); tests replace it to reach the weaker fallbacks.
	Probe func() error

	// Isolation decides whether the agent runs sandboxed away from the
	// user's credentials (zero value: off, for tests that do not exercise it).
	Isolation SandboxPolicy
	// Kubeconfigs are the user's kubeconfig files (--kubeconfig, KUBECONFIG)
	// and ExtraMasks further paths: the sandbox masks them.
	Kubeconfigs []string
	ExtraMasks  []string
	// MaxTurns and MaxBudgetUSD are the CLI's own limits for the run (see
	// Definition.MaxTurnsArgs); zero: the definition's default, or none.
	MaxTurns     int
	MaxBudgetUSD float64

	path          string // resolved binary
	sandboxMode   string // namespaces, bwrap, sandbox-exec or none
	sandboxReason string // why none
	helperPath    string // bwrap or sandbox-exec
}

// SandboxPolicy is how hard the runner tries to sandbox the agent.
type SandboxPolicy int

const (
	SandboxOff      SandboxPolicy = iota // not asked (tests)
	SandboxAuto                          // the best available; unsandboxed with a warning if none
	SandboxRequired                      // refuse to run without one
	SandboxDisabled                      // --no-sandbox
)

func (e *Exec) Name() string { return e.Def.Name }

// Capabilities: an exec agent reaches the cluster through the read-only
// gateway, and runs in the sandbox Preflight chose (or says why none).
func (e *Exec) Capabilities() Capabilities {
	return Capabilities{UsesCluster: true, Sandbox: e.Sandbox()}
}

// Sandbox says how the agent is isolated from the user's credentials.
func (e *Exec) Sandbox() string {
	switch e.sandboxMode {
	case "", sandbox.ModeNone:
		return "none: " + e.sandboxReason
	case sandbox.ModeNamespaces:
		return e.sandboxMode
	}
	// The weaker helpers: say what they leave open.
	return e.sandboxMode + " (" + e.sandboxReason + ")"
}

func (e *Exec) Model() string { return e.ModelName }

// Command is the command line recorded in incident.json: the binary and
// its fixed arguments, without the prompt text.
func (e *Exec) Command() []string {
	return append([]string{e.Def.Binary}, e.Def.Args...)
}

func (e *Exec) environ() []string {
	if e.Environ != nil {
		return e.Environ()
	}
	return os.Environ()
}

func (e *Exec) getenv(name string) string {
	prefix := name + "="
	for _, kv := range e.environ() {
		if strings.HasPrefix(kv, prefix) {
			return kv[len(prefix):]
		}
	}
	return ""
}

func (e *Exec) home() string {
	if e.Home != "" {
		return e.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// Preflight checks, before any workspace exists, that the CLI is installed
// and has credentials, and says what to do when not.
func (e *Exec) Preflight() error {
	look := e.lookPath
	if e.sandboxMode == "" {
		if err := e.chooseSandbox(); err != nil {
			return err
		}
	}
	if e.path == "" {
		p, err := look(e.Def.Binary)
		if err != nil {
			hint := ""
			if e.Def.Install != "" {
				hint = "; install it with: " + e.Def.Install
			}
			return fmt.Errorf("%w: the %s agent needs %q on PATH%s", ErrNotReady, e.Def.Name, e.Def.Binary, hint)
		}
		e.path = p
	}
	if len(e.Def.APIKeyEnv) == 0 && len(e.Def.LoginFiles) == 0 {
		return nil
	}
	for _, k := range e.Def.APIKeyEnv {
		if e.getenv(k) != "" {
			return nil
		}
	}
	for _, f := range e.Def.LoginFiles {
		if _, err := os.Stat(expandHome(f, e.home())); err == nil {
			return nil
		}
	}
	var how []string
	if len(e.Def.APIKeyEnv) > 0 {
		how = append(how, "set "+strings.Join(e.Def.APIKeyEnv, " or "))
	}
	if len(e.Def.LoginFiles) > 0 {
		how = append(how, fmt.Sprintf("log in once with `%s` (expected %s)", e.Def.Binary, strings.Join(e.Def.LoginFiles, " or ")))
	}
	return fmt.Errorf("%w: the %s agent has no credentials: %s", ErrNotReady, e.Def.Name, strings.Join(how, ", or "))
}

// Env is the agent's whole environment: a minimal allow-list, the incident's
// facts, the read-only kubeconfig and the agent's own API key variables.
// Nothing else of the user's environment passes (no KUBECONFIG, cloud
// credentials or unrelated tokens).
func (e *Exec) Env(r *Run) []string {
	env := []string{}
	pass := func(name string) {
		if v := e.getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TERM", "TZ"} {
		pass(k)
	}
	// Without a network namespace the CLI reaches its model the way the
	// user does; inside one, isolate replaces these with the egress proxy.
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
		pass(k)
	}
	ws := r.Workspace.Dir
	// kubectl's discovery cache goes to the private TMPDIR: ~/.kube is masked.
	env = append(env, "TMPDIR="+filepath.Join(ws, "tmp"), "KUBECACHEDIR="+filepath.Join(ws, "tmp", "kube-cache"))
	if e.sandboxed() {
		// Inside the sandbox every credential path is masked, so HOME stays
		// the user's and the CLI finds its own login where it expects it.
		env = append(env, "HOME="+e.home())
	} else {
		// Without one HOME is the workspace, so ~/.kube and the like are not
		// where the CLI looks; it finds its login through its config-dir
		// variable.
		env = append(env, "HOME="+ws)
	}
	if !e.sandboxed() && e.Def.ConfigDirEnv != "" && len(e.Def.ConfigDirs) > 0 {
		dir := expandHome(e.Def.ConfigDirs[0], e.home())
		if e.Def.ConfigDirEnv == "XDG_CONFIG_HOME" || e.Def.ConfigDirEnv == "GEMINI_CLI_HOME" {
			dir = filepath.Dir(dir) // the variable names the parent of the app's dir
		}
		env = append(env, e.Def.ConfigDirEnv+"="+dir)
	}
	for k, v := range e.Def.SetEnv {
		env = append(env, k+"="+v)
	}
	kubeconfig := e.Kubeconfig
	if kubeconfig == "" {
		kubeconfig = r.Workspace.MustPath(workspace.AgentKubeconfig)
	}
	env = append(env,
		"INCIDENT_ID="+r.Incident.IncidentID,
		"INCIDENT_WORKSPACE="+ws,
		"KUBERNETES_CLUSTER="+r.Incident.Cluster,
		"KUBERNETES_NAMESPACE="+r.Incident.Namespace,
		"KUBECONFIG="+kubeconfig,
		"CLAUDE_READ_ONLY_MODE=true",
	)
	for _, k := range e.Def.Env {
		pass(k)
	}
	return env
}

// args renders the command line for this run.
func (e *Exec) args(r *Run) ([]string, string, error) {
	promptPath := r.Workspace.MustPath(workspace.PromptFile)
	prompt, err := os.ReadFile(promptPath)
	if err != nil {
		return nil, "", fmt.Errorf("read prompt: %w", err)
	}
	sysFile := e.SystemPromptFile
	if sysFile == "" {
		sysFile = r.Workspace.MustPath(workspace.InstructionsFile)
	}
	sys, err := os.ReadFile(sysFile)
	if err != nil {
		return nil, "", fmt.Errorf("read system instructions %s: %w", sysFile, err)
	}
	tools := e.AllowedTools
	if tools == "" {
		tools = e.Def.AllowedTools
	}
	data := argData{
		Prompt: string(prompt), PromptFile: promptPath, Model: e.ModelName, AllowedTools: tools,
		SystemPrompt: string(sys), SystemPromptFile: sysFile, Workspace: r.Workspace.Dir,
		ReportFile: r.Workspace.MustPath(workspace.ReportFile),
	}
	list := append([]string{}, e.Def.Args...)
	if e.ModelName != "" {
		list = append(list, e.Def.ModelArgs...)
	}
	lim := e.Limits()
	if lim.MaxTurns > 0 {
		data.MaxTurns = strconv.Itoa(lim.MaxTurns)
		list = append(list, e.Def.MaxTurnsArgs...)
	}
	if lim.MaxBudgetUSD > 0 {
		data.MaxBudgetUSD = strconv.FormatFloat(lim.MaxBudgetUSD, 'f', -1, 64)
		list = append(list, e.Def.BudgetArgs...)
	}
	if tools != "" {
		list = append(list, e.Def.ToolsArgs...)
	}
	args, err := render(list, data)
	if err != nil {
		return nil, "", err
	}
	stdin := ""
	if e.Def.PromptStdin {
		stdin = string(prompt)
	}
	return args, stdin, nil
}

// Limits are the CLI's own limits for this run: the user's, else the
// definition's default turn limit.
func (e *Exec) Limits() effort.Limits {
	l := effort.Limits{MaxTurns: e.MaxTurns, MaxBudgetUSD: e.MaxBudgetUSD}
	if l.MaxTurns == 0 {
		l.MaxTurns = e.Def.DefaultMaxTurns
	}
	return l
}

// Prepare writes the read-only instructions where this CLI looks for project
// instructions (AGENTS.md, GEMINI.md, .goosehints, …).
func (e *Exec) Prepare(tmp *workspace.Workspace) error {
	for rel, content := range e.Def.Files {
		p, err := tmp.Path(rel)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := atomicfile.Write(p, []byte(content), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
	}
	for _, rel := range e.Def.Instructions {
		p, err := tmp.Path(rel)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := atomicfile.Write(p, []byte(prompt.AgentInstructions()), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
	}
	return nil
}

// Run starts the agent in the workspace and waits for it. Cancelling ctx
// sends SIGINT to the agent's whole process group, then SIGKILL after
// WaitDelay; whatever the path, no process of the agent's survives Run.
func (e *Exec) Run(ctx context.Context, r *Run) (*Outcome, error) {
	if err := e.Preflight(); err != nil {
		return nil, err
	}
	args, stdin, err := e.args(r)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.Workspace.MustPath("tmp"), 0o700); err != nil {
		return nil, err
	}
	// Created before the start, appended to as output arrives.
	logFile, err := os.OpenFile(r.Workspace.MustPath(workspace.AgentLogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create agent log: %w", err)
	}
	defer logFile.Close()
	mask := newLogMask(logFile, e.credentialValues())
	defer mask.Flush()
	log := &lockedWriter{w: mask}

	// The run's own context: the egress watchdog ends it early when the
	// model API cannot be reached.
	rctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cmd := exec.CommandContext(rctx, e.path, args...)
	cmd.Dir = r.Workspace.Dir
	cmd.Env = e.Env(r)
	exited := setProcessGroup(cmd)
	cmd.WaitDelay = e.WaitDelay
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = DefaultWaitDelay
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	iso, err := e.isolate(cmd, r)
	if err != nil {
		return nil, fmt.Errorf("sandbox the agent: %w", err)
	}
	cmd.Stderr = log
	// A Writer, not StdoutPipe: Wait then bounds (by WaitDelay) the wait for
	// a grandchild that keeps stdout open after the agent exits.
	consumer := &streamConsumer{parse: streamParsers[e.Def.Stream], progress: r.Progress, log: log}
	cmd.Stdout = consumer

	if err := cmd.Start(); err != nil {
		exited()
		iso.finish(e, log)
		fmt.Fprintf(log, "kubectl-triage: could not start %s in %s: %v\n", e.path, cmd.Dir, err)
		return &Outcome{ExitCode: -1}, fmt.Errorf("start %s: %w", e.Def.Binary, err)
	}
	iso.started()
	started := time.Now()
	iso.watch(rctx, stop)
	pgid := cmd.Process.Pid
	defer reap(pgid, r.Incident.IncidentID)
	if r.Started != nil {
		r.Started(pgid)
	}

	waitErr := cmd.Wait()
	exited()
	consumer.flush()

	out := &Outcome{ExitCode: cmd.ProcessState.ExitCode(), ToolCalls: consumer.tools,
		Effort: consumer.meter.effort(consumer.tools, e.Def.Stream, time.Since(started), e.Limits())}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		out.Signal = ws.Signal().String()
	}
	fmt.Fprintf(log, "\nkubectl-triage: agent exited: code %d%s\n", out.ExitCode, signalSuffix(out.Signal))
	out.Notes = iso.finish(e, log)
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if cause := context.Cause(rctx); cause != nil {
		fmt.Fprintf(log, "kubectl-triage: %v\n", cause)
		return out, cause
	}
	if waitErr != nil && !errors.As(waitErr, new(*exec.ExitError)) {
		return out, fmt.Errorf("wait for %s: %w", e.Def.Binary, waitErr)
	}
	if out.ExitCode == 0 {
		if err := e.obtainReport(r.Workspace, consumer); err != nil {
			fmt.Fprintf(log, "kubectl-triage: %v\n", err)
		}
	}
	return out, nil
}

func signalSuffix(s string) string {
	if s == "" {
		return ""
	}
	return ", signal " + s
}

// obtainReport makes sure output/investigation.md holds the agent's report:
// the file the agent wrote if it is valid, else the stream's final result,
// else (for text agents) its stdout. The caller validates the result.
func (e *Exec) obtainReport(ws *workspace.Workspace, c *streamConsumer) error {
	path := ws.MustPath(workspace.ReportFile)
	data, err := ws.Files().ReadFile(context.Background(), workspace.ReportFile)
	var refused *safefile.Error
	switch {
	case err == nil && report.Validate(string(data)) == nil:
		return nil
	case errors.As(err, &refused) && refused.Path == path && (refused.Why == safefile.Link || refused.Why == safefile.NotRegular):
		// The engine's own slot, holding a link that could point anywhere
		// or a pipe: the name goes (never what it leads to), the report
		// is taken from the stream below.
		os.Remove(path)
	}
	var candidates []string
	switch e.Def.Report {
	case "file", "result":
		candidates = []string{c.result, c.lastText}
		if e.Def.Output == "text" {
			candidates = append(candidates, c.stdout.String())
		}
	case "stdout":
		candidates = []string{c.stdout.String(), c.result}
	}
	for _, text := range candidates {
		if report.Validate(text) == nil {
			return atomicfile.Write(path, []byte(text), 0o600)
		}
	}
	// Keep the best non-empty attempt so a human can see what came back.
	for _, text := range candidates {
		if strings.TrimSpace(text) != "" {
			return atomicfile.Write(path, []byte(text), 0o600)
		}
	}
	return errors.New("the agent produced no report")
}

// streamConsumer tees stdout to agent.log, parses the stream live, and
// keeps what a report can be made from.
type streamConsumer struct {
	parse    streamParser
	progress progress.Func
	log      io.Writer

	stdout   bytes.Buffer
	partial  []byte
	result   string
	lastText string
	isError  bool
	tools    ToolCalls
	meter    meter
}

// Write receives stdout as it arrives and handles it line by line.
func (c *streamConsumer) Write(p []byte) (int, error) {
	c.log.Write(p)
	if c.stdout.Len() < maxStdout {
		c.stdout.Write(p)
	}
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		c.line(c.partial[:i])
		c.partial = c.partial[i+1:]
	}
	if len(c.partial) > maxLine {
		c.partial = c.partial[:0] // a runaway line is in the log; don't parse it
	}
	return len(p), nil
}

// flush parses a last line that had no newline.
func (c *streamConsumer) flush() {
	if len(c.partial) > 0 {
		c.line(c.partial)
		c.partial = nil
	}
}

const maxLine = 16 << 20

func (c *streamConsumer) line(l []byte) {
	ev, ok := c.parse(bytes.TrimSpace(l))
	if !ok {
		return
	}
	if ev.Progress != "" && c.progress != nil {
		c.progress(progress.Agentf("%s", ev.Progress))
	}
	c.meter.observe(ev)
	for _, te := range ev.Tools {
		if p := c.tools.observe(te); p != "" && c.progress != nil {
			c.progress(progress.Agentf("%s", p))
		}
		if !te.Done {
			c.lastText = "" // text before a tool call is not the report
		}
	}
	switch {
	case ev.Delta:
		c.lastText += ev.Text // streamed in pieces
	case ev.Text != "":
		c.lastText = ev.Text
	}
	if ev.Result != "" {
		c.result = ev.Result
	}
	c.isError = c.isError || ev.IsError
}

// lockedWriter serialises writes from stdout and stderr into one log.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
