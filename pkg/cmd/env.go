package cmd

import (
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
)

// EnvironmentNames are the environment variables kubectl triage reads for
// its settings: every flag's bound names, and the ones read directly.
// Tests clear them so a developer's environment cannot change a result.
func EnvironmentNames() []string {
	names := []string{envMCPToken, envLogLvl, config.EnvConfig}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) { names = append(names, config.EnvNames(fl)...) })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdTriage(genericiooptions.IOStreams{}))
	slices.Sort(names)
	return slices.Compact(names)
}
