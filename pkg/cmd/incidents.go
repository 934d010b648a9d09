package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// rootOptions is --workspace-root for the commands that read incidents. It
// is a local flag of each of them, like the triage command's own: cobra
// parses a subcommand's flags with its own flag set, so
// `kubectl triage list --workspace-root D` and `kubectl triage pod/x
// --workspace-root D` both work and never clash.
type rootOptions struct {
	WorkspaceRoot string
	getEnv        func(string) string
	store         *store.Store
	// StoreURL is --store (list, show, status): read incidents from
	// object storage instead of the root.
	StoreURL string
	reader   incidentReader
}

// incidentRef is the one incident ID that show, status and cancel take.
type incidentRef struct {
	Ref  string
	args []string
}

// take keeps the arguments for validate; Ref is the first when there is
// exactly one.
func (r *incidentRef) take(args []string) {
	r.args = args
	if len(args) == 1 {
		r.Ref = args[0]
	}
}

// validate checks that verb got exactly one ID and normalises it before it
// comes near a path.
func (r *incidentRef) validate(verb string) error {
	if len(r.args) != 1 {
		return fmt.Errorf("%s needs exactly one incident ID, got %d arguments; see 'kubectl triage list'", verb, len(r.args))
	}
	ref, err := store.NormalizeRef(r.Ref)
	r.Ref = ref
	return err
}

func (r *rootOptions) addFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.WorkspaceRoot, "workspace-root", "", "Directory that holds incident workspaces (default $XDG_STATE_HOME/kubectl-triage/incidents). Env: "+workspace.EnvWorkspaceRoot)
	config.BindEnv(cmd.Flags(), "workspace-root", workspace.EnvWorkspaceRoot)
}

// complete resolves the root: the flag as config.Setup left it (flag >
// WORKSPACE_ROOT > config file), else the default.
func (r *rootOptions) complete(cmd *cobra.Command) error {
	if r.getEnv == nil {
		r.getEnv = os.Getenv
	}
	if r.WorkspaceRoot == "" {
		root, err := workspace.DefaultRoot()
		if err != nil {
			return err
		}
		r.WorkspaceRoot = root
	}
	if err := workspace.ValidateRoot(r.WorkspaceRoot); err != nil {
		return err
	}
	s, err := store.New(r.WorkspaceRoot)
	if err != nil {
		return err
	}
	r.store = s
	return r.openReader(cmd)
}

// find looks an incident up by ID or prefix, with the errors a user can act on.
func (r *rootOptions) find(ref string) (*store.Entry, error) {
	e, err := r.source().Find(ref)
	var nf *store.NotFoundError
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("%w; run 'kubectl triage list'", err)
	}
	return e, err
}

// warnSkipped tells the user which entries of the root are not incidents.
func warnSkipped(w io.Writer, root string, skipped []store.Skipped) {
	for _, s := range skipped {
		fmt.Fprintf(w, "warning: skipping %s/%s: %s\n", root, s.Name, s.Reason)
	}
}

// completeIncidentIDs offers the incidents' IDs for shell completion.
func completeIncidentIDs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	// The root hook does not run for completion: apply WORKSPACE_ROOT and
	// the config file here; a broken config file just completes nothing.
	if _, err := config.Setup(cmd, os.Getenv); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	r := &rootOptions{}
	r.WorkspaceRoot, _ = cmd.Flags().GetString("workspace-root")
	if err := r.complete(cmd); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	entries, _, _ := r.store.List()
	var out []cobra.Completion
	for _, e := range entries {
		if strings.HasPrefix(e.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(e.ID, term.Clean(e.Resource()+" "+string(e.Incident.Status))))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// printRecord prints JSON bytes with a kubectl JSON/YAML printer.
func printRecord(format string, data []byte, w io.Writer) error {
	var p printers.ResourcePrinter
	switch format {
	case "json":
		p = &printers.JSONPrinter{}
	case "yaml":
		p = &printers.YAMLPrinter{}
	default:
		return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json, yaml", format)
	}
	var buf bytes.Buffer
	if err := p.PrintObj(&runtime.Unknown{Raw: escapeC1(data), ContentType: runtime.ContentTypeJSON}, &buf); err != nil {
		return err
	}
	_, err := w.Write(escapeHidden(buf.Bytes()))
	return err
}

const none = "<none>"

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// truncate shortens s to max runes, on one line.
func truncate(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut := string([]rune(s)[:max-1])
	// End on a word when one ends near the cut.
	if i := strings.LastIndexByte(cut, ' '); i > 0 && utf8.RuneCountInString(cut[i:]) <= 15 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}

// confidence, rootCause and cluster are the incident's Summary's, the
// values -o json, the watch lines and Slack show too.
func confidence(inc *incident.Incident) string {
	return orNone(incident.Summarize(inc).ConfidenceText())
}

// rootCause is the report's headline or, without a report, why there is none.
func rootCause(inc *incident.Incident) string {
	return incident.Summarize(inc).Headline()
}

func cluster(inc *incident.Incident) string {
	return incident.Summarize(inc).Cluster
}

// ---- list -----------------------------------------------------------------

var statuses = []string{string(incident.Resolved), string(incident.Failed), string(incident.AgentFailed), string(incident.Investigating)}

// rootCauseWidth bounds the ROOT CAUSE column.
const rootCauseWidth = 60

// shortIDLen is the shortest ID the table shows; more when needed to be unique.
const shortIDLen = 8

// ListOptions are the options of `kubectl triage list`.
type ListOptions struct {
	genericiooptions.IOStreams
	rootOptions

	Output    string
	Statuses  []string
	NoHeaders bool

	namespace string // filter, when -n was given
	now       func() time.Time
}

var listExample = `  # Every incident, newest first
  kubectl triage list

  # The failed ones, with cluster, confidence, duration and workspace
  kubectl triage list --status failed,agent_failed -o wide

  # As data
  kubectl triage list -o json`

// NewCmdList is `kubectl triage list`.
func NewCmdList(streams genericiooptions.IOStreams) *cobra.Command {
	o := &ListOptions{IOStreams: streams, now: time.Now}
	cmd := &cobra.Command{
		Use:                   "list [--status STATUS] [-o wide|json|yaml]",
		DisableFlagsInUseLine: true,
		Aliases:               []string{"ls"},
		Short:                 "List the incidents in the workspace root, newest first",
		Long: `List the incidents in the workspace root, newest first.

With -n, only the incidents about that namespace. Directories in the root
that are not valid incident workspaces are skipped with a warning; symbolic
links are never followed.`,
		Example: listExample,
		Args:    cobra.NoArgs,
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
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: wide, json, yaml or kyaml")
	cmd.Flags().StringSliceVar(&o.Statuses, "status", nil, "Only incidents with this status (comma-separated): "+strings.Join(statuses, ", "))
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "Do not print the table's header")
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(statuses, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"wide", "json", "yaml", "kyaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete resolves the workspace root and the namespace filter (only an
// explicit -n filters: incidents come from many namespaces and clusters).
func (o *ListOptions) Complete(cmd *cobra.Command, _ []string) error {
	if f := cmd.Flags().Lookup("namespace"); f != nil && f.Changed {
		o.namespace = f.Value.String()
	}
	return o.complete(cmd)
}

// Validate checks the output format and the status filter.
func (o *ListOptions) Validate() error {
	switch o.Output {
	case "", "wide", "json", "yaml", "kyaml":
	default:
		return fmt.Errorf("unknown output format %q: use wide, json, yaml or kyaml", o.Output)
	}
	for _, s := range o.Statuses {
		if !slices.Contains(statuses, s) {
			return fmt.Errorf("unknown status %q: use %s", s, strings.Join(statuses, ", "))
		}
	}
	return nil
}

// Run lists.
func (o *ListOptions) Run() error {
	entries, skipped, err := o.source().List()
	if err != nil {
		return err
	}
	warnSkipped(o.ErrOut, o.source().Where(), skipped)
	entries = slices.DeleteFunc(entries, func(e *store.Entry) bool {
		return (len(o.Statuses) > 0 && !slices.Contains(o.Statuses, string(e.Incident.Status))) ||
			(o.namespace != "" && e.Incident.Namespace != o.namespace)
	})
	switch o.Output {
	case "json", "yaml", "kyaml":
		return o.printList(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(o.ErrOut, "No incidents found in %s%s.\n", o.source().Where(), o.filterNote())
		return nil
	}
	wide := o.Output == "wide"
	return printers.NewTablePrinter(printers.PrintOptions{Wide: wide, NoHeaders: o.NoHeaders}).PrintObj(incidentTable(entries, wide, o.now()), o.Out)
}

func (o *ListOptions) filterNote() string {
	var parts []string
	if len(o.Statuses) > 0 {
		parts = append(parts, "with status "+strings.Join(o.Statuses, " or "))
	}
	if o.namespace != "" {
		parts = append(parts, "in namespace "+o.namespace)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

// incidentList is `-o json|yaml`: a kubectl-style List of incident records.
type incidentList struct {
	APIVersion string               `json:"apiVersion"`
	Kind       string               `json:"kind"`
	Metadata   map[string]string    `json:"metadata"`
	Items      []*incident.Incident `json:"items"`
}

func (o *ListOptions) printList(entries []*store.Entry) error {
	l := incidentList{APIVersion: "v1", Kind: "List", Metadata: map[string]string{"resourceVersion": ""}, Items: []*incident.Incident{}}
	for _, e := range entries {
		l.Items = append(l.Items, e.Incident)
	}
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return printRecord(o.Output, data, o.Out)
}

var incidentColumns = []metav1.TableColumnDefinition{
	{Name: "ID", Type: "string", Description: "Incident ID (unique prefix; -o wide shows it whole)"},
	{Name: "Age", Type: "string", Description: "Since the incident was created"},
	{Name: "Status", Type: "string", Description: "investigating, resolved, failed or agent_failed"},
	{Name: "Agent", Type: "string"},
	{Name: "Resource", Type: "string"},
	{Name: "Fault", Type: "string"},
	{Name: "Root Cause", Type: "string"},
	{Name: "Cluster", Type: "string", Priority: 1},
	{Name: "Namespace", Type: "string", Priority: 1},
	{Name: "Confidence", Type: "string", Priority: 1},
	{Name: "Duration", Type: "string", Priority: 1},
	{Name: "Workspace", Type: "string", Priority: 1},
}

// incidentTable is the list as a metav1.Table for the cli-runtime table
// printer; wide columns have priority 1.
func incidentTable(entries []*store.Entry, wide bool, now time.Time) *metav1.Table {
	t := &metav1.Table{ColumnDefinitions: incidentColumns}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	n := uniquePrefixLen(ids, shortIDLen)
	for _, e := range entries {
		inc := e.Incident
		id := e.ID
		if !wide && len(id) > n {
			id = id[:n]
		}
		dur := none
		if d, ok := e.Duration(); ok {
			dur = duration.HumanDuration(d)
		}
		// The row is the incident's Summary, cleaned as the watch lines and
		// Slack clean it: the same values, redacted.
		s := incident.Summarize(inc).Clean()
		cells := []any{
			id,
			duration.HumanDuration(now.Sub(inc.CreatedAt)),
			string(s.Status),
			orNone(s.Agent),
			e.Resource(),
			orNone(s.FaultType),
			orNone(truncate(s.Headline(), rootCauseWidth)),
			orNone(s.Cluster),
			orNone(s.Namespace),
			orNone(s.ConfidenceText()),
			dur,
			e.Dir,
		}
		// Cells hold text from the cluster and from agents: nothing in
		// them may drive the terminal.
		for i, c := range cells {
			if s, ok := c.(string); ok {
				cells[i] = term.Clean(s)
			}
		}
		t.Rows = append(t.Rows, metav1.TableRow{Cells: cells})
	}
	return t
}

// uniquePrefixLen is the shortest length, at least min, at which the IDs'
// prefixes are all distinct.
func uniquePrefixLen(ids []string, atLeast int) int {
	n := atLeast
	for {
		seen := map[string]bool{}
		clash := false
		longest := 0
		for _, id := range ids {
			longest = max(longest, len(id))
			p := id[:min(n, len(id))]
			if seen[p] {
				clash = true
			}
			seen[p] = true
		}
		if !clash || n >= longest {
			return n
		}
		n++
	}
}

// ---- show -----------------------------------------------------------------
