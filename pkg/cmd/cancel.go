package cmd

import (
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
)

// CancelOptions are the options of `kubectl triage cancel`.
type CancelOptions struct {
	genericiooptions.IOStreams
	rootOptions
	incidentRef

	Wait time.Duration
}

var cancelExample = `  # Stop a running investigation (from any terminal); a watch goes on with the next fault
  kubectl triage cancel 0f8fad5b

  # Ask, and return at once instead of waiting for the incident to record it
  kubectl triage cancel 0f8fad5b --wait 0s`

// NewCmdCancel is `kubectl triage cancel`.
func NewCmdCancel(streams genericiooptions.IOStreams) *cobra.Command {
	o := &CancelOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:                   "cancel ID [--wait DURATION]",
		DisableFlagsInUseLine: true,
		Short:                 "Stop a running incident from another terminal",
		Long: `Stop a running incident, one-shot or one of watch's, from another terminal.
The process that runs it is asked through the workspace root (no server is
involved); it stops the agent the way Ctrl-C does (SIGINT to the agent's
process group, SIGKILL after the wait delay) and records the incident as
failed, reason cancelled, with who asked. A watch goes on with its other
faults. An incident that is not running gets a one-line answer saying so.

ID is the incident's UUID or an unambiguous prefix of it (at least 4 characters).`,
		Example:           cancelExample,
		ValidArgsFunction: completeIncidentIDs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	o.addFlag(cmd)
	cmd.Flags().DurationVar(&o.Wait, "wait", time.Minute, "How long to wait for the incident to record the cancellation (0s: do not wait)")
	return cmd
}

// Complete takes the ID and resolves the workspace root.
func (o *CancelOptions) Complete(cmd *cobra.Command, args []string) error {
	o.take(args)
	return o.complete(cmd)
}

// Validate checks the ID.
func (o *CancelOptions) Validate() error {
	if err := o.validate("cancel"); err != nil {
		return err
	}
	if o.Wait < 0 {
		return fmt.Errorf("--wait must not be negative, got %s", o.Wait)
	}
	return nil
}

// Run files the request and waits for the owner to record it.
func (o *CancelOptions) Run() error {
	e, err := o.find(o.Ref)
	if err != nil {
		return err
	}
	if ans, done := notRunning(e); done {
		fmt.Fprintln(o.Out, ans)
		return nil
	}
	if err := triage.RequestCancel(o.store.Root, e.ID, requester()); err != nil {
		return fmt.Errorf("cancel incident %s: %w", e.ID, err)
	}
	if o.Wait == 0 {
		fmt.Fprintf(o.Out, "incident %s: cancellation requested\n", e.ID)
		return nil
	}
	find := func(id string) (*incident.Incident, error) {
		e, err := o.store.Find(id)
		if err != nil {
			return nil, err
		}
		return e.Incident, nil
	}
	if inc := triage.AwaitFinished(find, e.ID, o.Wait); inc != nil {
		if inc.FailureReason == incident.ReasonCancelled {
			fmt.Fprintf(o.Out, "incident %s cancelled\n", e.ID)
		} else {
			fmt.Fprintf(o.Out, "incident %s ended before the request was seen: %s\n", e.ID, describeEnd(inc))
		}
		return nil
	}
	return fmt.Errorf("incident %s: cancellation requested, but its process (pid %d) has not recorded it within %s; see 'kubectl triage status %s'",
		e.ID, ownerPID(e.Incident), o.Wait, e.ID)
}

// notRunning is the one-line answer for an incident that is not running.
func notRunning(e *store.Entry) (string, bool) {
	inc := e.Incident
	switch {
	case e.Interrupted:
		return fmt.Sprintf("incident %s is not running: its process (pid %d) is gone (failed, interrupted)", e.ID, ownerPID(inc)), true
	case inc.Finished():
		return fmt.Sprintf("incident %s is not running: it already ended (%s)", e.ID, describeEnd(inc)), true
	case inc.Owner == nil:
		return fmt.Sprintf("incident %s was recorded by a version that cannot be cancelled from another terminal; stop its process (pid %d)", e.ID, inc.Agent.PID), true
	}
	return "", false
}

func describeEnd(inc *incident.Incident) string {
	s := string(inc.Status)
	if r := inc.FailureReason; r != "" {
		s += ", " + r
	}
	return s
}

func ownerPID(inc *incident.Incident) int {
	if inc.Owner != nil {
		return inc.Owner.PID
	}
	return inc.Agent.PID
}

// requester says who asked, for the record: user@host (pid N).
func requester() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s (pid %d)", name, host, os.Getpid())
}
