package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
)

// secretSettings are shown as set or unset, never by value.
var secretSettings = map[string]bool{"slack-webhook": true}

var configViewExample = `  # Where does each setting of a one-shot triage come from?
  kubectl triage config view

  # And of watch, with a given config file
  kubectl triage config view watch --config ./triage.yaml`

// NewCmdConfig is `kubectl triage config`.
func NewCmdConfig(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Write a starter config file, or show the settings in effect and where each comes from",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(newCmdConfigInit(streams))
	cmd.AddCommand(&cobra.Command{
		Use:   "view [COMMAND]",
		Short: "List every setting of kubectl triage (or of COMMAND, e.g. watch): value and source (flag, env, config file line, default)",
		Long: `List every setting with its value and where it came from: the command line,
an environment variable, a line of the config file, or the default.
Precedence: flags > environment > config file > defaults. Secrets (the Slack
webhook) show only whether they are set.`,
		Example:           configViewExample,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: cobra.FixedCompletions([]string{"watch"}, cobra.ShellCompDirectiveNoFileComp),
		RunE: func(c *cobra.Command, args []string) error {
			target := c.Root()
			if len(args) == 1 {
				sub, _, err := c.Root().Find(args)
				if err != nil || sub == c.Root() {
					return fmt.Errorf("unknown command %q: see 'kubectl triage --help'", args[0])
				}
				target = sub
			}
			return viewConfig(c, target, streams)
		},
	})
	return cmd
}

// viewConfig applies the environment and the config file to target's
// flags, as running it would, and prints the result.
func viewConfig(c, target *cobra.Command, streams genericiooptions.IOStreams) error {
	f, err := config.Setup(target, os.Getenv)
	if err != nil {
		return err
	}
	if f.Found() {
		fmt.Fprintf(streams.ErrOut, "Config file: %s\n", f.Path())
	} else if f.Path() != "" {
		fmt.Fprintf(streams.ErrOut, "Config file: %s (none there)\n", f.Path())
	}
	w := printers.GetNewTabWriter(streams.Out)
	defer w.Flush()
	fmt.Fprintln(w, "SETTING\tVALUE\tSOURCE\tENV")
	target.LocalFlags().VisitAll(func(fl *pflag.Flag) {
		if !config.Settable(fl) || fl.Hidden {
			return
		}
		value := fl.Value.String()
		switch {
		case secretSettings[fl.Name] && value != "":
			value = "(set)"
		case value == "" || value == "[]":
			value = "-"
		}
		env := strings.Join(config.EnvNames(fl), ",")
		if env == "" {
			env = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", fl.Name, value, f.Source(fl.Name), env)
	})
	return nil
}
