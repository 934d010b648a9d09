package cmd

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/install"
	"github.com/kubectl-triage/kubectl-triage/pkg/version"
)

var installLong = `Print the manifests that run 'kubectl triage watch' inside the cluster:
a Namespace, a ServiceAccount with a read-only ClusterRole (no Secrets), a Role
that may get and update the watch's leader-election Lease alone (and create
Leases, which RBAC cannot limit to a name), a hardened single-replica Deployment
(non-root, read-only root filesystem, seccomp RuntimeDefault, no privilege
escalation, all capabilities dropped), a PodDisruptionBudget and a metrics
Service. In the pod, watch uses the ServiceAccount (in-cluster config).

kubectl triage never changes a cluster, so it only prints them: pipe them to
kubectl apply with an identity allowed to create them.

The namespace must be one of its own: kube-system and the other kube-*
namespaces are refused (the Namespace would be relabelled for the restricted
Pod Security Standard, and a Lease written beside the control plane's), and
so is default unless --allow-default-namespace is given (the Namespace
object is then left out, so default keeps its labels).`

var installExample = `  # Watch the whole cluster from a pod in triage-system
  kubectl triage install --print | kubectl apply -f -

  # Take faults from kubernetes-mcp-server, post incidents to Slack
  kubectl create secret generic slack -n triage-system --from-literal=url=https://hooks.slack.com/services/...
  kubectl triage install --print --source mcp --mcp-endpoint http://kubernetes-mcp-server.mcp:8080/mcp \
    --slack-webhook-secret slack | kubectl apply -f -`

// InstallOptions are the options of `kubectl triage install`.
type InstallOptions struct {
	genericiooptions.IOStreams
	install.Options
	Print bool
}

// NewCmdInstall is `kubectl triage install --print`.
func NewCmdInstall(streams genericiooptions.IOStreams) *cobra.Command {
	o := &InstallOptions{IOStreams: streams, Options: install.Options{
		Namespace: install.DefaultNamespace, Name: install.DefaultName, Replicas: 1, Source: "cluster",
		Agent: "builtin", MetricsAddr: install.DefaultMetricsAddr, SlackWebhookKey: install.DefaultSlackKey,
		Version: version.Version, Image: install.ImageRepository + ":" + version.Version,
	}}
	cmd := &cobra.Command{
		Use:     "install --print [-n NAMESPACE] [flags]",
		Short:   "Print the manifests that run watch in the cluster (pipe them to kubectl apply)",
		Long:    installLong,
		Example: installExample,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.Complete(c); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Print, "print", false, "Print the manifests on stdout (required: kubectl triage applies nothing)")
	f.StringVar(&o.Name, "name", o.Name, "Name of the ServiceAccount, Deployment and the other objects")
	f.StringVar(&o.Image, "image", o.Image, "Image holding the plugin at /kubectl-triage (make image builds one)")
	f.Int32Var(&o.Replicas, "replicas", o.Replicas, "Replicas of the watch: they elect one leader (watch --leader-elect), which alone triages; the others take over when it goes")
	f.StringVar(&o.Source, "source", o.Source, "Where the watch takes faults from: cluster (the API server) or mcp")
	f.StringVar(&o.MCPEndpoint, "mcp-endpoint", "", "kubernetes-mcp-server's URL as seen from the pod, with --source mcp")
	f.StringVar(&o.Agent, "agent", o.Agent, "Agent that investigates in the pod: builtin (the image holds no agent CLI)")
	f.StringVar(&o.MetricsAddr, "metrics-addr", o.MetricsAddr, "watch's --metrics-addr in the pod: metrics, /healthz probes and the Service use its port")
	f.StringVar(&o.SlackWebhookSecret, "slack-webhook-secret", "", "Secret in the namespace holding the Slack webhook URL, passed as SLACK_WEBHOOK_URL")
	f.StringVar(&o.SlackWebhookKey, "slack-webhook-secret-key", o.SlackWebhookKey, "Key of the webhook URL in --slack-webhook-secret")
	f.StringVar(&o.Store, "store", "", "watch's --store: keep incidents in azblob://CONTAINER, s3://BUCKET or gs://BUCKET instead of the pod's emptyDir")
	f.BoolVar(&o.AllowDefaultNamespace, "allow-default-namespace", false, "Allow -n default, which other workloads share (the Namespace object is left out, so its labels stay as they are); kube-* namespaces are always refused")
	f.StringVar(&o.StoreSecret, "store-secret", "", "Secret in the namespace whose keys become the pod's environment for --store (e.g. AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY)")
	// The manifests depend on the command line alone, never on the invoking
	// user's config file or environment (whose agent may be claude): this
	// replaces the root's hook that applies them.
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error { return nil }
	return cmd
}

// Complete takes the namespace from -n only: the kubeconfig's namespace is
// where the user works, not where the watch should run.
func (o *InstallOptions) Complete(cmd *cobra.Command) error {
	if f := cmd.Flags().Lookup("namespace"); f != nil && f.Changed {
		o.Namespace = f.Value.String()
	}
	o.Source = strings.ToLower(o.Source)
	return nil
}

// Validate checks the options; without --print it says how to apply.
func (o *InstallOptions) Validate() error {
	if !o.Print {
		return errors.New("kubectl triage never changes the cluster: print the manifests and apply them yourself, 'kubectl triage install --print | kubectl apply -f -'")
	}
	return o.Options.Validate()
}

// Run prints the manifests.
func (o *InstallOptions) Run() error {
	objs, err := install.Objects(o.Options)
	if err != nil {
		return err
	}
	return install.Render(o.Out, objs)
}
