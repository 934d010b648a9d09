package install

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-triage/kubectl-triage/internal/golden"
)

func base() Options {
	return Options{Namespace: DefaultNamespace, Name: DefaultName, Image: "example.com/kubectl-triage:v1.2.3", Version: "v1.2.3",
		Replicas: 1, Source: "cluster", Agent: "builtin", MetricsAddr: DefaultMetricsAddr, SlackWebhookKey: DefaultSlackKey}
}

// TestGolden: the printed manifests, byte for byte, for the default and for
// an MCP source with Slack in another namespace.
func TestGolden(t *testing.T) {
	mcp := base()
	mcp.Namespace, mcp.Source, mcp.MCPEndpoint, mcp.SlackWebhookSecret, mcp.MetricsAddr =
		"ops", "mcp", "http://kubernetes-mcp-server.mcp:8080/mcp", "slack", "0.0.0.0:8443"
	stored := base()
	stored.Store, stored.StoreSecret = "azblob://incidents", "triage-storage"
	inDefault := base()
	inDefault.Namespace, inDefault.AllowDefaultNamespace = "default", true
	for name, o := range map[string]Options{"default": base(), "mcp-slack": mcp, "store": stored, "default-namespace": inDefault} {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(o)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Render(&got, objs); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", name+".golden.yaml"), got.Bytes())
			roundTrip(t, got.Bytes(), o)
		})
	}
}

// roundTrip decodes the stream back into typed objects: every document is a
// known kind, and the properties the brief promises hold.
func roundTrip(t *testing.T, stream []byte, o Options) {
	t.Helper()
	docs := strings.Split(string(stream), "\n---\n")
	var kinds []string
	var lease string // the Lease the Deployment's watch elects on
	for _, doc := range docs {
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("decode %q: %v", doc, err)
		}
		kinds = append(kinds, gvk.Kind)
		switch obj := obj.(type) {
		case *rbacv1.ClusterRole:
			for _, r := range obj.Rules {
				for _, v := range r.Verbs {
					if v != "get" && v != "list" && v != "watch" {
						t.Errorf("ClusterRole grants %s on %v", v, r.Resources)
					}
				}
				for _, res := range r.Resources {
					if res == "secrets" || res == "*" {
						t.Errorf("ClusterRole grants %s", res)
					}
				}
			}
		case *rbacv1.Role:
			checkLeaseRules(t, obj.Rules, o.LeaseName())
		case *appsv1.Deployment:
			checkDeployment(t, obj, o)
			for _, a := range obj.Spec.Template.Spec.Containers[0].Args {
				if v, ok := strings.CutPrefix(a, "--leader-elect-lease-name="); ok {
					lease = v
				}
			}
		}
	}
	if lease != o.LeaseName() {
		t.Errorf("the watch elects on Lease %q, the Role grants %q", lease, o.LeaseName())
	}
	want := "Namespace ServiceAccount ClusterRole ClusterRoleBinding Role RoleBinding Service PodDisruptionBudget Deployment"
	if o.Namespace == "default" {
		// default exists and other workloads share it: not relabelled.
		want = strings.TrimPrefix(want, "Namespace ")
	}
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
}

// checkLeaseRules: the Role grants Leases only, every verb but create on the
// watch's own Lease by name (create cannot be named in RBAC), and nothing
// the Lease lock does not use.
func checkLeaseRules(t *testing.T, rules []rbacv1.PolicyRule, lease string) {
	t.Helper()
	verbs := map[string]bool{}
	for _, r := range rules {
		if strings.Join(r.APIGroups, ",") != "coordination.k8s.io" || strings.Join(r.Resources, ",") != "leases" {
			t.Errorf("Role grants %v in %v", r.Resources, r.APIGroups)
		}
		for _, v := range r.Verbs {
			verbs[v] = true
			switch {
			case v == "create" && len(r.ResourceNames) != 0:
				t.Errorf("create with resourceNames %v: RBAC never matches it", r.ResourceNames)
			case v != "create" && strings.Join(r.ResourceNames, ",") != lease:
				t.Errorf("%s on leases %v, want on %q alone", v, r.ResourceNames, lease)
			}
		}
	}
	if got := strings.Join(keys(verbs), ","); got != "create,get,update" {
		t.Errorf("Lease verbs %s, want create,get,update (what client-go's Lease lock uses)", got)
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func checkDeployment(t *testing.T, d *appsv1.Deployment, o Options) {
	t.Helper()
	spec := d.Spec.Template.Spec
	c := spec.Containers[0]
	sc := c.SecurityContext
	if sc == nil || !*sc.RunAsNonRoot || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation ||
		len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("container security context not hardened: %+v", sc)
	}
	if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("no memory request/limit: %+v", c.Resources)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe == nil {
		t.Errorf("probes missing")
	}
	port, _ := o.metricsPort()
	if c.Ports[0].ContainerPort != port {
		t.Errorf("metrics port %d, want %d", c.Ports[0].ContainerPort, port)
	}
	if spec.ServiceAccountName != o.Name {
		t.Errorf("service account %q", spec.ServiceAccountName)
	}
	args := strings.Join(c.Args, " ")
	if !strings.HasPrefix(args, "watch ") || !strings.Contains(args, "--metrics-addr="+o.MetricsAddr) {
		t.Errorf("args %q", args)
	}
	if (o.Source == "mcp") != strings.Contains(args, "--mcp-endpoint="+o.MCPEndpoint) {
		t.Errorf("args %q for source %s", args, o.Source)
	}
	var slack *corev1.EnvVar
	for i := range c.Env {
		if c.Env[i].Name == "SLACK_WEBHOOK_URL" {
			slack = &c.Env[i]
		}
	}
	if (o.SlackWebhookSecret != "") != (slack != nil) ||
		slack != nil && (slack.Value != "" || slack.ValueFrom.SecretKeyRef.Name != o.SlackWebhookSecret) {
		t.Errorf("SLACK_WEBHOOK_URL %+v for secret %q", slack, o.SlackWebhookSecret)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"ok", func(*Options) {}, ""},
		{"bad namespace", func(o *Options) { o.Namespace = "Triage_System" }, "invalid --namespace"},
		{"kube-system", func(o *Options) { o.Namespace = "kube-system" }, `refusing to install into system namespace "kube-system"`},
		{"kube-public", func(o *Options) { o.Namespace = "kube-public" }, `system namespace "kube-public"`},
		{"kube-node-lease", func(o *Options) { o.Namespace = "kube-node-lease" }, `system namespace "kube-node-lease"`},
		{"kube-system even when default is allowed", func(o *Options) { o.Namespace, o.AllowDefaultNamespace = "kube-system", true }, `system namespace "kube-system"`},
		{"default", func(o *Options) { o.Namespace = "default" }, "add --allow-default-namespace"},
		{"default allowed", func(o *Options) { o.Namespace, o.AllowDefaultNamespace = "default", true }, ""},
		{"a name that merely contains kube", func(o *Options) { o.Namespace = "my-kube-system" }, ""},
		{"replicas 0", func(o *Options) { o.Replicas = 0 }, "at least 1"},
		{"replicas without a store", func(o *Options) { o.Replicas = 2 }, "--replicas 2 needs --store"},
		{"bad source", func(o *Options) { o.Source = "kafka" }, `invalid --source "kafka"`},
		{"mcp without endpoint", func(o *Options) { o.Source = "mcp" }, "needs --mcp-endpoint"},
		{"mcp endpoint not a URL", func(o *Options) { o.Source, o.MCPEndpoint = "mcp", "kubernetes-mcp-server:8080" }, "needs --mcp-endpoint"},
		{"mcp endpoint with password", func(o *Options) { o.Source, o.MCPEndpoint = "mcp", "http://u:p@h/mcp" }, "must not carry credentials"},
		{"endpoint without mcp", func(o *Options) { o.MCPEndpoint = "http://h/mcp" }, "is for --source mcp"},
		{"external agent", func(o *Options) { o.Agent = "claude" }, "only builtin"},
		{"metrics addr without port", func(o *Options) { o.MetricsAddr = "9090" }, "invalid --metrics-addr"},
		{"metrics port 0", func(o *Options) { o.MetricsAddr = ":0" }, "1-65535"},
		{"bad secret name", func(o *Options) { o.SlackWebhookSecret = "Slack!" }, "invalid --slack-webhook-secret"},
		{"bad secret key", func(o *Options) { o.SlackWebhookSecret, o.SlackWebhookKey = "slack", "a/b" }, "invalid --slack-webhook-secret-key"},
		{"file store", func(o *Options) { o.Store = "file:///var/incidents" }, "invalid --store"},
		{"store with a SAS", func(o *Options) { o.Store = "azblob://c?sig=abc&sv=2024" }, "must not carry credentials"},
		{"store secret without store", func(o *Options) { o.StoreSecret = "azure" }, "--store-secret is for --store"},
		{"bad store secret", func(o *Options) { o.Store, o.StoreSecret = "s3://b", "Azure!" }, "invalid --store-secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.mod(&o)
			_, err := Objects(o)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestVersionLabel: a development version that is no valid label value is
// left out instead of producing manifests the API server rejects.
func TestVersionLabel(t *testing.T) {
	o := base()
	o.Version = "v0.0.0-abc+dirty"
	objs, err := Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		labels, _, _ := unstructuredLabels(m)
		if _, ok := labels["app.kubernetes.io/version"]; ok {
			t.Errorf("%T carries the invalid version label", obj)
		}
	}
}

func unstructuredLabels(m map[string]any) (map[string]any, bool, error) {
	md, _ := m["metadata"].(map[string]any)
	l, ok := md["labels"].(map[string]any)
	return l, ok, nil
}
