package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
	"github.com/kubectl-triage/kubectl-triage/pkg/egress"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
)

// GCOptions are the options of `kubectl triage gc`.
type GCOptions struct {
	genericiooptions.IOStreams
	rootOptions

	OlderThan time.Duration
	DryRun    bool

	now func() time.Time
}

var gcExample = `  # Remove the incidents that finished more than three days ago
  kubectl triage gc --older-than 72h

  # See what that would remove, and free
  kubectl triage gc --older-than 72h --dry-run

  # List every finished incident, removing nothing
  kubectl triage gc --older-than 0s --dry-run`

// NewCmdGC is `kubectl triage gc`.
func NewCmdGC(streams genericiooptions.IOStreams) *cobra.Command {
	o := &GCOptions{IOStreams: streams, now: time.Now}
	cmd := &cobra.Command{
		Use:                   "gc --older-than DURATION [--dry-run]",
		DisableFlagsInUseLine: true,
		Short:                 "Remove the workspaces of incidents that finished long ago",
		Long: `Remove the workspaces of incidents that finished (resolved, failed or
agent_failed) at least --older-than ago; an incident that never recorded its
completion counts from its creation. Investigating incidents are running and
are never removed, whatever their age. Entries of the root that are not valid
incidents are left alone, with a warning. The egress socket directories that
killed runs left in TMPDIR (kubectl-triage-net-*) are removed too.`,
		Example: gcExample,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(c); err != nil {
				return err
			}
			return o.Run()
		},
	}
	o.addFlag(cmd)
	cmd.Flags().DurationVar(&o.OlderThan, "older-than", 0, "Remove incidents that finished at least this long ago, e.g. 72h or 30m (required)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "Print what would be removed and remove nothing")
	return cmd
}

// Complete resolves the workspace root.
func (o *GCOptions) Complete(cmd *cobra.Command, _ []string) error {
	return o.complete(cmd)
}

// Validate insists on an explicit, non-negative --older-than: gc never
// guesses how much history a user wants to keep.
func (o *GCOptions) Validate(cmd *cobra.Command) error {
	given := cmd.Flags().Changed("older-than")
	if f := configFile(cmd.Context()); f != nil && f.Source("older-than").Kind != config.FromDefault {
		given = true // gc: {older-than: 72h} in the config file
	}
	if !given {
		return fmt.Errorf("--older-than is required, e.g. --older-than 72h (use --older-than 0s --dry-run to list every finished incident)")
	}
	if o.OlderThan < 0 {
		return fmt.Errorf("--older-than must not be negative, got %s", o.OlderThan)
	}
	return nil
}

// Run collects, or with --dry-run says what it would collect.
func (o *GCOptions) Run() error {
	now := o.now()
	res, err := o.store.GC(store.GCOptions{OlderThan: o.OlderThan, DryRun: o.DryRun, Now: now})
	if err != nil {
		return err
	}
	warnSkipped(o.ErrOut, o.store.Root, res.Skipped)
	if !o.DryRun {
		// What a kill -9 left outside the root: gone with its owner.
		egress.Sweep()
	}
	verb := "removed"
	if o.DryRun {
		verb = "would remove"
	}
	for _, rm := range res.Removed {
		if rm.Err != nil {
			fmt.Fprintf(o.ErrOut, "error: %v\n", rm.Err)
			continue
		}
		e := rm.Entry
		fmt.Fprintf(o.Out, "%s %s  %s  %s, finished %s ago  %s\n", verb, e.ID, e.Resource(), e.Incident.Status,
			duration.HumanDuration(now.Sub(e.LastActivity())), mib(rm.Bytes))
	}
	for _, e := range res.Running {
		note := ""
		if e.AgentGone() {
			note = fmt.Sprintf(" (its agent process %d is gone: check it and remove %s by hand)", e.Incident.Agent.PID, e.Dir)
		}
		fmt.Fprintf(o.ErrOut, "kept %s  %s: %s%s\n", e.ID, e.Resource(), e.Incident.Status, note)
	}
	done := len(res.Removed) - res.Failed()
	if o.DryRun {
		fmt.Fprintf(o.Out, "would remove %s, freeing %s", plural(done, "incident"), mib(res.Freed()))
	} else {
		fmt.Fprintf(o.Out, "removed %s, freed %s", plural(done, "incident"), mib(res.Freed()))
	}
	fmt.Fprintf(o.Out, " from %s (kept %d newer, %d running)\n", o.store.Root, res.Kept, len(res.Running))
	if n := res.Failed(); n > 0 {
		return fmt.Errorf("could not remove %s; see the errors above", plural(n, "incident"))
	}
	return nil
}

// mib is a disk size a person reads at a glance: MiB from 0.1 MiB up,
// KiB or bytes below (a fresh workspace is a few KiB: "0.0 MiB" said nothing).
func mib(b int64) string {
	switch {
	case b >= 1<<20/10:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	case b == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", b)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
