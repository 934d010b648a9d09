// Package cmd holds the kubectl triage commands: options structs with
// Complete/Validate/Run in the kubectl style, over the engine in pkg/triage.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/config"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/pkg/target"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
	"github.com/kubectl-triage/kubectl-triage/pkg/version"
)

// Environment variables, named so that existing deployments carry over.
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

// The plugin's client rate limits (see WrapConfigFn).
const (
	clientQPS   = 20
	clientBurst = 40
)

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
	configFlags *kubeflags.ConfigFlags
	genericiooptions.IOStreams

	AgentFlags
	storeFlags // --store: the incident is uploaded once finished

	Args      []string
	Quiet     bool
	FaultFile string
	Output    string // markdown or json

	progressLine *term.Progress // stderr's progress reporter (output.go)

	namespace string
	bound     *clusters.Bound             // ties the clients' requests to the run (see NewCmdTriage)
	suggest   func(typed string) []string // subcommands close to a typed word
	agent     agent.Agent
	getEnv    func(string) string
}

// NewTriageOptions returns options with defaults.
func NewTriageOptions(flags *kubeflags.ConfigFlags, streams genericiooptions.IOStreams) *TriageOptions {
	return &TriageOptions{
		configFlags: flags,
		IOStreams:   streams,
		AgentFlags:  NewAgentFlags(),
		getEnv:      os.Getenv,
	}
}

// NewCmdTriage is the root command: `kubectl triage`.
func NewCmdTriage(streams genericiooptions.IOStreams) *cobra.Command {
	flags := kubeflags.NewConfigFlags(true)
	o := NewTriageOptions(flags, streams)
	// Every client this process builds goes through the read-only transport.
	flags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c = readonly.Config(c)
		c.UserAgent = version.UserAgent()
		// client-go's default 5 requests/s would pace a long watch's
		// triages once the burst is spent; collection is already bounded
		// by its own fan-out, so allow what one triage needs at once.
		if c.QPS == 0 {
			c.QPS, c.Burst = clientQPS, clientBurst
		}
		if o.bound != nil {
			c = o.bound.Config(c)
		}
		return c
	}

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
			// A one-shot run's every request ends with Ctrl-C (watch and
			// mcp let theirs drain). Set before any client exists.
			if ctx := c.Context(); ctx != nil {
				o.bound = clusters.NewBound(ctx)
			}
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	// A bare word is a pod name, so cobra never says "unknown command":
	// mistypedCommand suggests one when the pod is not found.
	cmd.SuggestionsMinimumDistance = 2
	cmd.SetVersionTemplate("kubectl-triage {{.Version}}\n")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nSee '%s --help' for usage", err, c.CommandPath())
	})
	// Every setting can come from the environment or the config file;
	// flags win over both (DESIGN.md §10).
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		// Help, version and completion must work with a broken config file
		// (completion functions apply it themselves, leniently).
		switch {
		case c.Name() == "version", c.Name() == "help", c.Name() == "completion",
			c.Name() == cobra.ShellCompRequestCmd, c.Name() == cobra.ShellCompNoDescRequestCmd,
			c.Parent() != nil && c.Parent().Name() == "completion":
			return nil
		}
		f, err := config.Setup(c, o.getEnv)
		if err != nil {
			return err
		}
		c.SetContext(context.WithValue(c.Context(), configFileKey{}, f))
		return nil
	}
	o.AddFlags(cmd)
	flags.AddFlags(cmd.PersistentFlags())
	config.AddFlag(cmd.PersistentFlags())
	addVerbosityFlag(cmd.PersistentFlags())
	cmd.AddCommand(NewCmdVersion(streams))
	cmd.AddCommand(NewCmdList(streams), NewCmdShow(streams), NewCmdStatus(streams), NewCmdGC(streams))
	cmd.AddCommand(NewCmdCancel(streams))
	cmd.AddCommand(NewCmdWatch(flags, streams))
	cmd.AddCommand(NewCmdMCP(flags, streams))
	cmd.AddCommand(NewCmdConfig(streams))
	cmd.AddCommand(NewCmdAgents(streams))
	cmd.AddCommand(NewCmdInstall(streams))
	cmd.AddCommand(NewCmdReplay(streams))
	registerCompletions(cmd, o)
	return cmd
}

// AddFlags registers the triage flags.
func (o *TriageOptions) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	o.AgentFlags.AddFlags(f)
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "Print only the report: no progress on stderr")
	f.StringVar(&o.FaultFile, "fault-file", "", "Triage one fault event (kubernetes-mcp-server JSON, either shape, or a notification frame) from FILE, or - for stdin, instead of a named resource")
	config.ExcludeFromConfig(f, "fault-file") // one event, not a setting
	f.StringVarP(&o.Output, "output", "o", outputMarkdown, "Output format: markdown (the report) or json (the report and the incident's outcome, as one JSON document)")
	config.ExcludeFromConfig(f, "output") // scripts rely on what stdout carries
	o.storeFlags.addTriageFlags(f)
}

// Complete fills the options from flags, environment and kubeconfig.
func (o *TriageOptions) Complete(cmd *cobra.Command, args []string) error {
	o.Args = args
	o.suggest = cmd.SuggestionsFor
	if err := o.AgentFlags.Complete(cmd.Context()); err != nil {
		return err
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
	if err := validateOutput(o.Output); err != nil {
		return err
	}
	// A bad value is an error, as for every other variable (AGENT_TIMEOUT…),
	// never silently ignored.
	if v := o.getEnv(envLogLvl); v != "" {
		if _, err := parseLogLevel(v); err != nil {
			return fmt.Errorf("invalid %s=%q: %v", envLogLvl, v, err)
		}
	}
	if o.FaultFile != "" {
		if len(o.Args) > 0 {
			return fmt.Errorf("--fault-file names the resource itself: drop %q, or drop --fault-file", strings.Join(o.Args, " "))
		}
	} else if ws, ok := workspaceArg(o.Args); ok {
		return fmt.Errorf("%q is a path, not a resource: name a resource as TYPE/NAME (e.g. deploy/web), TYPE NAME or a pod NAME; to investigate a saved incident workspace again, run 'kubectl triage replay %s'", ws, ws)
	} else if _, err := target.Normalize(o.Args); err != nil {
		return err
	}
	a, err := o.AgentFlags.Resolve(o.configFlags, o.getEnv, o.ErrOut)
	if err != nil {
		return err
	}
	o.agent = a
	return nil
}

// Run resolves the target, triages it and prints the report.
func (o *TriageOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil { // a signal while the process started
		return errCancelledEarly
	}
	report := o.progress()
	defer o.stopProgress() // before an error is printed on the same terminal
	// Reading the fault, discovery, target resolution and the credential
	// check end with ctx through the clients' transport (o.bound), but not
	// all of them take it (the REST mapper's discovery does not): they run
	// aside, and Ctrl-C or SIGTERM ends the command at once, before
	// anything is written. Their progress stops with ctx, so no line
	// follows the error.
	quiet := func(ev progress.Event) {
		if ctx.Err() == nil {
			report(ev)
		}
	}
	p, err := untilCancelled(ctx, func() (*prepared, error) { return o.prepare(ctx, quiet) })
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errCancelledEarly
	}
	// A store that cannot be used is an error before any incident exists.
	if err := o.openStore(ctx, o.logger()); err != nil {
		return err
	}
	defer o.closeStore()
	engine := triage.New(triage.Config{
		WorkspaceRoot: o.WorkspaceRoot,
		Agent:         o.agent,
		Timeout:       o.Timeout,
		Logger:        o.logger(),
		// An agent CLI is a second opinion on the builtin's findings
		// (DESIGN.md §6), unless it is to run blind.
		NoBuiltinHints: o.NoBuiltinHints,
	})
	res, err := engine.Run(ctx, triage.Request{Client: p.client, Event: p.ev, Object: p.t.Object, PodEvents: p.podEvents, Progress: report})
	if err != nil {
		if ctx.Err() != nil {
			return errCancelledEarly
		}
		return err
	}
	o.publishOneShot(ctx, res.Incident, report)
	return o.finish(res)
}

// errCancelledEarly: Ctrl-C or SIGTERM before an incident existed.
var errCancelledEarly = &exitError{code: ExitCancelled, err: errors.New("cancelled before an incident was created; nothing was written")}

// cancelGrace is how long untilCancelled lets f end after ctx is done (its
// requests end with ctx), so that it does not outlive the command's
// answer.
const cancelGrace = 500 * time.Millisecond

// untilCancelled runs f and returns its result, or errCancelledEarly once
// ctx is done (after cancelGrace at most; then f is left to finish on its
// own: the command is ending).
func untilCancelled[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if ctx.Err() != nil {
			break // its error is the cancellation's
		}
		return r.v, r.err
	case <-ctx.Done():
		select {
		case <-ch:
		case <-time.After(cancelGrace):
		}
	}
	var zero T
	return zero, errCancelledEarly
}

// prepared is what a run needs before an incident exists.
type prepared struct {
	t      *target.Target
	ev     *fault.Event
	client *clusters.Client
	// podEvents is a pod target's events list, under way since before
	// the pod was resolved.
	podEvents *bundle.PodEvents
}

// prepare reads the fault or resolves the picked resource, connects and
// checks the credentials: everything before an incident is created.
func (o *TriageOptions) prepare(ctx context.Context, report progress.Func) (*prepared, error) {
	p := &prepared{}
	var err error
	if o.FaultFile != "" {
		if p.ev, err = o.readFault(); err != nil {
			return nil, err
		}
		if p.t, err = triage.ResolveFault(o.configFlags, o.namespace, p.ev, report); err != nil {
			return nil, err
		}
	} else {
		// A pod's events list needs only its name, and in a crowded
		// namespace it is the slowest read: it starts with the resolution
		// (DESIGN.md §1).
		if name, ok := target.PodName(o.Args); ok {
			if cfg, err := o.configFlags.ToRESTConfig(); err == nil {
				if cs, err := clusters.NewLazy(cfg); err == nil {
					p.podEvents = bundle.StartPodEvents(ctx, cs, o.namespace, name)
				}
			}
		}
		if p.t, err = triage.ResolveNamed(o.configFlags, o.namespace, o.Args, report); err != nil {
			return nil, o.mistypedCommand(err)
		}
	}
	// One cluster, through the same client cache watch mode and the MCP
	// server use, so a one-shot run connects exactly as they do.
	cache := clusters.New(clusters.Options{Flags: o.configFlags, Prepare: o.prepareClient(report.Printf, o.ErrOut, true)})
	if p.client, err = cache.Get(ctx, ""); err != nil {
		return nil, err
	}
	if p.ev == nil {
		if p.ev, err = triage.NamedFault(p.client.Info, p.t, time.Now()); err != nil {
			return nil, err
		}
	}
	return p, nil
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

func (o *TriageOptions) logger() *slog.Logger {
	v := o.getEnv(envLogLvl)
	if v == "" {
		return slog.New(slog.DiscardHandler)
	}
	level, err := parseLogLevel(v)
	if err != nil { // Validate refused it already
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(o.ErrOut, &slog.HandlerOptions{Level: level, ReplaceAttr: term.CleanAttr}))
}

// parseLogLevel reads debug, info, warn (or warning) and error.
func parseLogLevel(s string) (slog.Level, error) {
	var level slog.Level
	if strings.EqualFold(s, "warning") {
		s = "warn"
	}
	if err := level.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("unknown log level %q: want debug, info, warn or error", s)
	}
	return level, nil
}

// mistypedCommand adds "did you mean" to a failed lookup of a single word
// that is close to a subcommand: `kubectl triage lsit` meant list, not a
// pod named lsit. Never replay: it takes a workspace, which Validate
// recognises by itself, and words close to it are pod names (deploy is two
// letters from replay).
func (o *TriageOptions) mistypedCommand(err error) error {
	var usage *target.UsageError
	if len(o.Args) == 0 || o.suggest == nil || errors.As(err, &usage) {
		return err // the word was understood (a type with no name)
	}
	for _, s := range o.suggest(o.Args[0]) {
		if s != "replay" {
			return fmt.Errorf("%w\nDid you mean the command 'kubectl triage %s'?", err, s)
		}
	}
	return err
}
