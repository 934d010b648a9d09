package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/mcpserve"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/target"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
	"github.com/kubectl-triage/kubectl-triage/pkg/version"
)

var mcpLong = `Serve triage to AI assistants over the Model Context Protocol: Claude Code,
Cursor, VS Code and any MCP client can triage a failing resource and get its
root cause with evidence, read past incidents and their evidence, and see what
is failing in a namespace. Every tool is read-only; an incident made here is
the same as one made by 'kubectl triage TYPE/NAME' (same workspace root,
incident.json and report), with your kubeconfig and flags.

By default it speaks MCP on stdin/stdout, which is how assistants launch it.
With --listen it serves streamable HTTP at http://ADDR/mcp instead; every
request must carry the bearer token from --token-file (401 otherwise), and
an address other than loopback needs TLS (--tls-cert-file, --tls-key-file).

Logs go to stderr, one line per call with the client's name.`

var mcpExample = `  # Claude Code: the assistant launches the server itself
  claude mcp add triage -- kubectl triage mcp

  # One cluster context and namespace by default, an external agent CLI
  kubectl triage mcp --context prod -n shop --agent claude

  # Streamable HTTP on loopback with a token
  head -c 32 /dev/urandom | base64 > ~/.config/kubectl-triage/mcp-token && chmod 600 ~/.config/kubectl-triage/mcp-token
  kubectl triage mcp --listen 127.0.0.1:8765 --token-file ~/.config/kubectl-triage/mcp-token`

// MCPOptions are the options of `kubectl triage mcp`.
type MCPOptions struct {
	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	AgentFlags

	Listen        string
	TokenFile     string
	TLSCertFile   string
	TLSKeyFile    string
	MaxConcurrent int
	CallTimeout   time.Duration
	MaxOutput     int
	LogFormat     string
	LogLevel      string

	token    string
	agent    agent.Agent
	log      *slog.Logger
	getEnv   func(string) string
	clusters *clusters.Cache // made on first use: the server starts without a cluster
	engine   *triage.Engine
}

// NewMCPOptions returns options with defaults.
func NewMCPOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *MCPOptions {
	return &MCPOptions{
		configFlags:   flags,
		IOStreams:     streams,
		AgentFlags:    NewAgentFlags(),
		MaxConcurrent: mcpserve.DefaultMaxConcurrent,
		CallTimeout:   mcpserve.DefaultCallTimeout,
		MaxOutput:     mcpserve.DefaultMaxOutput,
		LogFormat:     "text",
		LogLevel:      "info",
		getEnv:        os.Getenv,
	}
}

// NewCmdMCP is `kubectl triage mcp`.
func NewCmdMCP(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewMCPOptions(flags, streams)
	cmd := &cobra.Command{
		Use:                   "mcp [flags]",
		DisableFlagsInUseLine: true,
		Short:                 "Serve triage to AI assistants over MCP (stdio, or streamable HTTP with a token)",
		Long:                  mcpLong,
		Example:               mcpExample,
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

// AddFlags registers the mcp flags.
func (o *MCPOptions) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	o.AgentFlags.AddFlags(f)
	f.StringVar(&o.Listen, "listen", "", "Serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio; needs --token-file")
	f.StringVar(&o.TokenFile, "token-file", "", "File holding the bearer token HTTP clients must send (Authorization: Bearer …)")
	f.StringVar(&o.TLSCertFile, "tls-cert-file", "", "Serve HTTPS with this certificate (PEM); with --tls-key-file")
	f.StringVar(&o.TLSKeyFile, "tls-key-file", "", "Private key (PEM) of --tls-cert-file")
	positiveIntVar(f, &o.MaxConcurrent, "max-concurrent", o.MaxConcurrent, "Triages running at once; more calls wait for a slot")
	positiveDurationVar(f, &o.CallTimeout, "call-timeout", o.CallTimeout, "Give up on a tool call after this long, waiting for a slot included")
	positiveIntVar(f, &o.MaxOutput, "max-output", o.MaxOutput, "Bytes of text a tool returns at most (reports and evidence are cut beyond)")
	choiceVar(f, &o.LogFormat, "log-format", o.LogFormat, []string{"text", "json"}, "Log format on stderr: text or json")
	checkedVar(f, &o.LogLevel, "log-level", o.LogLevel, func(s string) error { _, err := parseLogLevel(s); return err }, "Log level: debug, info, warn or error")
}

// Complete reads the token and defaults the workspace root.
func (o *MCPOptions) Complete(cmd *cobra.Command) error {
	if err := o.AgentFlags.Complete(cmd.Context()); err != nil {
		return err
	}
	if o.TokenFile != "" {
		b, err := os.ReadFile(o.TokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		o.token = strings.TrimSpace(string(b))
		o.hide(o.TokenFile) // an agent's sandbox never sees it
		if o.token == "" {
			return fmt.Errorf("--token-file %s is empty: put the bearer token in it", o.TokenFile)
		}
		if fi, err := os.Stat(o.TokenFile); err == nil && fi.Mode().Perm()&0o077 != 0 {
			fmt.Fprintf(o.ErrOut, "warning: --token-file %s is readable by other users (mode %v): chmod 600 it\n", o.TokenFile, fi.Mode().Perm())
		}
	}
	return nil
}

// minTokenLen keeps a guessable token out.
const minTokenLen = 16

// Validate checks the options before the server starts.
func (o *MCPOptions) Validate() error {
	var err error
	if o.log, err = newLogger(o.ErrOut, o.LogFormat, o.LogLevel); err != nil {
		return err
	}
	if (o.TLSCertFile == "") != (o.TLSKeyFile == "") {
		return errors.New("--tls-cert-file and --tls-key-file go together: give both, or neither")
	}
	if o.Listen == "" {
		if o.TokenFile != "" || o.TLSCertFile != "" {
			return errors.New("--token-file and --tls-cert-file are for the HTTP mode: add --listen ADDR, or drop them to serve on stdio")
		}
	} else {
		if _, _, err := net.SplitHostPort(o.Listen); err != nil {
			return fmt.Errorf("--listen %q: want HOST:PORT, e.g. 127.0.0.1:8765", o.Listen)
		}
		if o.token == "" {
			return errors.New("--listen needs --token-file: a file holding the bearer token clients must send, e.g. head -c 32 /dev/urandom | base64 > token && chmod 600 token")
		}
		if len(o.token) < minTokenLen {
			return fmt.Errorf("the token in --token-file %s is %d characters: use at least %d random ones", o.TokenFile, len(o.token), minTokenLen)
		}
		if !mcpserve.IsLoopback(o.Listen) && o.TLSCertFile == "" {
			return fmt.Errorf("--listen %s is not a loopback address: serving it without TLS would send the token in clear; add --tls-cert-file and --tls-key-file, or listen on 127.0.0.1", o.Listen)
		}
	}
	o.agent, err = o.AgentFlags.Resolve(o.configFlags, o.getEnv, o.ErrOut)
	return err
}

// Run serves until the client disconnects (stdio) or the process is
// interrupted.
func (o *MCPOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	o.clusters = clusters.New(clusters.Options{Flags: o.configFlags, Prepare: o.prepareClient, Logger: o.log})
	o.engine = triage.New(triage.Config{WorkspaceRoot: o.WorkspaceRoot, Agent: o.agent, Timeout: o.Timeout, Logger: o.log})
	srv, err := mcpserve.New(mcpserve.Options{
		Engine: o, WorkspaceRoot: o.WorkspaceRoot,
		MaxConcurrent: o.MaxConcurrent, CallTimeout: o.CallTimeout, MaxOutput: o.MaxOutput,
		Logger: o.log, Version: version.Version,
	})
	if err != nil {
		return err
	}
	o.log.Info("kubectl-triage MCP server", "version", version.Version, "agent", o.agent.Name(), "workspace_root", o.WorkspaceRoot,
		"max_concurrent", o.MaxConcurrent, "call_timeout", o.CallTimeout.String())
	if o.Listen == "" {
		return srv.ServeStdio(ctx)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	return srv.ServeHTTP(ctx, ln, mcpserve.HTTPOptions{Token: o.token, CertFile: o.TLSCertFile, KeyFile: o.TLSKeyFile})
}

// Triage runs one triage the way `kubectl triage TYPE/NAME` does: the same
// resolution, fault, cluster info, agent and engine.
func (o *MCPOptions) Triage(ctx context.Context, req mcpserve.TriageRequest, report progress.Func) (*triage.Result, error) {
	c, err := o.clusters.Get(ctx, req.Context)
	if err != nil {
		return nil, err
	}
	ns := req.Namespace
	if ns == "" {
		ns = c.Info.Namespace
	}
	args := strings.Fields(req.Target)
	if _, err := target.Normalize(args); err != nil {
		return nil, err
	}
	report.Printf("Resolving %s in namespace %s", strings.Join(args, " "), ns)
	t, err := target.Resolve(c.Flags, ns, args)
	if err != nil {
		return nil, err
	}
	ref := t.Ref()
	faultType, severity, message := fault.Classify(t.Object)
	clusterName := c.Info.Cluster
	if clusterName == "" {
		clusterName = c.Info.Context
	}
	ev, err := fault.Synthesize(clusterName, ref, faultType, severity, message, time.Now())
	if err != nil {
		return nil, err
	}
	return o.engine.Run(ctx, triage.Request{Client: c, Namespace: ns, Event: ev, Object: t.Object, Progress: report})
}

// Cluster is a kubeconfig context's read-only access, for triage_namespace.
func (o *MCPOptions) Cluster(ctx context.Context, contextName string) (*mcpserve.Cluster, error) {
	c, err := o.clusters.Get(ctx, contextName)
	if err != nil {
		return nil, err
	}
	return &mcpserve.Cluster{Client: c.Clientset, Info: c.Info, Get: func(ns, typ, name string) (*unstructured.Unstructured, error) {
		t, err := target.Resolve(c.Flags, ns, []string{typ, name})
		if err != nil {
			return nil, err
		}
		return t.Object, nil
	}}, nil
}

// prepareClient completes a context's client: the identity the agent's
// gateway forwards with, and the credential check when asked for.
func (o *MCPOptions) prepareClient(ctx context.Context, c *clusters.Client) error {
	var err error
	if c.Upstream, err = o.AgentUpstream(c.Config); err != nil {
		return err
	}
	if o.CheckCredentials || o.RequireReadOnly {
		return o.CheckCredentialsFor(ctx, c.Upstream, c.Info.Namespace, func(f string, a ...any) { o.log.Info(fmt.Sprintf(f, a...)) }, o.ErrOut)
	}
	return nil
}
