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

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/mcpserve"
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
A request with an Origin header (one a browser page sends) is refused with
403 unless the Origin is loopback (localhost, 127.0.0.0/8, [::1], any port)
or given with --allow-origin: a web page must not reach the server through
the user's browser (DNS rebinding).

Every tool call has a deadline: --call-timeout for triage and
triage_namespace, which run the investigation, --read-timeout for the tools
that read past incidents and for resource reads. Each text and each
structured result is capped at --max-output bytes, and says when it was cut.

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
	configFlags *kubeflags.ConfigFlags
	genericiooptions.IOStreams
	AgentFlags

	Listen        string
	AllowOrigins  []string
	TokenFile     string
	TLSCertFile   string
	TLSKeyFile    string
	MaxConcurrent int
	CallTimeout   time.Duration
	ReadTimeout   time.Duration
	MaxOutput     int
	LogFormat     string
	LogLevel      string

	token  string
	agent  agent.Agent
	log    *slog.Logger
	getEnv func(string) string
}

// NewMCPOptions returns options with defaults.
func NewMCPOptions(flags *kubeflags.ConfigFlags, streams genericiooptions.IOStreams) *MCPOptions {
	return &MCPOptions{
		configFlags:   flags,
		IOStreams:     streams,
		AgentFlags:    NewAgentFlags(),
		MaxConcurrent: mcpserve.DefaultMaxConcurrent,
		CallTimeout:   mcpserve.DefaultCallTimeout,
		ReadTimeout:   mcpserve.DefaultReadTimeout,
		MaxOutput:     mcpserve.DefaultMaxOutput,
		LogFormat:     "text",
		LogLevel:      "info",
		getEnv:        os.Getenv,
	}
}

// NewCmdMCP is `kubectl triage mcp`.
func NewCmdMCP(flags *kubeflags.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
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
	f.StringArrayVar(&o.AllowOrigins, "allow-origin", nil, "With --listen, also accept requests whose Origin is this one (scheme://host[:port]; repeatable). Loopback origins and requests without Origin are always accepted; any other Origin gets 403")
	f.StringVar(&o.TokenFile, "token-file", "", "File holding the bearer token HTTP clients must send (Authorization: Bearer …)")
	f.StringVar(&o.TLSCertFile, "tls-cert-file", "", "Serve HTTPS with this certificate (PEM); with --tls-key-file")
	f.StringVar(&o.TLSKeyFile, "tls-key-file", "", "Private key (PEM) of --tls-cert-file")
	positiveIntVar(f, &o.MaxConcurrent, "max-concurrent", o.MaxConcurrent, "Triages running at once; more calls wait for a slot")
	positiveDurationVar(f, &o.CallTimeout, "call-timeout", o.CallTimeout, "Give up on a triage or triage_namespace call after this long, waiting for a slot included (the incident ends failed, reason timeout)")
	positiveDurationVar(f, &o.ReadTimeout, "read-timeout", o.ReadTimeout, "Give up on a list_incidents, show_incident or get_evidence call, or a resource read, after this long")
	positiveIntVar(f, &o.MaxOutput, "max-output", o.MaxOutput, "Bytes a tool returns at most, for its text and for its structured result each (reports, evidence and lists are cut beyond, and say so)")
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
		if o.TokenFile != "" || o.TLSCertFile != "" || len(o.AllowOrigins) > 0 {
			return errors.New("--token-file, --tls-cert-file and --allow-origin are for the HTTP mode: add --listen ADDR, or drop them to serve on stdio")
		}
	} else {
		for i, v := range o.AllowOrigins {
			if o.AllowOrigins[i], err = mcpserve.ParseOrigin(v); err != nil {
				return err
			}
		}
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
	// Each context's client is made on first use: the server starts
	// without a cluster.
	cache := clusters.New(clusters.Options{Flags: o.configFlags, Logger: o.log,
		Prepare: o.prepareClient(func(f string, a ...any) { o.log.Info(fmt.Sprintf(f, a...)) }, o.ErrOut, false)})
	engine := triage.New(triage.Config{WorkspaceRoot: o.WorkspaceRoot, Agent: o.agent, Timeout: o.Timeout, Logger: o.log, NoBuiltinHints: o.NoBuiltinHints})
	srv, err := mcpserve.New(mcpserve.Options{
		Engine: mcpserve.NewEngine(cache, engine), WorkspaceRoot: o.WorkspaceRoot,
		MaxConcurrent: o.MaxConcurrent, CallTimeout: o.CallTimeout, ReadTimeout: o.ReadTimeout, MaxOutput: o.MaxOutput,
		Logger: o.log, Version: version.Version,
	})
	if err != nil {
		return err
	}
	o.log.Info("kubectl-triage MCP server", "version", version.Version, "agent", o.agent.Name(), "workspace_root", o.WorkspaceRoot,
		"max_concurrent", o.MaxConcurrent, "call_timeout", o.CallTimeout.String(), "read_timeout", o.ReadTimeout.String())
	if o.Listen == "" {
		return srv.ServeStdio(ctx)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	return srv.ServeHTTP(ctx, ln, mcpserve.HTTPOptions{Token: o.token, CertFile: o.TLSCertFile, KeyFile: o.TLSKeyFile, AllowOrigins: o.AllowOrigins})
}
