package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// ExitReplayDiffers is `replay --diff` finding a difference. Not 1, which
// every command uses for an error, so a script can tell the two apart.
const ExitReplayDiffers = 2

// ReplayOptions are the options of `kubectl triage replay WORKSPACE|ID`.
type ReplayOptions struct {
	genericiooptions.IOStreams
	rootOptions

	Ref    string
	Diff   bool
	Output string
	args   []string
}

var replayExample = `  # Investigate a saved incident again, offline, as of when it was captured
  kubectl triage replay 0f8fad5b

  # What this version of the investigator concludes differently (exit 2 if anything)
  kubectl triage replay 0f8fad5b --diff

  # A workspace someone shared, by path; the report as data
  kubectl triage replay ./incident-0f8fad5b -o json`

// NewCmdReplay is `kubectl triage replay WORKSPACE|ID`.
func NewCmdReplay(streams genericiooptions.IOStreams) *cobra.Command {
	o := &ReplayOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:                   "replay WORKSPACE|ID [--diff] [-o json|yaml]",
		DisableFlagsInUseLine: true,
		Short:                 "Re-run the builtin investigator on a saved incident, offline",
		Long: `Re-run the builtin investigator on a saved incident's evidence (its
context/ directory) and print the report. Nothing contacts a cluster: no
kubeconfig is read and no client is built. Times are read as they were when
the evidence was captured, so "restarted 3 times in the last 5m" means what
it meant then. Nothing is written into the workspace.

WORKSPACE is a workspace directory (it has a / or names an existing
directory); otherwise the argument is an incident ID or an unambiguous
prefix of one (at least 4 characters), looked up in the workspace root.

With --diff, prints a unified diff of the saved output/investigation.md
against the replayed report: exit 0 and one line when they are identical,
exit 2 when they differ (1 stays an error, as for every command).`,
		Example:           replayExample,
		ValidArgsFunction: completeReplayArg,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c)
		},
	}
	o.addFlag(cmd)
	cmd.Flags().BoolVar(&o.Diff, "diff", false, "Print a unified diff against the saved output/investigation.md (exit 2 when they differ)")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: json, yaml or kyaml (the replayed report as data)")
	cmd.MarkFlagsMutuallyExclusive("diff", "output")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml", "kyaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// completeReplayArg offers incident IDs, or directories once the word
// looks like a path.
func completeReplayArg(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 && (strings.ContainsRune(toComplete, '/') || strings.HasPrefix(toComplete, ".") || strings.HasPrefix(toComplete, "~")) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return completeIncidentIDs(cmd, args, toComplete)
}

// Complete takes the argument. The workspace root is resolved only for an
// ID (Run), so a shared workspace replays without any root configured.
func (o *ReplayOptions) Complete(_ *cobra.Command, args []string) error {
	o.args = args
	if len(args) == 1 {
		o.Ref = args[0]
	}
	return nil
}

// Validate checks the argument count and the output format.
func (o *ReplayOptions) Validate() error {
	if len(o.args) != 1 {
		return fmt.Errorf("replay needs exactly one workspace directory or incident ID, got %d arguments; see 'kubectl triage list'", len(o.args))
	}
	switch o.Output {
	case "", "json", "yaml", "kyaml":
	default:
		return fmt.Errorf("unknown output format %q: use json, yaml or kyaml, or no -o", o.Output)
	}
	return nil
}

// isPath says whether the argument names a directory rather than an ID: it
// has a path separator, or a directory of that name exists.
func isPath(ref string) bool {
	if strings.ContainsRune(ref, '/') || strings.ContainsRune(ref, filepath.Separator) || ref == "." || ref == ".." {
		return true
	}
	fi, err := os.Stat(ref)
	return err == nil && fi.IsDir()
}

// workspaceArg finds, among a triage's arguments, one that names an
// incident workspace rather than a resource: a directory holding
// incident.json, or a word written as a path (/…, ./…, ../…, ~/…), which no
// resource is. Only then does `kubectl triage ARG` suggest replay.
func workspaceArg(args []string) (string, bool) {
	for _, a := range args {
		if a == "." || a == ".." || a == "~" || strings.HasPrefix(a, "/") || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.HasPrefix(a, "~/") {
			return a, true
		}
		if fi, err := os.Lstat(filepath.Join(a, workspace.IncidentFile)); err == nil && fi.Mode().IsRegular() {
			return a, true
		}
	}
	return "", false
}

// resolve turns the argument into a workspace directory.
func (o *ReplayOptions) resolve(cmd *cobra.Command) (string, error) {
	if isPath(o.Ref) {
		fi, err := os.Stat(o.Ref)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("workspace %s: no such directory", o.Ref)
		case err != nil:
			return "", fmt.Errorf("workspace %s: %w", o.Ref, err)
		case !fi.IsDir():
			return "", fmt.Errorf("workspace %s: not a directory", o.Ref)
		}
		return o.Ref, nil
	}
	ref, err := normalizeRef(o.Ref)
	if err != nil {
		return "", err
	}
	if err := o.complete(cmd); err != nil {
		return "", err
	}
	e, err := o.find(ref)
	if err != nil {
		return "", err
	}
	return e.Dir, nil
}

// Run replays and prints the report, its data or the diff.
func (o *ReplayOptions) Run(cmd *cobra.Command) error {
	dir, err := o.resolve(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	c, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
	if err != nil {
		return err
	}
	rep := replay(c)
	if o.Output != "" {
		data, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return printRecord(o.Output, data, o.Out)
	}
	// The same passes the engine puts a saved report through, so a replay
	// of an unchanged investigator reads byte for byte as the saved one.
	md := redact.Report(rep)
	if !o.Diff {
		_, err := io.WriteString(o.Out, md)
		return err
	}
	// A capture may keep only the report's data (the real-node corpus
	// does): compared rendered, as the markdown would have read.
	savedFile, saved := workspace.ReportFile, ""
	switch {
	case c.Markdown != nil:
		saved = redact.Clean(string(c.Markdown))
	case c.Report != nil:
		savedFile = workspace.ReportJSONFile
		saved = redact.Report(c.Report)
	default:
		return fmt.Errorf("workspace %s has no %s to compare with", dir, workspace.ReportFile)
	}
	if saved == md {
		fmt.Fprintf(o.Out, "No difference: the replay matches %s.\n", filepath.Join(dir, savedFile))
		return nil
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(saved), B: difflib.SplitLines(md),
		FromFile: "saved/" + savedFile, ToFile: "replay/" + workspace.ReportFile,
		Context: 3,
	})
	if err != nil {
		return err
	}
	if _, err := io.WriteString(o.Out, diff); err != nil {
		return err
	}
	return &exitError{code: ExitReplayDiffers}
}

// normalizeRef is store.NormalizeRef with a hint that a path works too.
func normalizeRef(ref string) (string, error) {
	r, err := store.NormalizeRef(ref)
	if err != nil {
		return "", fmt.Errorf("%w (or give a workspace directory: ./DIR)", err)
	}
	return r, nil
}

// replay investigates the capture's evidence as of its capture, as the
// incident it was.
func replay(c *workspace.Capture) *report.Report {
	rep := investigate.Investigate(c.Bundle, investigate.Options{Agent: agent.BuiltinName, Now: c.CapturedAt,
		IncidentID: c.IncidentID(), Severity: c.Severity()})
	// The header's duration is the live run's, which a replay cannot
	// measure: borrowed from the saved builtin report, so a diff shows
	// what the investigator concluded differently and nothing else.
	if r := c.BuiltinReport(); r != nil {
		rep.Duration = r.Duration
	}
	return rep
}
