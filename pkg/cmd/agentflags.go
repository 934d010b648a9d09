package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/config"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/pkg/version"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// AgentFlags choose and confine the agent that investigates. A one-shot
// triage and watch share them, so an incident looks the same either way.
type AgentFlags struct {
	AgentName        string
	AgentCommand     string
	Model            string
	AllowedTools     string
	SystemPromptFile string
	Timeout          time.Duration
	WaitDelay        time.Duration
	WorkspaceRoot    string
	AgentKubeconfig  string
	CheckCredentials bool
	RequireReadOnly  bool
	NoSandbox        bool
	RequireSandbox   bool
	SandboxMasks     []string
	NoBuiltinHints   bool
	MaxTurns         int
	MaxBudgetUSD     float64

	secretFiles []string // files of ours with secrets in them: masked too
}

// hide adds a file the agent's sandbox must mask.
func (o *AgentFlags) hide(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	o.secretFiles = append(o.secretFiles, path)
}

// NewAgentFlags returns the defaults: the builtin investigator.
func NewAgentFlags() AgentFlags {
	return AgentFlags{
		AgentName: agent.BuiltinName,
		Timeout:   defaultTimeout,
		WaitDelay: agent.DefaultWaitDelay,
	}
}

// AddFlags registers the agent flags.
func (o *AgentFlags) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.AgentName, "agent", o.AgentName, fmt.Sprintf("Agent that investigates (%s). Env: %s", strings.Join(agent.Names(agent.DefaultConfigDir()), ", "), envAgent))
	f.StringVar(&o.AgentCommand, "agent-command", "", "Run any other agent CLI, e.g. \"mycli --headless\": PROMPT.md on stdin (or {{.Prompt}}/{{.PromptFile}} in the arguments), its stdout is the report. Env: "+envCommand)
	f.StringVar(&o.Model, "model", "", "Model for the agent CLI. Env: "+envModel)
	f.StringVar(&o.AllowedTools, "allowed-tools", "", "Tool allow-list for the agent CLI (default: the agent's read-only list). Env: "+envAllowedTools)
	f.StringVar(&o.SystemPromptFile, "system-prompt-file", "", "File with system instructions for the agent instead of the read-only defaults. Env: "+envSystemPrompt)
	positiveDurationVar(f, &o.Timeout, "timeout", o.Timeout, "Give up on the agent after this long (a duration, or seconds). Env: "+envTimeout)
	positiveDurationVar(f, &o.WaitDelay, "wait-delay", o.WaitDelay, "After Ctrl-C or the timeout, how long the agent gets to stop before it is killed (a duration, or seconds)")
	f.StringVar(&o.WorkspaceRoot, "workspace-root", "", "Directory that holds incident workspaces (default $XDG_STATE_HOME/kubectl-triage/incidents). Env: "+workspace.EnvWorkspaceRoot)
	f.StringVar(&o.AgentKubeconfig, "agent-kubeconfig", "", "Kubeconfig of a dedicated read-only identity for the agent's gateway to forward with, instead of yours")
	f.BoolVar(&o.CheckCredentials, "check-credentials", false, "Ask the API server whether the credentials in use can write, and warn if so")
	f.BoolVar(&o.RequireReadOnly, "require-readonly-credentials", false, "Refuse to run when the credentials in use can write (implies --check-credentials)")
	f.BoolVar(&o.RequireSandbox, "require-sandbox", false, "Refuse to run an agent CLI that cannot be sandboxed")
	f.BoolVar(&o.NoSandbox, "no-sandbox", false, "Run the agent CLI without a sandbox, able to read your credentials (debugging only)")
	f.BoolVar(&o.NoBuiltinHints, "no-builtin-hints", false, "Run an agent CLI blind: do not give it the builtin investigator's findings (context/builtin-findings.json), to compare; the second opinion is still recorded")
	f.IntVar(&o.MaxTurns, "max-turns", 0, "Stop the agent CLI after this many model turns, with its own limit (claude; default: its definition's, 40)")
	f.Float64Var(&o.MaxBudgetUSD, "max-budget-usd", 0, "Stop the agent CLI once it has spent this much, in US dollars, by its own estimate (claude)")
	f.StringArrayVar(&o.SandboxMasks, "sandbox-mask", nil, "Another path the agent's sandbox hides (repeatable); kubeconfigs, ~/.kube, ~/.aws, ~/.azure, ~/.config/gcloud, ~/.docker, ~/.ssh and ~/.netrc always are")
	for flag, env := range map[string]string{"agent": envAgent, "agent-command": envCommand, "model": envModel, "allowed-tools": envAllowedTools,
		"system-prompt-file": envSystemPrompt, "timeout": envTimeout, "workspace-root": workspace.EnvWorkspaceRoot} {
		config.BindEnv(f, flag, env)
	}
}

// configFileKey carries the applied *config.File in the command's
// context, from the root's PersistentPreRunE to the options.
type configFileKey struct{}

// configFile is the config file applied to the running command (nil in
// tests that build options by hand).
func configFile(ctx context.Context) *config.File {
	if ctx == nil {
		return nil
	}
	f, _ := ctx.Value(configFileKey{}).(*config.File)
	return f
}

// Complete defaults the workspace root; the environment and the config
// file were applied to the flags before (config.Setup). The config file
// may hold secrets (a Slack webhook): the agent's sandbox hides it.
func (o *AgentFlags) Complete(ctx context.Context) error {
	if f := configFile(ctx); f != nil && f.Found() {
		o.hide(f.Path())
	}
	if o.WorkspaceRoot == "" {
		root, err := workspace.DefaultRoot()
		if err != nil {
			return err
		}
		o.WorkspaceRoot = root
	}
	return workspace.ValidateRoot(o.WorkspaceRoot)
}

// Resolve validates the flags and resolves the agent. For an exec agent
// that checks its CLI, its credentials and the sandbox now, before any
// workspace is created.
func (o *AgentFlags) Resolve(flags *kubeflags.ConfigFlags, getEnv func(string) string, errOut io.Writer) (agent.Agent, error) {
	if o.Timeout <= 0 {
		return nil, fmt.Errorf("--timeout must be positive, got %s", o.Timeout)
	}
	if o.WaitDelay <= 0 {
		return nil, fmt.Errorf("--wait-delay must be positive, got %s", o.WaitDelay)
	}
	for flag, path := range map[string]string{"--system-prompt-file": o.SystemPromptFile, "--agent-kubeconfig": o.AgentKubeconfig} {
		if path == "" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
	}
	if o.NoSandbox && o.RequireSandbox {
		return nil, fmt.Errorf("--no-sandbox and --require-sandbox contradict each other: pick one")
	}
	policy := agent.SandboxAuto
	switch {
	case o.NoSandbox:
		policy = agent.SandboxDisabled
	case o.RequireSandbox:
		policy = agent.SandboxRequired
	}
	kubeconfigFlag := ""
	if flags.KubeConfig != nil {
		kubeconfigFlag = *flags.KubeConfig
	}
	a, err := agent.Resolve(agent.Options{
		Name: o.AgentName, Command: o.AgentCommand, Model: o.Model, AllowedTools: o.AllowedTools,
		SystemPromptFile: o.SystemPromptFile, WaitDelay: o.WaitDelay, ConfigDir: agent.DefaultConfigDir(),
		Sandbox: policy, Kubeconfigs: sandbox.KubeconfigPaths(kubeconfigFlag, getEnv("KUBECONFIG")), ExtraMasks: append(slices.Clone(o.SandboxMasks), o.secretFiles...),
		MaxTurns: o.MaxTurns, MaxBudgetUSD: o.MaxBudgetUSD,
	})
	if err != nil {
		return nil, err
	}
	if writers := writingTools(o.AllowedTools); len(writers) > 0 && a.Name() != agent.BuiltinName {
		fmt.Fprintf(errOut, "warning: the tool allow-list (--allowed-tools or %s) gives the agent %s without limits: its own read-only list is replaced. The read-only gateway and the sandbox still refuse writes; to keep the agent's guard too, drop them or narrow them, e.g. Bash(kubectl get:*).\n", envAllowedTools, strings.Join(writers, ", "))
	}
	if o.NoSandbox && a.Name() != agent.BuiltinName {
		fmt.Fprintf(errOut, "WARNING: --no-sandbox: the %s agent runs with your user's access to every file, including your kubeconfig and cloud credentials. Use this only to debug.\n", a.Name())
	}
	return a, nil
}

// AgentUpstream is the identity an exec agent's gateway forwards with:
// --agent-kubeconfig's, or the user's, always behind the read-only
// transport as a second guard.
func (o *AgentFlags) AgentUpstream(userCfg *rest.Config) (*rest.Config, error) {
	if o.AgentKubeconfig == "" {
		return userCfg, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", o.AgentKubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--agent-kubeconfig %s: %w", o.AgentKubeconfig, err)
	}
	cfg = readonly.Config(cfg)
	cfg.UserAgent = version.UserAgent()
	return cfg, nil
}

// prepareClient is every command's clusters.Options.Prepare: it gives a
// cluster's client the identity the agent's gateway forwards with and,
// with --check-credentials or --require-readonly-credentials, checks it in
// the context's namespace, saying so through progress. collecting also
// checks the identity that collects the evidence when the agent has its
// own (the one-shot command does).
func (o *AgentFlags) prepareClient(progress func(string, ...any), errOut io.Writer, collecting bool) func(context.Context, *clusters.Client) error {
	return func(ctx context.Context, c *clusters.Client) error {
		var err error
		if c.Upstream, err = o.AgentUpstream(c.Config); err != nil {
			return err
		}
		if !o.CheckCredentials && !o.RequireReadOnly {
			return nil
		}
		if err := o.CheckCredentialsFor(ctx, c.Upstream, c.Info.Namespace, progress, errOut); err != nil {
			return err
		}
		if collecting {
			return o.checkCollectingCredentials(ctx, c.Config, c.Info.Namespace, progress, errOut)
		}
		return nil
	}
}

// CheckCredentialsFor warns (or, with --require-readonly-credentials, refuses)
// when the credentials in use could change the cluster. The plugin and the
// gateway refuse writes either way; this tells the user how much rests on
// them.
func (o *AgentFlags) CheckCredentialsFor(ctx context.Context, cfg *rest.Config, namespace string, progress func(string, ...any), errOut io.Writer) error {
	whose := "your credentials"
	if o.AgentKubeconfig != "" {
		whose = "the --agent-kubeconfig credentials"
	}
	rules, incomplete, err := readonly.WritableRules(ctx, cfg, namespace)
	if err != nil {
		return err
	}
	if len(rules) == 0 {
		note := ""
		if incomplete {
			note = " (the API server's answer was incomplete)"
		}
		progress("Credentials check: %s cannot write in namespace %s%s", whose, namespace, note)
		return nil
	}
	msg := fmt.Sprintf("%s can write in namespace %s (%s)", whose, namespace, strings.Join(rules, "; "))
	if o.RequireReadOnly {
		return fmt.Errorf("%s; refusing to run because of --require-readonly-credentials: pass a read-only identity with --agent-kubeconfig or use a context bound to the view role", msg)
	}
	fmt.Fprintf(errOut, "warning: %s. kubectl triage only reads, but a read-only identity (--agent-kubeconfig) is safer.\n", msg)
	return nil
}

// writingTools are the tools in an allow-list that can change files or run
// anything: bare Bash, Write, Edit… (AGENT_ALLOWED_TOOLS lists of existing
// deployments often have them).
func writingTools(allowed string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(allowed, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch t {
		case "Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "shell", "run_shell_command", "write_file", "replace":
			out = append(out, t)
		}
	}
	return out
}
