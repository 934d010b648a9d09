package cmd

// kubectl triage show: an incident's report and record.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// ShowOptions are the options of `kubectl triage show ID`.
type ShowOptions struct {
	genericiooptions.IOStreams
	rootOptions
	incidentRef

	JSON bool
	Path bool
}

var showExample = `  # The report of an incident, by ID or unique prefix (see kubectl triage list)
  kubectl triage show 0f8fad5b

  # The report as data
  kubectl triage show 0f8fad5b --json | jq .rootCause

  # Go to the workspace: context/, output/agent.log, output/audit.jsonl
  cd "$(kubectl triage show 0f8fad5b --path)"`

// NewCmdShow is `kubectl triage show ID`.
func NewCmdShow(streams genericiooptions.IOStreams) *cobra.Command {
	o := &ShowOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:                   "show ID [--json | --path]",
		DisableFlagsInUseLine: true,
		Short:                 "Print an incident's report (output/investigation.md)",
		Long: `Print an incident's report: output/investigation.md, or with --json
output/investigation.json, or with --path the workspace directory.

ID is the incident's UUID or an unambiguous prefix of it (at least 4 characters).`,
		Example:           showExample,
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
	cmd.Flags().BoolVar(&o.JSON, "json", false, "Print the report as data (output/investigation.json)")
	cmd.Flags().BoolVar(&o.Path, "path", false, "Print the workspace directory")
	cmd.MarkFlagsMutuallyExclusive("json", "path")
	return cmd
}

// Complete takes the ID and resolves the workspace root.
func (o *ShowOptions) Complete(cmd *cobra.Command, args []string) error {
	o.take(args)
	return o.complete(cmd)
}

// Validate checks the ID before it comes near a path.
func (o *ShowOptions) Validate() error {
	return o.validate("show")
}

// Run prints the report, its data or the workspace path.
func (o *ShowOptions) Run() error {
	e, err := o.find(o.Ref)
	if err != nil {
		return err
	}
	if o.Path {
		fmt.Fprintln(o.Out, e.Dir)
		return nil
	}
	rel := workspace.ReportFile
	if o.JSON {
		rel = workspace.ReportJSONFile
	}
	data, err := o.source().ReadFile(e, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return noReport(o.source(), e, o.JSON)
	}
	if errors.Is(err, safefile.ErrRefused) {
		return fmt.Errorf("incident %s: %w", e.ID, err) // it names the file and why
	}
	if err != nil {
		return fmt.Errorf("incident %s: read %s: %w", e.ID, rel, err)
	}
	// An agent wrote the report, quoting the cluster. The engine redacted
	// it when the agent ended; a workspace from an older version or
	// another machine may not have been: printed through the same pass.
	var report string
	if o.JSON {
		report = string(redact.CleanJSON(data))
	} else {
		report = redact.Clean(string(data))
	}
	if _, err := io.WriteString(o.Out, report); err != nil {
		return err
	}
	if report != "" && !strings.HasSuffix(report, "\n") {
		fmt.Fprintln(o.Out)
	}
	return nil
}

// noReport explains why an incident has no report (in the form asked for).
func noReport(s incidentReader, e *store.Entry, wantJSON bool) error {
	inc := e.Incident
	if wantJSON {
		if _, err := s.ReadFile(e, workspace.ReportFile); err == nil {
			return fmt.Errorf("incident %s has no investigation.json (its agent wrote only markdown); 'kubectl triage show %s' prints the report", e.ID, e.ID)
		}
	}
	switch inc.Status {
	case incident.Investigating:
		return fmt.Errorf("incident %s has no report yet: it is still being investigated; see 'kubectl triage status %s'", e.ID, e.ID)
	case incident.Resolved:
		return fmt.Errorf("incident %s is resolved but its report is missing from %s", e.ID, e.Dir)
	}
	reason := ""
	if inc.FailureReason != "" {
		reason = " (" + inc.FailureReason + ")"
	}
	return fmt.Errorf("incident %s has no report: it ended %s%s; the agent's output is in %s/%s", e.ID, inc.Status, reason, e.Dir, workspace.AgentLogFile)
}

// ---- status ---------------------------------------------------------------
