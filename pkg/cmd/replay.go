package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
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
	ws, err := loadSaved(dir)
	if err != nil {
		return err
	}
	rep, err := ws.replay()
	if err != nil {
		return err
	}
	if o.Output != "" {
		data, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return printRecord(o.Output, data, o.Out)
	}
	// The same passes the engine puts a saved report through, so a replay
	// of an unchanged investigator reads byte for byte as the saved one.
	md, _ := redact.Text(term.Clean(rep.Markdown()))
	if !o.Diff {
		_, err := io.WriteString(o.Out, md)
		return err
	}
	// A capture may keep only the report's data (the real-node corpus
	// does): compared rendered, as the markdown would have read.
	savedFile, saved := workspace.ReportFile, ""
	switch {
	case ws.savedMD != nil:
		saved = term.Clean(string(ws.savedMD))
	case ws.savedRep != nil:
		savedFile = workspace.ReportJSONFile
		saved, _ = redact.Text(term.Clean(ws.savedRep.Markdown()))
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

// saved is what a workspace holds about its incident, read without a
// cluster: any of incident.json, context/event.json and the saved report
// may be missing (a workspace captured by hand or shared in part).
type saved struct {
	dir      string
	inc      *incident.Incident
	event    *fault.Event
	savedRep *report.Report
	savedMD  []byte
}

// loadSaved reads a workspace. It must have context/: that is the evidence.
func loadSaved(dir string) (*saved, error) {
	s := &saved{dir: dir}
	incData, incErr := os.ReadFile(filepath.Join(dir, workspace.IncidentFile))
	ctxInfo, ctxErr := os.Stat(filepath.Join(dir, workspace.ContextDir))
	switch {
	case incErr != nil && ctxErr != nil:
		return nil, fmt.Errorf("%s is not an incident workspace: it has neither %s nor %s/", dir, workspace.IncidentFile, workspace.ContextDir)
	case ctxErr != nil || !ctxInfo.IsDir():
		return nil, fmt.Errorf("workspace %s has no %s/ to replay: its evidence was never collected or was removed", dir, workspace.ContextDir)
	}
	if incErr == nil {
		if err := json.Unmarshal(incData, &s.inc); err != nil {
			return nil, fmt.Errorf("workspace %s: corrupt %s: %w", dir, workspace.IncidentFile, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, workspace.EventFile)); err == nil {
		if err := json.Unmarshal(data, &s.event); err != nil {
			return nil, fmt.Errorf("workspace %s: corrupt %s: %w", dir, workspace.EventFile, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, workspace.ReportJSONFile)); err == nil {
		// An agent wrote it: unreadable only means there is nothing to
		// borrow the time from.
		_ = json.Unmarshal(data, &s.savedRep)
	}
	if data, err := os.ReadFile(filepath.Join(dir, workspace.ReportFile)); err == nil {
		s.savedMD = data
	}
	return s, nil
}

// target is the triaged resource, from the first record that names it.
func (s *saved) target() (fault.Resource, error) {
	switch {
	case s.inc != nil && s.inc.Resource.Kind != "":
		return s.inc.Resource, nil
	case s.event != nil && s.event.Resource != nil && s.event.Resource.Kind != "":
		return *s.event.Resource, nil
	case s.savedRep != nil && s.savedRep.Resource.Kind != "":
		r := s.savedRep.Resource
		return fault.Resource{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, Namespace: r.Namespace}, nil
	}
	return fault.Resource{}, fmt.Errorf("workspace %s: none of %s, %s or %s names the triaged resource", s.dir, workspace.IncidentFile, workspace.EventFile, workspace.ReportJSONFile)
}

// builtinSaved is the saved report when the builtin investigator wrote it.
func (s *saved) builtinSaved() *report.Report {
	if s.savedRep != nil && s.savedRep.Agent == agent.BuiltinName && !s.savedRep.Time.IsZero() {
		return s.savedRep
	}
	return nil
}

// capturedAt is the moment the investigation is replayed as of. The
// builtin report records the exact instant it read the fresh evidence;
// otherwise incident.json's startedAt is when collection had finished and
// the agent began; then the incident's creation, then the fault's time.
// (cluster-info.json records no time.)
func (s *saved) capturedAt() (time.Time, error) {
	if r := s.builtinSaved(); r != nil {
		return r.Time, nil
	}
	if s.inc != nil {
		if s.inc.StartedAt != nil && !s.inc.StartedAt.IsZero() {
			return *s.inc.StartedAt, nil
		}
		if !s.inc.CreatedAt.IsZero() {
			return s.inc.CreatedAt, nil
		}
	}
	if s.savedRep != nil && !s.savedRep.Time.IsZero() {
		return s.savedRep.Time, nil
	}
	if s.event != nil && !s.event.Timestamp.IsZero() {
		return s.event.Timestamp, nil
	}
	return time.Time{}, fmt.Errorf("workspace %s: no record says when its evidence was captured (%s, %s and %s have no time)", s.dir, workspace.IncidentFile, workspace.ReportJSONFile, workspace.EventFile)
}

// replay loads context/ and investigates it as of the capture.
func (s *saved) replay() (*report.Report, error) {
	target, err := s.target()
	if err != nil {
		return nil, err
	}
	at, err := s.capturedAt()
	if err != nil {
		return nil, err
	}
	b, err := bundle.Load(filepath.Join(s.dir, workspace.ContextDir), target)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: load %s/: %w", s.dir, workspace.ContextDir, err)
	}
	opts := investigate.Options{Agent: agent.BuiltinName, Now: at}
	switch {
	case s.inc != nil:
		opts.IncidentID, opts.Severity = s.inc.IncidentID, s.inc.Severity
	case s.savedRep != nil:
		opts.IncidentID, opts.Severity = s.savedRep.IncidentID, s.savedRep.Severity
	}
	if opts.Severity == "" && s.event != nil {
		opts.Severity = s.event.Severity
	}
	rep := investigate.Investigate(b, opts)
	// The header's duration is the live run's, which a replay cannot
	// measure: borrowed from the saved builtin report, so a diff shows
	// what the investigator concluded differently and nothing else.
	if r := s.builtinSaved(); r != nil {
		rep.Duration = r.Duration
	}
	return rep, nil
}
