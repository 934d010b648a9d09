package cmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/objectstore"
	"github.com/kubectl-triage/kubectl-triage/pkg/version"
)

// NewCmdVersion prints the plugin's version.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the kubectl triage version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := version.Get()
			v.Stores = objectstore.Schemes()
			switch output {
			case "":
				fmt.Fprintf(streams.Out, "kubectl-triage %s (commit %s, %s, %s, client-go %s, stores %s)\n", v.Version, v.Commit, v.GoVersion, v.Platform, v.ClientGo, strings.Join(v.Stores, " "))
			case "json":
				data, err := json.MarshalIndent(v, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(streams.Out, string(data))
			default:
				return fmt.Errorf("unknown output format %q: use -o json, or no -o", output)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: json")
	return cmd
}
