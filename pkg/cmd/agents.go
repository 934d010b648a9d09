package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
)

// AgentsOptions lists the agent definitions and whether each can run here.
type AgentsOptions struct {
	genericiooptions.IOStreams
	Output    string
	ConfigDir string // where user definitions override the embedded ones
	// Env is what the checks look at (the process's by default).
	Env agent.CheckEnv
}

// NewCmdAgents is `kubectl triage agents`.
func NewCmdAgents(streams genericiooptions.IOStreams) *cobra.Command {
	o := &AgentsOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the agent CLIs kubectl triage can run and what each still needs",
		Long: `List the external agent definitions (embedded, and your overrides in the
config dir's agents/*.yaml): whether the CLI is on PATH, its version against
the one kubectl triage was tested with, and what is missing before it can
run (an API key or login, a setting), one actionable line each.`,
		Example: `  kubectl triage agents
  kubectl triage agents -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: json")
	return cmd
}

// Complete fills the defaults.
func (o *AgentsOptions) Complete() error {
	if o.ConfigDir == "" {
		o.ConfigDir = agent.DefaultConfigDir()
	}
	if o.Env.Home == "" {
		o.Env.Home, _ = os.UserHomeDir()
	}
	return nil
}

// Validate checks -o.
func (o *AgentsOptions) Validate() error {
	if o.Output != "" && o.Output != "json" {
		return fmt.Errorf("unknown output format %q: use -o json, or no -o", o.Output)
	}
	return nil
}

// Run checks every definition and prints the table (or JSON).
func (o *AgentsOptions) Run() error {
	defs, err := agent.Definitions(o.ConfigDir)
	if err != nil {
		return err
	}
	list := agent.CheckAll(defs, o.Env)
	if o.Output == "json" {
		data, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(o.Out, string(data))
		return err
	}
	tw := tabwriter.NewWriter(o.Out, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATUS\tVERSION\tTESTED\tCLI")
	for _, r := range list {
		status := "ready"
		if !r.Ready {
			status = "not ready"
		}
		path := r.Path
		if path == "" {
			path = "not found"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, status, orDash(r.Version), orDefault(r.TestedVersion, "untested"), path)
	}
	tw.Flush()
	var lines []string
	for _, r := range list {
		if !strings.HasPrefix(r.Source, "plugins/") {
			lines = append(lines, fmt.Sprintf("%s: defined by %s", r.Name, r.Source))
		}
		for _, m := range r.Missing {
			lines = append(lines, r.Name+": "+m)
		}
		for _, w := range r.Warnings {
			lines = append(lines, r.Name+": warning: "+w)
		}
	}
	// What runs on the user's machine but would not in the agent sandbox.
	for _, p := range agent.SandboxPathProblems(o.Env) {
		lines = append(lines, "sandbox: warning: "+p)
	}
	if len(lines) > 0 {
		fmt.Fprintln(o.Out)
		fmt.Fprintln(o.Out, strings.Join(lines, "\n"))
	}
	return nil
}

func orDash(s string) string { return orDefault(s, "-") }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
