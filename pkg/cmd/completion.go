package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
)

// Shell completion, as kubectl does it: cobra's hidden __complete command
// answers, called by the scripts of `kubectl triage completion SHELL` for
// kubectl-triage itself and, for `kubectl triage <TAB>`, by kubectl (1.26+)
// through the kubectl_complete-triage helper shipped in the release archives.

// completionTimeout bounds the cluster requests behind one TAB, all of them
// together: a shell waiting longer than this is worse than offering nothing.
const completionTimeout = 5 * time.Second

// Fixed mappings of the types completed without asking discovery first.
var (
	podsMapping       = &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Scope: meta.RESTScopeNamespace}
	namespacesMapping = &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Scope: meta.RESTScopeRoot}
)

// registerCompletions wires completion into the command tree: the resource
// argument, flags with a known set of values (also those of subcommands
// sharing the triage flags, such as watch), and a completion command whose
// scripts complete the kubectl-triage executable. Call it once every
// subcommand and flag exists.
func registerCompletions(root *cobra.Command, o *TriageOptions) {
	root.ValidArgsFunction = o.completeTarget
	flags := o.configFlags
	register := func(c *cobra.Command, flag string, fn cobra.CompletionFunc) {
		if c.Flag(flag) != nil {
			_ = c.RegisterFlagCompletionFunc(flag, fn) // fails only when registered already
		}
	}
	// The kubeconfig flags are persistent: registered once on the root,
	// they complete in every subcommand.
	register(root, "namespace", func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx, cancel := completionContext(c.Context(), flags)
		defer cancel()
		return listNames(ctx, flags, namespacesMapping, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
	for flag, names := range map[string]func() []string{
		"context": func() []string { return kubeconfigNames(flags, "context") },
		"cluster": func() []string { return kubeconfigNames(flags, "cluster") },
		"user":    func() []string { return kubeconfigNames(flags, "user") },
	} {
		register(root, flag, func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return withPrefix(names(), toComplete), cobra.ShellCompDirectiveNoFileComp
		})
	}

	files := func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	dirs := func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		register(c, "agent", completeAgentNames)
		for _, f := range []string{"fault-file", "system-prompt-file", "agent-kubeconfig"} {
			register(c, f, files)
		}
		register(c, "workspace-root", dirs)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	register(root, "output", cobra.FixedCompletions(outputFormats, cobra.ShellCompDirectiveNoFileComp))
	if watch, _, err := root.Find([]string{"watch"}); err == nil && watch != root {
		fixed := func(values ...string) cobra.CompletionFunc {
			return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
		}
		for flag, values := range map[string][]string{
			"output":         {"text", "json"},
			"source":         {sourceMCP, sourceCluster},
			"subscribe-mode": {"faults", "resource-faults", "events"},
			"min-severity":   {"info", "warning", "critical"},
			"overflow":       {"drop-oldest", "drop-new"},
			"log-format":     {"text", "json"},
			"log-level":      {"debug", "info", "warn", "error"},
			"type":           {"Warning", "Normal"},
		} {
			register(watch, flag, fixed(values...))
		}
		register(watch, "mcp-token-file", files)
	}

	if !slices.ContainsFunc(root.Commands(), func(c *cobra.Command) bool { return c.Name() == "completion" }) {
		root.AddCommand(newCmdCompletion(root))
	}
}

// completeAgentNames offers the agents --agent accepts, with what each is.
func completeAgentNames(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	dir := agent.DefaultConfigDir()
	defs, _ := agent.Definitions(dir)
	var out []cobra.Completion
	for _, name := range agent.Names(dir) {
		if !strings.HasPrefix(name, toComplete) {
			continue
		}
		desc := "deterministic investigator: no AI, no API key"
		if d := defs[name]; d != nil {
			desc = d.Description
		}
		out = append(out, cobra.CompletionWithDesc(name, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// targetWord is what the word under the cursor can be, given the words
// before it (target.Normalize's forms: TYPE/NAME, TYPE NAME, or a bare NAME
// meaning a pod).
type targetWord struct {
	// TypesOrPods: the first word, with no slash yet: a resource type or a
	// pod's name.
	TypesOrPods bool
	// Type, when set, asks for the names of objects of this type.
	Type string
	// Prefix goes before each name: "TYPE/" in the TYPE/NAME form.
	Prefix string
	// Partial is what is typed of the type or name so far.
	Partial string
}

// parseTargetWord decides what to complete; false when nothing fits (a
// second resource, a name after a name).
func parseTargetWord(args []string, toComplete string) (targetWord, bool) {
	switch len(args) {
	case 0:
		typ, name, found := strings.Cut(toComplete, "/")
		if !found {
			return targetWord{TypesOrPods: true, Partial: toComplete}, true
		}
		if typ == "" || strings.Contains(name, "/") {
			return targetWord{}, false
		}
		return targetWord{Type: typ, Prefix: typ + "/", Partial: name}, true
	case 1:
		if args[0] == "" || strings.Contains(args[0], "/") || strings.Contains(toComplete, "/") {
			return targetWord{}, false
		}
		return targetWord{Type: args[0], Partial: toComplete}, true
	}
	return targetWord{}, false
}

// completeTarget is the root command's ValidArgsFunction: resource types
// and pod names first, then names of the chosen type, all read through the
// plugin's read-only client with -n, --context and --kubeconfig as typed
// on the command line. Any error means no completions.
func (o *TriageOptions) completeTarget(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if f := cmd.Flags().Lookup("fault-file"); f != nil && f.Changed {
		return nil, cobra.ShellCompDirectiveNoFileComp // the event names the resource
	}
	w, ok := parseTargetWord(args, toComplete)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := completionContext(cmd.Context(), o.configFlags)
	defer cancel()
	var out []cobra.Completion
	if w.TypesOrPods {
		disc, err := o.configFlags.ToDiscoveryClient()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		// Partial results (a group whose API service is down) are still
		// results; none at all means no cluster to ask for pods either.
		lists, err := discovery.ToDiscoveryInterfaceWithContext(disc).ServerPreferredResourcesWithContext(ctx)
		if err != nil && len(lists) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		for _, t := range triageableTypes(lists) {
			if strings.HasPrefix(t.Name, w.Partial) {
				out = append(out, cobra.CompletionWithDesc(t.Name, t.Kind))
			}
		}
		for _, name := range listNames(ctx, o.configFlags, podsMapping, w.Partial) {
			out = append(out, cobra.CompletionWithDesc(name, "Pod"))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	for _, name := range completeNames(ctx, o.configFlags, w.Type, w.Partial) {
		out = append(out, w.Prefix+name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completionContext bounds the cluster requests of one completion: each by
// rest.Config.Timeout, and all of them together, discovery and retries
// included, by the returned context's deadline; both are completionTimeout
// unless --request-timeout sets them. Call it before the flags make a
// client: the clients they make later keep the first one's timeout.
func completionContext(ctx context.Context, flags *kubeflags.ConfigFlags) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := completionTimeout
	if flags.Timeout != nil {
		if *flags.Timeout == "" || *flags.Timeout == "0" {
			*flags.Timeout = completionTimeout.String()
		} else if d, err := time.ParseDuration(*flags.Timeout); err == nil && d > 0 {
			timeout = d
		}
	}
	return context.WithTimeout(ctx, timeout)
}

// resourceType is one resource type offered for completion.
type resourceType struct {
	Name string // as typed: plural, or plural.group when the plural is ambiguous
	Kind string
}

// notTriaged are served resources whose objects are not worth triaging:
// Secrets are never read, events are evidence rather than subjects (a
// fault event goes through --fault-file), and metrics are a view of pods
// and nodes, which have their own types.
var (
	notTriaged       = sets.New(schema.GroupResource{Resource: "secrets"}, schema.GroupResource{Resource: "events"}, schema.GroupResource{Group: "events.k8s.io", Resource: "events"})
	notTriagedGroups = sets.New("metrics.k8s.io")
)

// triageableTypes picks, from discovery, the resource types kubectl triage
// can fetch (get and list, not subresources), named as short as the
// resource builder resolves them: the plural, qualified by the group only
// when another group serves the same plural (the core group keeps the bare
// name, as kubectl resolves it). Sorted by name.
func triageableTypes(lists []*metav1.APIResourceList) []resourceType {
	type candidate struct {
		gr   schema.GroupResource
		kind string
	}
	var cands []candidate
	seen := sets.New[schema.GroupResource]()
	plurals := map[string]int{}
	for _, l := range lists {
		if l == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			gr := schema.GroupResource{Group: gv.Group, Resource: r.Name}
			verbs := sets.New(r.Verbs...)
			if strings.Contains(r.Name, "/") || !verbs.HasAll("get", "list") || notTriaged.Has(gr) || notTriagedGroups.Has(gr.Group) || seen.Has(gr) {
				continue
			}
			seen.Insert(gr)
			plurals[r.Name]++
			cands = append(cands, candidate{gr: gr, kind: r.Kind})
		}
	}
	out := make([]resourceType, 0, len(cands))
	for _, c := range cands {
		name := c.gr.Resource
		if c.gr.Group != "" && plurals[name] > 1 {
			name += "." + c.gr.Group
		}
		out = append(out, resourceType{Name: name, Kind: c.kind})
	}
	slices.SortFunc(out, func(a, b resourceType) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// completeNames lists the names of objects of typ (any form the resource
// builder takes: short name, singular, plural.group) starting with partial,
// as listNames does. nil on any error, and always for Secrets.
func completeNames(ctx context.Context, flags *kubeflags.ConfigFlags, typ, partial string) []string {
	mapping, err := restMapping(ctx, flags, typ)
	if err != nil || mapping.Resource.GroupResource() == (schema.GroupResource{Resource: "secrets"}) {
		return nil
	}
	return listNames(ctx, flags, mapping, partial)
}

// listNames lists the names of the objects of a type starting with partial,
// in the namespace of -n or the kubeconfig context for namespaced types.
// Only metadata is fetched. nil on any error.
func listNames(ctx context.Context, flags *kubeflags.ConfigFlags, mapping *meta.RESTMapping, partial string) []string {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil
	}
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil
	}
	var ri metadata.ResourceInterface = client.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return nil
		}
		ri = client.Resource(mapping.Resource).Namespace(ns)
	}
	list, err := ri.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var names []string
	for _, item := range list.Items {
		if strings.HasPrefix(item.Name, partial) {
			names = append(names, item.Name)
		}
	}
	slices.Sort(names)
	return names
}

// restMapping resolves a type as typed on the command line, short names
// included, with one discovery round trip at most.
func restMapping(ctx context.Context, flags *kubeflags.ConfigFlags, typ string) (*meta.RESTMapping, error) {
	disc, err := flags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	// Discover once, here: the mapper reads what this cached (the flags
	// share one discovery client), and a cluster that did not answer is not
	// asked again by the shortcut expander and then the mapper.
	if _, _, err := discovery.ToDiscoveryInterfaceWithContext(disc).ServerGroupsAndResourcesWithContext(ctx); err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discover the cluster's resource types: %w", err)
	}
	m, err := flags.ToRESTMapper()
	if err != nil {
		return nil, err
	}
	mapper := meta.ToRESTMapperWithContext(m)
	full, gr := schema.ParseResourceArg(strings.ToLower(typ))
	gvr := gr.WithVersion("")
	if full != nil {
		gvr = *full
	}
	gvk, err := mapper.KindForWithContext(ctx, gvr)
	if err != nil {
		return nil, err
	}
	return mapper.RESTMappingWithContext(ctx, gvk.GroupKind(), gvk.Version)
}

// kubeconfigNames lists the kubeconfig's contexts, clusters or users.
func kubeconfigNames(flags *kubeflags.ConfigFlags, what string) []string {
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil
	}
	var names []string
	switch what {
	case "context":
		for n := range raw.Contexts {
			names = append(names, n)
		}
	case "cluster":
		for n := range raw.Clusters {
			names = append(names, n)
		}
	case "user":
		for n := range raw.AuthInfos {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

func withPrefix(names []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// ---- completion command ------------------------------------------------

// binaryName is the executable the completion scripts complete.
const binaryName = "kubectl-triage"

var completionLong = `Print a shell completion script for kubectl-triage.

For 'kubectl triage <TAB>' (kubectl 1.26 and later), nothing needs to be
sourced: kubectl runs kubectl_complete-triage, from the release archive, when
it is on your PATH. krew does not link it; copy it next to the plugin once
(it only runs 'kubectl-triage __complete', so upgrades need no new copy):

    cp "${KREW_ROOT:-$HOME/.krew}"/store/triage/*/kubectl_complete-triage \
      "${KREW_ROOT:-$HOME/.krew}/bin/"

The scripts printed here complete the kubectl-triage executable when you run
it directly.`

var completionExample = `  # bash (needs the bash-completion package), in ~/.bashrc
  source <(kubectl triage completion bash)

  # zsh, in ~/.zshrc after compinit
  source <(kubectl triage completion zsh)

  # fish
  kubectl triage completion fish > ~/.config/fish/completions/kubectl-triage.fish

  # PowerShell, in $PROFILE
  kubectl triage completion powershell | Out-String | Invoke-Expression`

var completionShells = map[string]func(root *cobra.Command, w io.Writer) error{
	"bash":       func(root *cobra.Command, w io.Writer) error { return root.GenBashCompletionV2(w, true) },
	"zsh":        func(root *cobra.Command, w io.Writer) error { return root.GenZshCompletion(w) },
	"fish":       func(root *cobra.Command, w io.Writer) error { return root.GenFishCompletion(w, true) },
	"powershell": func(root *cobra.Command, w io.Writer) error { return root.GenPowerShellCompletionWithDesc(w) },
}

// newCmdCompletion is `kubectl triage completion SHELL`, in place of
// cobra's default, whose scripts would complete a command named after the
// root command ("triage"), which no shell runs.
func newCmdCompletion(root *cobra.Command) *cobra.Command {
	shells := make([]string, 0, len(completionShells))
	for s := range completionShells {
		shells = append(shells, s)
	}
	slices.Sort(shells)
	return &cobra.Command{
		Use:                   "completion SHELL",
		DisableFlagsInUseLine: true,
		Short:                 "Print the shell completion script for kubectl-triage (" + strings.Join(shells, ", ") + ")",
		Long:                  completionLong,
		Example:               completionExample,
		ValidArgs:             shells,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("completion needs exactly one shell, got %d arguments: use %s", len(args), strings.Join(shells, ", "))
			}
			if _, ok := completionShells[args[0]]; !ok {
				return fmt.Errorf("unsupported shell %q: use %s", args[0], strings.Join(shells, ", "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			// The scripts name the command root.Name(); the shell runs the
			// executable, so generate them under its name.
			use := root.Use
			root.Use = binaryName + strings.TrimPrefix(use, root.Name())
			defer func() { root.Use = use }()
			return completionShells[args[0]](root, c.OutOrStdout())
		},
	}
}
