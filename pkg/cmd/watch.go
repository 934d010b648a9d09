package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/config"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
	"github.com/kubectl-triage/kubectl-triage/pkg/watcher"
	"github.com/kubectl-triage/kubectl-triage/pkg/watchmode"
)

// Environment variables of watch mode, named as existing deployments set
// them.
const (
	envMCPEndpoint  = "K8S_CLUSTER_MCP_ENDPOINT"
	envMCPToken     = "K8S_CLUSTER_MCP_TOKEN"
	envSubscribe    = "SUBSCRIBE_MODE"
	envSlackWebhook = "SLACK_WEBHOOK_URL"
	envMinSeverity  = "MIN_SEVERITY"
)

const (
	sourceMCP     = string(watchmode.SourceMCP)
	sourceCluster = string(watchmode.SourceCluster)
)

var watchLong = `Watch a cluster's faults and triage each one as it happens: every fault
becomes an incident with its workspace and report, exactly as
'kubectl triage TYPE/NAME' makes one, and a one-line summary on stdout.

Faults come from kubernetes-mcp-server's events feature (--mcp-endpoint, or
K8S_CLUSTER_MCP_ENDPOINT) or, with nothing but a kubeconfig, straight from the
cluster (--source cluster, the default without an endpoint): Warning events
and pods, nodes, deployments and jobs turning faulty.

Faults pass a severity filter and a dedup window, wait in a bounded queue,
and are triaged one at a time per cluster. Faults that share a cause within
--group-window (a NotReady node and its pods, a rollout's or a Job's pods)
make one incident that lists them all.

With --leader-elect, several replicas of one watch elect a leader on a
Lease (the only thing the watch ever writes); only the leader triages, and
a follower that takes over triages the faults no incident covers.

Ctrl-C (or SIGTERM) stops intake, lets the running triage finish for up to
--drain-timeout, and exits 0.`

var watchExample = `  # Triage the faults kubernetes-mcp-server reports
  kubectl triage watch --mcp-endpoint http://127.0.0.1:8080/mcp

  # No MCP server: watch the cluster of the current context, one namespace
  kubectl triage watch -n shop

  # Also triage what is already broken, stop after 3 incidents (CI)
  kubectl triage watch --include-existing --max-incidents 3

  # As a service: JSON logs, a JSON line per incident, metrics, and Slack
  # (the webhook from the environment or the config file: it is a secret)
  export SLACK_WEBHOOK_URL=https://hooks.slack.com/services/...
  kubectl triage watch --log-format json -o json --metrics-addr 127.0.0.1:9090`

// WatchOptions are the options of `kubectl triage watch`.
type WatchOptions struct {
	configFlags *kubeflags.ConfigFlags
	genericiooptions.IOStreams
	AgentFlags
	LeaderElectFlags

	Source          string
	MCPEndpoint     string
	MCPTokenFile    string
	SubscribeMode   string
	EventType       string
	Reason          string
	IncludeExisting bool
	MinSeverity     string
	DedupWindow     time.Duration
	GroupWindow     time.Duration
	MaxQueue        int
	Overflow        string
	MaxIncidents    int
	DrainTimeout    time.Duration
	Output          string
	SlackWebhook    string
	MetricsAddr     string
	LogFormat       string
	LogLevel        string
	Retention       time.Duration
	storeFlags

	namespaces []string // -n given: only these
	typedMCP   []string // MCP flags given on the command line
	mcpToken   string
	filter     watch.Filter
	overflow   watch.Overflow
	agent      agent.Agent
	log        *slog.Logger
	getEnv     func(string) string
	outMu      sync.Mutex
}

// NewWatchOptions returns options with defaults.
func NewWatchOptions(flags *kubeflags.ConfigFlags, streams genericiooptions.IOStreams) *WatchOptions {
	return &WatchOptions{
		configFlags:   flags,
		IOStreams:     streams,
		AgentFlags:    NewAgentFlags(),
		SubscribeMode: "faults",
		MinSeverity:   "warning",
		DedupWindow:   15 * time.Minute,
		GroupWindow:   watch.DefaultGroupWindow,
		MaxQueue:      watch.DefaultQueueSize,
		Overflow:      watch.DropOldest.String(),
		DrainTimeout:  2 * time.Minute,
		Output:        "text",
		LogFormat:     "text",
		LogLevel:      "info",
		getEnv:        os.Getenv,
	}
}

// NewCmdWatch is `kubectl triage watch`.
func NewCmdWatch(flags *kubeflags.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewWatchOptions(flags, streams)
	cmd := &cobra.Command{
		Use:                   "watch [flags]",
		DisableFlagsInUseLine: true,
		Short:                 "Triage faults as they happen, from kubernetes-mcp-server or the cluster itself",
		Long:                  watchLong,
		Example:               watchExample,
		Args:                  cobra.NoArgs,
		SilenceUsage:          true,
		SilenceErrors:         true,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// AddFlags registers the watch flags.
func (o *WatchOptions) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	o.AgentFlags.AddFlags(f)
	choiceVar(f, &o.Source, "source", "", []string{"", sourceMCP, sourceCluster}, "Where faults come from: mcp (kubernetes-mcp-server) or cluster (watch the API server). Default: mcp when an endpoint is set, else cluster")
	f.StringVar(&o.MCPEndpoint, "mcp-endpoint", "", "kubernetes-mcp-server's streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp. Env: "+envMCPEndpoint)
	f.StringVar(&o.MCPTokenFile, "mcp-token-file", "", "File holding a bearer token for an MCP server behind auth. Env (the token itself): "+envMCPToken)
	choiceVar(f, &o.SubscribeMode, "subscribe-mode", o.SubscribeMode, []string{"faults", "resource-faults", "events"}, "MCP subscription: faults, resource-faults (older servers) or events. Env: "+envSubscribe)
	f.StringVar(&o.EventType, "type", "", "With --subscribe-mode events: only events of this type (Warning or Normal)")
	f.StringVar(&o.Reason, "reason", "", "With --subscribe-mode events: only events with this reason")
	f.BoolVar(&o.IncludeExisting, "include-existing", false, "With --source cluster: also triage, once, the faults that exist when the watch starts")
	checkedVar(f, &o.MinSeverity, "min-severity", o.MinSeverity, func(s string) error { _, err := watch.NewFilter(s); return err }, "Triage faults at least this severe: info, warning, critical (or debug … emergency). Env: "+envMinSeverity)
	nonNegativeDurationVar(f, &o.DedupWindow, "dedup-window", o.DedupWindow, "Triage the same fault of the same resource at most once per window (0 disables)")
	nonNegativeDurationVar(f, &o.GroupWindow, "group-window", o.GroupWindow, "Faults that share a cause within this window (a NotReady node and its pods, a rollout's or a Job's pods, one pod's crash then crash loop) make one incident listing them all (0 disables)")
	o.LeaderElectFlags.AddFlags(f)
	positiveIntVar(f, &o.MaxQueue, "max-queue", o.MaxQueue, "Faults waiting per cluster while its agent is busy")
	checkedVar(f, &o.Overflow, "overflow", o.Overflow, func(s string) error { _, err := watch.ParseOverflow(s); return err }, "When the queue is full: drop-oldest or drop-new")
	nonNegativeIntVar(f, &o.MaxIncidents, "max-incidents", 0, "Stop after this many incidents (0: run until interrupted)")
	nonNegativeDurationVar(f, &o.DrainTimeout, "drain-timeout", o.DrainTimeout, "On Ctrl-C/SIGTERM, how long a running triage may finish before it is cancelled")
	choiceVarP(f, &o.Output, "output", "o", o.Output, []string{"text", "json"}, "Summary per incident on stdout: text (one line) or json (one JSON object per line)")
	f.StringVar(&o.SlackWebhook, "slack-webhook", "", "Slack incoming-webhook URL to post each incident to; it is a secret, so prefer the env var or the config file to the command line. Env: "+envSlackWebhook)
	f.StringVar(&o.MetricsAddr, "metrics-addr", "", "Serve Prometheus metrics and /healthz on this address, e.g. 127.0.0.1:9090 (off by default)")
	choiceVar(f, &o.LogFormat, "log-format", o.LogFormat, []string{"text", "json"}, "Log format on stderr: text or json")
	checkedVar(f, &o.LogLevel, "log-level", o.LogLevel, func(s string) error { _, err := parseLogLevel(s); return err }, "Log level: debug, info, warn or error. Env: "+envLogLvl)
	nonNegativeDurationVar(f, &o.Retention, "retention", 0, "Remove finished incidents older than this, at start and periodically (0: keep all)")
	o.storeFlags.addWatchFlags(f)
	for flag, env := range map[string]string{"mcp-endpoint": envMCPEndpoint, "subscribe-mode": envSubscribe, "slack-webhook": envSlackWebhook,
		"min-severity": envMinSeverity, "log-level": envLogLvl} {
		config.BindEnv(f, flag, env)
	}
}

// Complete fills the options from flags, environment and kubeconfig.
func (o *WatchOptions) Complete(cmd *cobra.Command) error {
	if err := o.AgentFlags.Complete(cmd.Context()); err != nil {
		return err
	}
	if o.Source == "" {
		o.Source = sourceCluster
		if o.MCPEndpoint != "" {
			o.Source = sourceMCP
		}
	}
	// Like kubectl get without -n, a watch would default to the context's
	// namespace; a watch is about the cluster, so only an explicit -n narrows it.
	if f := cmd.Flags().Lookup("namespace"); f != nil && f.Changed && f.Value.String() != "" {
		o.namespaces = []string{f.Value.String()}
	}
	// The MCP settings a user typed conflict with --source cluster; ones
	// from the environment or config file (a deployment's defaults) yield.
	o.typedMCP = nil
	for _, name := range []string{"mcp-endpoint", "subscribe-mode", "type", "reason", "mcp-token-file"} {
		if cmd.Flags().Changed(name) {
			o.typedMCP = append(o.typedMCP, "--"+name)
		}
	}
	// The token: a typed --mcp-token-file, else K8S_CLUSTER_MCP_TOKEN, else
	// mcp-token-file from the config file (flag > env > file).
	o.mcpToken = o.getEnv(envMCPToken)
	if o.MCPTokenFile != "" && (cmd.Flags().Changed("mcp-token-file") || o.mcpToken == "") {
		b, err := os.ReadFile(o.MCPTokenFile)
		if err != nil {
			return fmt.Errorf("--mcp-token-file: %w", err)
		}
		o.mcpToken = strings.TrimSpace(string(b))
		o.hide(o.MCPTokenFile)
		if o.mcpToken == "" {
			return fmt.Errorf("--mcp-token-file %s is empty: put the bearer token in it", o.MCPTokenFile)
		}
	}
	return nil
}

// Validate checks the options before anything starts.
func (o *WatchOptions) Validate() error {
	switch o.Source {
	case sourceMCP:
		if o.MCPEndpoint == "" {
			return fmt.Errorf("--source mcp needs --mcp-endpoint (or %s), e.g. http://127.0.0.1:8080/mcp", envMCPEndpoint)
		}
	case sourceCluster:
		if len(o.typedMCP) > 0 {
			return fmt.Errorf("%s configure the MCP subscription, but --source cluster watches the API server: drop them, or use --source mcp", strings.Join(o.typedMCP, ", "))
		}
		o.MCPEndpoint, o.SubscribeMode, o.EventType, o.Reason, o.mcpToken = "", "faults", "", "", ""
	default:
		return fmt.Errorf("unknown --source %q: want mcp or cluster", o.Source)
	}
	if o.IncludeExisting && o.Source == sourceMCP {
		return errors.New("--include-existing needs --source cluster: kubernetes-mcp-server only reports faults that start after subscribing")
	}
	var err error
	if o.filter, err = watch.NewFilter(o.MinSeverity); err != nil {
		return fmt.Errorf("--min-severity: %w", err)
	}
	if o.overflow, err = watch.ParseOverflow(o.Overflow); err != nil {
		return fmt.Errorf("--overflow: %w", err)
	}
	if o.MaxQueue <= 0 {
		return fmt.Errorf("--max-queue must be positive, got %d", o.MaxQueue)
	}
	if o.MaxIncidents < 0 {
		return fmt.Errorf("--max-incidents must not be negative, got %d", o.MaxIncidents)
	}
	if err := o.LeaderElectFlags.Validate(); err != nil {
		return err
	}
	for flag, d := range map[string]time.Duration{"--dedup-window": o.DedupWindow, "--group-window": o.GroupWindow, "--drain-timeout": o.DrainTimeout, "--retention": o.Retention} {
		if d < 0 {
			return fmt.Errorf("%s must not be negative, got %s", flag, d)
		}
	}
	if o.Output != "text" && o.Output != "json" {
		return fmt.Errorf("unknown --output %q: want text or json", o.Output)
	}
	if o.log, err = newLogger(o.ErrOut, o.LogFormat, o.LogLevel); err != nil {
		return err
	}
	o.agent, err = o.AgentFlags.Resolve(o.configFlags, o.getEnv, o.ErrOut)
	return err
}

// newLogger is watch mode's slog logger on stderr.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	lvl, err := parseLogLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	// Log lines quote the cluster: no hidden or control characters in them.
	opts := &slog.HandlerOptions{Level: lvl, ReplaceAttr: term.CleanAttr}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("unknown --log-format %q: want text or json", format)
}

// Run watches until interrupted or --max-incidents.
func (o *WatchOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	l := o.LeaderElectFlags
	return watchmode.Run(ctx, watchmode.Config{
		Flags:   o.configFlags,
		Prepare: o.prepareClient(func(f string, a ...any) { o.log.Info(fmt.Sprintf(f, a...)) }, o.ErrOut, false),
		Agent:   o.agent, Timeout: o.Timeout, NoBuiltinHints: o.NoBuiltinHints,
		WorkspaceRoot: o.WorkspaceRoot, Retention: o.Retention,
		Source:     watchmode.Source(o.Source),
		MCP:        watchmode.MCP{Endpoint: o.MCPEndpoint, Mode: o.SubscribeMode, EventType: o.EventType, Reason: o.Reason, BearerToken: o.mcpToken},
		Namespaces: o.namespaces, IncludeExisting: o.IncludeExisting,
		Filter: o.filter, MinSeverity: o.MinSeverity, DedupWindow: o.DedupWindow, GroupWindow: o.GroupWindow,
		MaxQueue: o.MaxQueue, Overflow: o.overflow, MaxIncidents: o.MaxIncidents, DrainTimeout: o.DrainTimeout,
		SlackWebhook: o.SlackWebhook, MetricsAddr: o.MetricsAddr,
		Store: watchmode.Store{URL: o.StoreURL, KeepLocal: o.KeepLocal},
		Leader: watchmode.Leader{Enabled: l.LeaderElect, Namespace: l.Namespace, LeaseName: l.LeaseName,
			LeaseDuration: l.LeaseDuration, RenewDeadline: l.RenewDeadline, RetryPeriod: l.RetryPeriod},
		Observers: []watcher.Observer{o.printSummary},
		Logger:    o.log,
	})
}
