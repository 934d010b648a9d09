package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-triage/kubectl-triage/pkg/install"
	"github.com/kubectl-triage/kubectl-triage/pkg/version"
)

func runInstall(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("KUBECTL_TRIAGE_CONFIG", "")
	var out, errOut bytes.Buffer
	code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, append([]string{"install"}, args...))
	return code, out.String(), errOut.String()
}

// TestInstallArgsAreWatchFlags: the Deployment runs watch with flags the
// real watch command parses, for every source, so a pod never crash-loops
// on "unknown flag".
func TestInstallArgsAreWatchFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--print"},
		{"--print", "-n", "ops", "--source", "mcp", "--mcp-endpoint", "http://mcp.mcp:8080/mcp", "--slack-webhook-secret", "slack", "--metrics-addr", ":8443"},
	} {
		code, stdout, stderr := runInstall(t, args...)
		if code != 0 {
			t.Fatalf("install %v: exit %d: %s", args, code, stderr)
		}
		var d *appsv1.Deployment
		var granted []string // the Lease names the Role grants get and update on
		for _, doc := range strings.Split(stdout, "\n---\n") {
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if role, ok := obj.(*rbacv1.Role); ok {
				for _, r := range role.Rules {
					if slices.Contains(r.Verbs, "update") {
						granted = append(granted, r.ResourceNames...)
					}
				}
			}
			if dep, ok := obj.(*appsv1.Deployment); ok {
				d = dep
				if len(args) > 1 && dep.Namespace != "ops" {
					t.Errorf("-n ops: Deployment in %q", dep.Namespace)
				}
			}
		}
		if d == nil {
			t.Fatalf("no Deployment in:\n%s", stdout)
		}
		// The default image is the plugin's own version: the pod runs the
		// code that printed the manifests.
		if img := d.Spec.Template.Spec.Containers[0].Image; img != install.ImageRepository+":"+version.Version {
			t.Errorf("image %q, want %s:%s", img, install.ImageRepository, version.Version)
		}
		watchArgs := d.Spec.Template.Spec.Containers[0].Args
		root := NewCmdTriage(genericiooptions.NewTestIOStreamsDiscard())
		watch, rest, err := root.Find(watchArgs)
		if err != nil || watch.Name() != "watch" {
			t.Fatalf("args %v do not run watch: %v", watchArgs, err)
		}
		if err := watch.ParseFlags(rest); err != nil {
			t.Errorf("watch rejects the Deployment's args %v: %v", watchArgs, err)
		}
		// The Lease watch elects on is the one the Role lets it update.
		if f := watch.Flags().Lookup("leader-elect-lease-name"); f == nil || len(granted) != 1 || f.Value.String() != granted[0] {
			t.Errorf("watch elects on Lease %v, the Role grants update on %v", f, granted)
		}
	}
}

// TestInstallRefusesSharedNamespaces: kube-* namespaces, and default without
// --allow-default-namespace, get one line on stderr and nothing on stdout,
// so a pipe into kubectl apply applies nothing.
func TestInstallRefusesSharedNamespaces(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "kube-system"}, `error: refusing to install into system namespace "kube-system"`},
		{[]string{"-n", "kube-public"}, `system namespace "kube-public"`},
		{[]string{"-n", "kube-node-lease", "--allow-default-namespace"}, `system namespace "kube-node-lease"`},
		{[]string{"-n", "default"}, "--allow-default-namespace"},
	} {
		code, stdout, stderr := runInstall(t, append([]string{"--print"}, tc.args...)...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("install %v: exit %d, stdout %q, stderr %q; want exit 1, one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	code, stdout, stderr := runInstall(t, "--print", "-n", "default", "--allow-default-namespace")
	if code != 0 || strings.Contains(stdout, "kind: Namespace") || !strings.Contains(stdout, "namespace: default") {
		t.Errorf("-n default --allow-default-namespace: exit %d, stderr %q, manifests:\n%s", code, stderr, stdout)
	}
}

func TestInstallNeedsPrint(t *testing.T) {
	code, stdout, stderr := runInstall(t)
	if code == 0 || stdout != "" || !strings.Contains(stderr, "kubectl triage install --print | kubectl apply -f -") {
		t.Errorf("without --print: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Several replicas elect a leader: the manifests say so.
	code, stdout, stderr = runInstall(t, "--print", "--replicas", "2", "--store", "azblob://incidents")
	if code != 0 || !strings.Contains(stdout, "replicas: 2") || !strings.Contains(stdout, "- --leader-elect") {
		t.Errorf("--replicas 2: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// TestInstallIgnoresConfig: the user's config file and AGENT_CLI set the
// agent for their own runs, not for the manifests.
func TestInstallIgnoresConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "kubectl-triage"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kubectl-triage", "config.yaml"), []byte("agent: claude\nwatch:\n  metrics-addr: 127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENT_CLI", "codex")
	var out, errOut bytes.Buffer
	t.Setenv("XDG_CONFIG_HOME", dir)
	code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, []string{"install", "--print"})
	if code != 0 || !strings.Contains(out.String(), "--agent=builtin") || !strings.Contains(out.String(), "--metrics-addr=:9090") {
		t.Errorf("exit %d, stderr %s, manifests:\n%s", code, errOut.String(), out.String())
	}
}
