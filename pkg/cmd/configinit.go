package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/config"
)

// newCmdConfigInit is `kubectl triage config init`: a starter file with
// every setting commented out at its default.
func newCmdConfigInit(streams genericiooptions.IOStreams) *cobra.Command {
	var print bool
	cmd := &cobra.Command{
		Use:   "init [--print]",
		Short: "Write a starter config file with every setting, commented out at its default",
		Long: `Write a starter config file to the path kubectl triage reads
($XDG_CONFIG_HOME/kubectl-triage/config.yaml, or --config / KUBECTL_TRIAGE_CONFIG)
with every setting commented out at its default and its environment variable.
An existing file is never overwritten. --print writes it to stdout instead.`,
		Example: `  kubectl triage config init
  kubectl triage config init --print > triage.yaml`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			text := starterConfig(c.Root())
			if print {
				_, err := streams.Out.Write(text)
				return err
			}
			path, _ := config.Locate(c, os.Getenv)
			if path == "" {
				return errors.New("no config file path: name one with --config, or set $XDG_CONFIG_HOME or $HOME")
			}
			if _, err := os.Stat(path); err == nil {
				return fmt.Errorf("%s exists: kubectl triage never overwrites it; edit it, or see a fresh one with 'kubectl triage config init --print'", path)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
			}
			// 0600: the file may come to hold a Slack webhook.
			if err := atomicfile.Write(path, text, 0o600); err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "wrote %s\n", path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "Print the file on stdout instead of writing it")
	return cmd
}

// starterSections are the subcommands whose own settings the starter file
// lists; the others' flags (list's --no-headers…) are per-run choices.
var starterSections = []string{"watch"}

// starterConfig is a config file of every setting of root, and of the
// starter sections' own settings in their sections, commented out at their
// defaults: uncommenting a line ("# " off) gives valid YAML.
func starterConfig(root *cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString("# kubectl triage configuration. Keys are the long flag names; precedence:\n")
	b.WriteString("# flags > environment > this file > defaults. Uncomment what you change.\n")
	b.WriteString("# See every setting in effect and where it comes from: kubectl triage config view [watch]\n")
	seen := map[string]bool{}
	writeSettings(&b, root.LocalFlags(), "", seen)
	for _, name := range starterSections {
		sub, _, err := root.Find([]string{name})
		if err != nil || sub == root {
			continue
		}
		fmt.Fprintf(&b, "\n# %s:\n", name)
		writeSettings(&b, sub.LocalFlags(), "  ", seen)
	}
	return b.Bytes()
}

// writeSettings writes flags not written yet (a subcommand's flag that the
// root has too is set at the top level, which applies to both).
func writeSettings(b *bytes.Buffer, flags *pflag.FlagSet, indent string, seen map[string]bool) {
	flags.VisitAll(func(fl *pflag.Flag) {
		if seen[fl.Name] || fl.Hidden || !config.Settable(fl) || fl.Name == "help" {
			return
		}
		seen[fl.Name] = true
		usage := strings.SplitN(fl.Usage, ". Env:", 2)[0]
		if env := config.EnvNames(fl); len(env) > 0 {
			usage += " (env " + strings.Join(env, ", ") + ")"
		}
		value := fl.DefValue
		switch {
		case fl.Value.Type() == "stringArray" || fl.Value.Type() == "stringSlice":
			value = "[]"
		case value == "":
			value = `""`
		}
		fmt.Fprintf(b, "#\n# %s# %s\n# %s%s: %s\n", indent, usage, indent, fl.Name, value)
	})
}
