package cmd

// kubectl triage status: where one incident stands.

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// StatusOptions are the options of `kubectl triage status ID`.
type StatusOptions struct {
	genericiooptions.IOStreams
	rootOptions
	incidentRef

	Output string
	now    func() time.Time
}

var statusExample = `  # Where an incident stands: status, agent process, timings, root cause
  kubectl triage status 0f8fad5b

  # The incident record (incident.json)
  kubectl triage status 0f8fad5b -o json`

// NewCmdStatus is `kubectl triage status ID`.
func NewCmdStatus(streams genericiooptions.IOStreams) *cobra.Command {
	o := &StatusOptions{IOStreams: streams, now: time.Now}
	cmd := &cobra.Command{
		Use:                   "status ID [-o json|yaml]",
		DisableFlagsInUseLine: true,
		Short:                 "Summarise an incident: status, agent, timings, root cause",
		Long: `Summarise an incident: its status and failure reason, the agent's state,
process ID and exit code, when it was created, started and completed, its
workspace and the report's root cause. -o json|yaml prints the incident
record (incident.json).

ID is the incident's UUID or an unambiguous prefix of it (at least 4 characters).`,
		Example:           statusExample,
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
	o.addStoreFlag(cmd)
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: json, yaml or kyaml (the incident record)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml", "kyaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete takes the ID and resolves the workspace root.
func (o *StatusOptions) Complete(cmd *cobra.Command, args []string) error {
	o.take(args)
	return o.complete(cmd)
}

// Validate checks the output format and the ID.
func (o *StatusOptions) Validate() error {
	switch o.Output {
	case "", "json", "yaml", "kyaml":
	default:
		return fmt.Errorf("unknown output format %q: use json, yaml or kyaml, or no -o", o.Output)
	}
	return o.validate("status")
}

// Run prints the summary or the record.
func (o *StatusOptions) Run() error {
	e, err := o.find(o.Ref)
	if err != nil {
		return err
	}
	if o.Output != "" {
		data, err := json.Marshal(e.Incident)
		if err != nil {
			return err
		}
		return printRecord(o.Output, data, o.Out)
	}
	return describeIncident(o.Out, e, o.now())
}

// describeIncident prints the summary, kubectl-describe style.
func describeIncident(out io.Writer, e *store.Entry, now time.Time) error {
	inc := e.Incident
	w := printers.GetNewTabWriter(out)
	// Values come from the cluster and from agents, through a record an
	// older version or another machine may have written: printed through
	// the pass every summary crosses.
	line := func(k, v string) { fmt.Fprintf(w, "%s:\t%s\n", k, redact.Clean(v)) }
	when := func(t *time.Time) string {
		if t == nil || t.IsZero() {
			return none
		}
		return fmt.Sprintf("%s (%s ago)", t.UTC().Format(time.RFC3339), duration.HumanDuration(now.Sub(*t)))
	}

	line("Incident", e.ID)
	st := string(inc.Status)
	if e.Interrupted {
		st += fmt.Sprintf(" (its process %d is gone: the run was interrupted before it could record an outcome)", inc.Owner.PID)
	} else if e.AgentGone() {
		st += fmt.Sprintf(" (but agent process %d is gone: the run was probably killed; its workspace stays until removed by hand)", inc.Agent.PID)
	}
	line("Status", st)
	if inc.FailureReason != "" {
		line("Failure reason", inc.FailureReason)
	}
	if inc.CancelledBy != "" {
		line("Cancelled by", inc.CancelledBy)
	}
	line("Resource", e.Resource())
	c := orNone(cluster(inc))
	if inc.Context != "" && inc.Context != inc.Cluster {
		c += " (context " + inc.Context + ")"
	}
	line("Cluster", c)
	fault := orNone(inc.FaultType)
	if inc.Severity != "" {
		fault += " (severity " + inc.Severity + ")"
	}
	line("Fault", fault)
	if n := len(inc.Members); n > 0 {
		// watch grouped faults with the same cause into this incident.
		line("Grouped", fmt.Sprintf("%d more fault(s) with the same cause (%s); incident.json lists them under members", n, inc.Members[0].Cause))
	}
	if inc.Message != "" {
		line("Message", truncate(redact.Clean(inc.Message), 200))
	}

	a := inc.Agent
	agent := fmt.Sprintf("%s, state %s", orNone(a.Name), orNone(string(a.State)))
	if a.PID > 0 {
		agent += fmt.Sprintf(", pid %d", a.PID)
	}
	if a.ExitCode != nil {
		agent += fmt.Sprintf(", exit code %d", *a.ExitCode)
	}
	if a.Signal != "" {
		agent += ", signal " + a.Signal
	}
	if a.Model != "" {
		agent += ", model " + a.Model
	}
	line("Agent", agent)
	if inc.Sandbox != "" {
		line("Sandbox", inc.Sandbox)
	}
	if inc.Effort != nil {
		line("Effort", inc.Effort.String())
	}
	line("Created", when(&inc.CreatedAt))
	line("Started", when(inc.StartedAt))
	line("Completed", when(inc.CompletedAt))
	if d, ok := e.Duration(); ok {
		line("Duration", d.Round(time.Millisecond).String())
	} else {
		line("Duration", fmt.Sprintf("%s so far", duration.HumanDuration(now.Sub(inc.CreatedAt))))
	}
	line("Workspace", e.Dir)
	if st := inc.Storage; st != nil {
		if st.UploadedAt != nil {
			line("Stored", st.URL+"/"+st.Path)
		} else {
			line("Stored", "no, the upload to "+st.URL+" gave up: "+st.Error)
		}
	}
	if inc.Report != nil {
		line("Root cause", orNone(strings.Join(strings.Fields(inc.Report.RootCause), " ")))
		line("Confidence", confidence(inc))
		line("Report", joinLocation(e.Dir, workspace.ReportFile))
	}
	if c := inc.Claims; c != nil {
		v := fmt.Sprintf("%d verified, %d unverified against what the agent read", c.Verified, c.Unverified)
		if c.Capped {
			v += " (the root cause rests only on unverified ones: capped at speculation)"
		}
		line("Claims", v)
	}
	if so := inc.SecondOpinion; so != nil {
		line("Second opinion", fmt.Sprintf("%s: the builtin investigator's root cause is %q (%s)", so.Agreement, strings.Join(strings.Fields(so.BuiltinRootCause), " "), so.Basis))
	}
	return w.Flush()
}

// joinLocation joins a workspace path, a directory or a store URL (which
// filepath.Join would mangle), and a layout path.
func joinLocation(dir, rel string) string {
	if strings.Contains(dir, "://") {
		return strings.TrimSuffix(dir, "/") + "/" + rel
	}
	return filepath.Join(dir, rel)
}
