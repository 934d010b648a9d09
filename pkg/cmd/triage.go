// Package cmd holds the kubectl triage commands: options structs with
// Complete/Validate/Run in the kubectl style, over the engine in pkg/triage.
package cmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/pkg/target"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
	"github.com/kubectl-triage/kubectl-triage/pkg/version"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Environment variables, named as in the seed specifications so existing
// deployments carry over.
const (
	envAgent        = "AGENT_CLI"
	envModel        = "AGENT_MODEL"
	envTimeout      = "AGENT_TIMEOUT"
	envAllowedTools = "AGENT_ALLOWED_TOOLS"
	envSystemPrompt = "AGENT_SYSTEM_PROMPT_FILE"
	envCommand      = "AGENT_RUNTIME_COMMAND"
	envLogLvl       = "LOG_LEVEL"
)

const defaultTimeout = 10 * time.Minute

var triageLong = `Investigate why a Kubernetes resource is failing and print a report: symptom,
evidence, timeline, hypotheses checked, root cause with a confidence, and the
fix a human should apply.

kubectl triage never changes the cluster. It reads through a client that
refuses every write, collects the evidence into an incident workspace, and
runs a read-only agent on it (the builtin investigator by default).

The report goes to stdout; progress goes to stderr.`

var triageExample = `  # Why is this pod crash-looping?
  kubectl triage pod/checkout-7d9f -n shop

  # A bare name means a pod, as with kubectl logs
  kubectl triage checkout-7d9f -n shop

  # A workload, in either TYPE/NAME or TYPE NAME form
  kubectl triage deploy/checkout -n shop
  kubectl triage deployment checkout -n shop

  # Save the report for a ticket
  kubectl triage pod/checkout-7d9f -n shop > report.md`

// TriageOptions are the options of `kubectl triage TYPE/NAME`.
type TriageOptions struct {
	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams

	Args             []string
	AgentName        string
	AgentCommand     string
	Model            string
	AllowedTools     string
	SystemPromptFile string
	Timeout          time.Duration
	WaitDelay        time.Duration
	WorkspaceRoot    string
	Quiet            bool
	AgentKubeconfig  string
	CheckCredentials bool
	RequireReadOnly  bool
	FaultFile        string
	NoSandbox        bool
	RequireSandbox   bool
	SandboxMasks     []string

	namespace string
	agent     agent.Agent
	getEnv    func(string) string
}

// NewTriageOptions returns options with defaults.
func NewTriageOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *TriageOptions {
	return &TriageOptions{
		configFlags: flags,
		IOStreams:   streams,
		AgentName:   agent.BuiltinName,
		Timeout:     defaultTimeout,
		WaitDelay:   agent.DefaultWaitDelay,
		getEnv:      os.Getenv,
	}
}

// NewCmdTriage is the root command: `kubectl triage`.
func NewCmdTriage(streams genericiooptions.IOStreams) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	// Every client this process builds goes through the read-only transport.
	flags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c = readonly.Config(c)
		c.UserAgent = version.UserAgent()
		return c
	}
	o := NewTriageOptions(flags, streams)

	cmd := &cobra.Command{
		Use:         "triage [TYPE/NAME | TYPE NAME | POD] [flags]",
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl triage"},
		// Arguments that are not subcommands name the resource to triage.
		Args:                  cobra.ArbitraryArgs,
		DisableFlagsInUseLine: true,
		Short:                 "Find out why a Kubernetes resource is broken, read-only",
		Long:                  triageLong,
		Example:               triageExample,
		SilenceUsage:          true,
		SilenceErrors:         true,
		Version:               version.Version,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	cmd.SetVersionTemplate("kubectl-triage {{.Version}}\n")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nSee '%s --help' for usage", err, c.CommandPath())
	})
	o.AddFlags(cmd)
	flags.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(NewCmdVersion(streams))
	cmd.AddCommand(NewCmdList(streams), NewCmdShow(streams), NewCmdStatus(streams), NewCmdGC(streams))
	return cmd
}

// AddFlags registers the triage flags.
func (o *TriageOptions) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.AgentName, "agent", o.AgentName, fmt.Sprintf("Agent that investigates (%s). Env: %s", strings.Join(agent.Names(agent.DefaultConfigDir()), ", "), envAgent))
	f.StringVar(&o.AgentCommand, "agent-command", "", "Run any other agent CLI, e.g. \"mycli --headless\": PROMPT.md on stdin (or {{.Prompt}}/{{.PromptFile}} in the arguments), its stdout is the report. Env: "+envCommand)
	f.StringVar(&o.Model, "model", "", "Model for the agent CLI. Env: "+envModel)
	f.StringVar(&o.AllowedTools, "allowed-tools", "", "Tool allow-list for the agent CLI (default: the agent's read-only list). Env: "+envAllowedTools)
	f.StringVar(&o.SystemPromptFile, "system-prompt-file", "", "File with system instructions for the agent instead of the read-only defaults. Env: "+envSystemPrompt)
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "Give up on the agent after this long. Env: "+envTimeout)
	f.DurationVar(&o.WaitDelay, "wait-delay", o.WaitDelay, "After Ctrl-C or the timeout, how long the agent gets to stop before it is killed")
	f.StringVar(&o.WorkspaceRoot, "workspace-root", "", "Directory that holds incident workspaces (default $XDG_STATE_HOME/kubectl-triage/incidents). Env: "+workspace.EnvWorkspaceRoot)
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "Print only the report: no progress on stderr")
	f.StringVar(&o.AgentKubeconfig, "agent-kubeconfig", "", "Kubeconfig of a dedicated read-only identity for the agent's gateway to forward with, instead of yours")
	f.BoolVar(&o.CheckCredentials, "check-credentials", false, "Ask the API server whether the credentials in use can write, and warn if so")
	f.BoolVar(&o.RequireReadOnly, "require-readonly-credentials", false, "Refuse to run when the credentials in use can write (implies --check-credentials)")
	f.StringVar(&o.FaultFile, "fault-file", "", "Triage one fault event (kubernetes-mcp-server JSON, either shape, or a notification frame) from FILE, or - for stdin, instead of a named resource")
	f.BoolVar(&o.RequireSandbox, "require-sandbox", false, "Refuse to run an agent CLI that cannot be sandboxed")
	f.BoolVar(&o.NoSandbox, "no-sandbox", false, "Run the agent CLI without a sandbox, able to read your credentials (debugging only)")
	f.StringArrayVar(&o.SandboxMasks, "sandbox-mask", nil, "Another path the agent's sandbox hides (repeatable); kubeconfigs, ~/.kube, ~/.aws, ~/.azure, ~/.config/gcloud, ~/.docker, ~/.ssh and ~/.netrc always are")
}

// Complete fills the options from flags, environment and kubeconfig.
func (o *TriageOptions) Complete(cmd *cobra.Command, args []string) error {
	o.Args = args
	fromEnv := func(flag, env string, set func(string) error) error {
		if cmd.Flags().Changed(flag) {
			return nil
		}
		if v := o.getEnv(env); v != "" {
			if err := set(v); err != nil {
				return fmt.Errorf("invalid %s=%q: %w", env, v, err)
			}
		}
		return nil
	}
	if err := fromEnv("agent", envAgent, func(v string) error { o.AgentName = v; return nil }); err != nil {
		return err
	}
	for _, e := range []struct {
		flag, env string
		dst       *string
	}{{"agent-command", envCommand, &o.AgentCommand}, {"model", envModel, &o.Model}, {"allowed-tools", envAllowedTools, &o.AllowedTools}, {"system-prompt-file", envSystemPrompt, &o.SystemPromptFile}} {
		if err := fromEnv(e.flag, e.env, func(v string) error { *e.dst = v; return nil }); err != nil {
			return err
		}
	}
	if err := fromEnv("timeout", envTimeout, func(v string) error {
		d, err := time.ParseDuration(v)
		o.Timeout = d
		return err
	}); err != nil {
		return err
	}
	if err := fromEnv("workspace-root", workspace.EnvWorkspaceRoot, func(v string) error { o.WorkspaceRoot = v; return nil }); err != nil {
		return err
	}
	if o.WorkspaceRoot == "" {
		root, err := workspace.DefaultRoot()
		if err != nil {
			return err
		}
		o.WorkspaceRoot = root
	}
	ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return fmt.Errorf("read kubeconfig: %w", err)
	}
	o.namespace = ns
	return nil
}

// Validate checks the options before anything touches the cluster or disk.
func (o *TriageOptions) Validate() error {
	if o.FaultFile != "" {
		if len(o.Args) > 0 {
			return fmt.Errorf("--fault-file names the resource itself: drop %q, or drop --fault-file", strings.Join(o.Args, " "))
		}
	} else if _, err := target.Normalize(o.Args); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", o.Timeout)
	}
	if o.WaitDelay <= 0 {
		return fmt.Errorf("--wait-delay must be positive, got %s", o.WaitDelay)
	}
	for flag, path := range map[string]string{"--system-prompt-file": o.SystemPromptFile, "--agent-kubeconfig": o.AgentKubeconfig} {
		if path == "" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
	}
	if o.NoSandbox && o.RequireSandbox {
		return fmt.Errorf("--no-sandbox and --require-sandbox contradict each other: pick one")
	}
	policy := agent.SandboxAuto
	switch {
	case o.NoSandbox:
		policy = agent.SandboxDisabled
	case o.RequireSandbox:
		policy = agent.SandboxRequired
	}
	kubeconfigFlag := ""
	if o.configFlags.KubeConfig != nil {
		kubeconfigFlag = *o.configFlags.KubeConfig
	}
	// Resolving an exec agent checks its CLI, its credentials and the
	// sandbox now, before any workspace is created.
	a, err := agent.Resolve(agent.Options{
		Name: o.AgentName, Command: o.AgentCommand, Model: o.Model, AllowedTools: o.AllowedTools,
		SystemPromptFile: o.SystemPromptFile, WaitDelay: o.WaitDelay, ConfigDir: agent.DefaultConfigDir(),
		Sandbox: policy, Kubeconfigs: sandbox.KubeconfigPaths(kubeconfigFlag, o.getEnv("KUBECONFIG")), ExtraMasks: o.SandboxMasks,
	})
	if err != nil {
		return err
	}
	o.agent = a
	if o.NoSandbox && a.Name() != agent.BuiltinName {
		fmt.Fprintf(o.ErrOut, "WARNING: --no-sandbox: the %s agent runs with your user's access to every file, including your kubeconfig and cloud credentials. Use this only to debug.\n", a.Name())
	}
	return nil
}

// Run resolves the target, triages it and prints the report.
func (o *TriageOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	progress := o.progress()
	var (
		t   *target.Target
		ev  *fault.Event
		err error
	)
	if o.FaultFile != "" {
		if ev, err = o.readFault(); err != nil {
			return err
		}
		if t, err = o.resolveFault(ev, progress); err != nil {
			return err
		}
	} else {
		progress("Resolving %s in namespace %s", strings.Join(o.Args, " "), o.namespace)
		if t, err = target.Resolve(o.configFlags, o.namespace, o.Args); err != nil {
			return err
		}
	}
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	info := o.clusterInfo(cfg, cs)
	upstream, err := o.agentUpstream(cfg)
	if err != nil {
		return err
	}
	if o.CheckCredentials || o.RequireReadOnly {
		if err := o.checkCredentials(ctx, upstream, progress); err != nil {
			return err
		}
	}
	if ev == nil {
		ref := t.Ref()
		faultType, severity, message := fault.Classify(t.Object)
		clusterName := info.Cluster
		if clusterName == "" {
			clusterName = info.Context
		}
		if ev, err = fault.Synthesize(clusterName, ref, faultType, severity, message, time.Now()); err != nil {
			return err
		}
	}

	res, err := triage.Run(ctx, cs, ev, t.Object, triage.Options{
		WorkspaceRoot: o.WorkspaceRoot,
		Agent:         o.agent,
		Timeout:       o.Timeout,
		Cluster:       info,
		AgentUpstream: upstream,
		Progress:      progress,
		Logger:        o.logger(),
	})
	if err != nil {
		return err
	}
	return o.finish(res)
}

// maxFaultBytes bounds a fault event read from a file or stdin.
const maxFaultBytes = 1 << 20

// readFault reads and parses --fault-file.
func (o *TriageOptions) readFault() (*fault.Event, error) {
	var r io.Reader
	if o.FaultFile == "-" {
		r = o.In
	} else {
		f, err := os.Open(o.FaultFile)
		if err != nil {
			return nil, fmt.Errorf("--fault-file: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxFaultBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read fault event from %s: %w", o.FaultFile, err)
	}
	if len(data) > maxFaultBytes {
		return nil, fmt.Errorf("fault event in %s is larger than %d bytes", o.FaultFile, maxFaultBytes)
	}
	ev, err := fault.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("fault event in %s: %w", o.FaultFile, err)
	}
	return ev, nil
}

// resolveFault finds the event's resource in the cluster. A resource that
// is gone is not an error: the report says so and works from what the event
// carried.
func (o *TriageOptions) resolveFault(ev *fault.Event, progress func(string, ...any)) (*target.Target, error) {
	res := *ev.Resource
	ns := res.Namespace
	if ns == "" {
		ns = o.namespace
	}
	typ := strings.ToLower(res.Kind)
	if gv, err := schema.ParseGroupVersion(res.APIVersion); err == nil && gv.Group != "" {
		typ += "." + gv.Group
	}
	progress("Fault %s (%s, severity %s) for %s/%s in namespace %s", ev.FaultType, ev.EventID, ev.Severity, res.Kind, res.Name, ns)
	t, err := target.Resolve(o.configFlags, ns, []string{typ, res.Name})
	if err == nil {
		return t, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	progress("%s/%s no longer exists: triaging from what the event carried", res.Kind, res.Name)
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(res.APIVersion)
	obj.SetKind(res.Kind)
	obj.SetName(res.Name)
	obj.SetNamespace(ns)
	obj.SetUID(types.UID(res.UID))
	obj.SetAnnotations(map[string]string{bundle.GoneAnnotation: "true"})
	return &target.Target{Object: obj}, nil
}

// agentUpstream is the identity an exec agent's gateway forwards with:
// --agent-kubeconfig's, or the user's, always behind the read-only
// transport as a second guard.
func (o *TriageOptions) agentUpstream(userCfg *rest.Config) (*rest.Config, error) {
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

// checkCredentials warns (or, with --require-readonly-credentials, refuses)
// when the credentials in use could change the cluster. The plugin and the
// gateway refuse writes either way; this tells the user how much rests on
// them.
func (o *TriageOptions) checkCredentials(ctx context.Context, cfg *rest.Config, progress func(string, ...any)) error {
	whose := "your credentials"
	if o.AgentKubeconfig != "" {
		whose = "the --agent-kubeconfig credentials"
	}
	rules, incomplete, err := writableRules(ctx, cfg, o.namespace)
	if err != nil {
		return err
	}
	if len(rules) == 0 {
		note := ""
		if incomplete {
			note = " (the API server's answer was incomplete)"
		}
		progress("Credentials check: %s cannot write in namespace %s%s", whose, o.namespace, note)
		return nil
	}
	msg := fmt.Sprintf("%s can write in namespace %s (%s)", whose, o.namespace, strings.Join(rules, "; "))
	if o.RequireReadOnly {
		return fmt.Errorf("%s; refusing to run because of --require-readonly-credentials: pass a read-only identity with --agent-kubeconfig or use a context bound to the view role", msg)
	}
	fmt.Fprintf(o.ErrOut, "warning: %s. kubectl triage only reads, but a read-only identity (--agent-kubeconfig) is safer.\n", msg)
	return nil
}

func (o *TriageOptions) finish(res *triage.Result) error {
	inc := res.Incident
	code := exitCodeFor(inc)
	switch inc.Status {
	case incident.Resolved:
		fmt.Fprint(o.Out, res.Report)
		o.progress()("Incident %s resolved: %s", inc.IncidentID, inc.Report.RootCause)
		return nil
	case incident.AgentFailed:
		return &exitError{code: code, err: fmt.Errorf("the %s agent produced no valid report (%s); see %s", inc.Agent.Name, inc.FailureReason, inc.Workspace)}
	}
	return &exitError{code: code, err: fmt.Errorf("incident %s failed: %s; workspace %s", inc.IncidentID, inc.FailureReason, inc.Workspace)}
}

func (o *TriageOptions) progress() func(string, ...any) {
	if o.Quiet {
		return func(string, ...any) {}
	}
	return func(format string, a ...any) {
		fmt.Fprintf(o.ErrOut, format+"\n", a...)
	}
}

func (o *TriageOptions) logger() *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.getEnv(envLogLvl))); err != nil || o.getEnv(envLogLvl) == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(o.ErrOut, &slog.HandlerOptions{Level: level}))
}

// clusterInfo names the cluster for the report: context and cluster from the
// kubeconfig, the server's host (never its credentials) and version.
func (o *TriageOptions) clusterInfo(cfg *rest.Config, cs kubernetes.Interface) bundle.ClusterInfo {
	info := bundle.ClusterInfo{Namespace: o.namespace}
	if raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		info.Context = raw.CurrentContext
		if o.configFlags.Context != nil && *o.configFlags.Context != "" {
			info.Context = *o.configFlags.Context
		}
		if c, ok := raw.Contexts[info.Context]; ok {
			info.Cluster = c.Cluster
		}
		if o.configFlags.ClusterName != nil && *o.configFlags.ClusterName != "" {
			info.Cluster = *o.configFlags.ClusterName
		}
	}
	if u, err := url.Parse(cfg.Host); err == nil {
		info.Server = u.Host
	}
	if v, err := cs.Discovery().ServerVersion(); err == nil {
		info.ServerVersion = v.GitVersion
	}
	return info
}
