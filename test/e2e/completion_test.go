package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// completeIn runs `kubectl triage __complete ARGS…` in-process as the test
// user and returns the candidates (without descriptions) and the directive.
func completeIn(t *testing.T, c *testcluster.Cluster, cache string, args ...string) ([]string, string) {
	t.Helper()
	full := append([]string{"__complete", "--kubeconfig", c.UserKubeconfig, "--cache-dir", cache}, args...)
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if code := cmd.Run(ctx, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, full); code != 0 {
		t.Fatalf("__complete %q: exit %d\n%s", args, code, errOut.String())
	}
	return parseCompletions(out.String())
}

// parseCompletions splits cobra's __complete answer: candidate lines (with
// "\tdescription" removed) and the ":N" directive line.
func parseCompletions(out string) ([]string, string) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var names []string
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t")
		names = append(names, name)
	}
	return names, lines[len(lines)-1]
}

// completionObjects makes pods api-0, api-1 and web-0, a deployment
// checkout and a secret in a fresh namespace.
func completionObjects(t *testing.T, c *testcluster.Cluster) string {
	t.Helper()
	ns := c.Namespace(t)
	for _, name := range []string{"api-0", "api-1", "web-0"} {
		c.CreatePod(t, simplePod(name, func(p *corev1.Pod) { p.Namespace = ns }))
	}
	labels := map[string]string{"app": "checkout"}
	c.Create(t, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
			},
		},
	})
	c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-credentials", Namespace: ns}, StringData: map[string]string{"password": "x"}})
	return ns
}

// `kubectl triage <TAB>` against the real API server: resource types and
// pod names for the first word, names of the type after TYPE/ or TYPE, in
// the namespace given by -n; reads only, and never of Secrets.
func TestCompletionFromTheCluster(t *testing.T) {
	c := testcluster.Get(t)
	ns := completionObjects(t, c)
	cache := filepath.Join(t.TempDir(), "cache")
	mark := c.AuditMark()

	for _, tt := range []struct {
		name    string
		args    []string
		want    []string
		notWant []string
		only    bool // exactly want, in order
	}{
		{"first word: subcommands, types and pods", []string{"-n", ns, ""},
			[]string{"list", "show", "pods", "deployments", "nodes", "api-0", "api-1", "web-0"}, []string{"secrets", "events", "checkout", "pods/log"}, false},
		{"first word with a prefix", []string{"-n", ns, "api"}, []string{"api-0", "api-1", "apiservices"}, []string{"web-0", "pods"}, false},
		{"--namespace=NS form", []string{"--namespace=" + ns, "w"}, []string{"web-0"}, []string{"api-0"}, false},
		{"TYPE/", []string{"-n", ns, "pod/"}, []string{"pod/api-0", "pod/api-1", "pod/web-0"}, nil, true},
		{"short name TYPE/ prefix", []string{"-n", ns, "po/api-"}, []string{"po/api-0", "po/api-1"}, nil, true},
		{"TYPE NAME", []string{"-n", ns, "deploy", ""}, []string{"checkout"}, nil, true},
		{"kind.group/", []string{"-n", ns, "deployments.apps/ch"}, []string{"deployments.apps/checkout"}, nil, true},
		{"cluster-scoped type", []string{"-n", ns, "nodes", ""}, []string{testcluster.NodeName}, nil, false},
		{"another namespace", []string{"-n", "kube-system", "pod/"}, nil, []string{"pod/api-0"}, false},
		{"secrets are never listed", []string{"-n", ns, "secret/"}, nil, nil, true},
		{"unknown type", []string{"-n", ns, "nosuchtype/"}, nil, nil, true},
		{"no second resource", []string{"-n", ns, "pod/api-0", ""}, nil, nil, true},
		{"namespaces for -n", []string{"-n", ns[:len(ns)-2]}, []string{ns}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := completeIn(t, c, cache, tt.args...)
			if directive != ":4" {
				t.Errorf("directive %s, want :4 (no file completion)", directive)
			}
			if tt.only && !slices.Equal(got, tt.want) {
				t.Errorf("completions %q, want exactly %q", got, tt.want)
			}
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q missing from %q", w, got)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(got, w) {
					t.Errorf("%q offered: %q", w, got)
				}
			}
		})
	}

	for _, ev := range c.AuditSince(t, mark, c.UserName) {
		if ev.Verb != "get" && ev.Verb != "list" {
			t.Errorf("completion made a %s request: %s", ev.Verb, ev.RequestURI)
		}
		if ev.Resource == "secrets" {
			t.Errorf("completion read Secrets: %s", ev.RequestURI)
		}
	}
}

// Through the real kubectl (1.26+) the way users TAB: kubectl finds
// kubectl_complete-triage on PATH and relays what the plugin answers.
func TestCompletionThroughKubectl(t *testing.T) {
	c := testcluster.Get(t)
	ns := completionObjects(t, c)

	bin := t.TempDir()
	if err := os.Symlink(pluginBinary(t), filepath.Join(bin, "kubectl-triage")); err != nil {
		t.Fatal(err)
	}
	helper, err := os.ReadFile(filepath.Join("..", "..", "plugins", "completion", "kubectl_complete-triage"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "kubectl_complete-triage"), helper, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(c.Env(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir())

	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"tri"}, []string{"triage"}},
		{[]string{"triage", "-n", ns, ""}, []string{"api-0", "web-0", "deployments", "list"}},
		{[]string{"triage", "-n", ns, "deploy/"}, []string{"deploy/checkout"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		k := exec.CommandContext(ctx, c.KubectlPath, append([]string{"__complete"}, tt.args...)...)
		k.Env = env
		var out, errOut bytes.Buffer
		k.Stdout, k.Stderr = &out, &errOut
		err := k.Run()
		cancel()
		if err != nil {
			t.Fatalf("kubectl __complete %q: %v\n%s", tt.args, err, errOut.String())
		}
		got, _ := parseCompletions(out.String())
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("kubectl __complete %q: %q missing from %q", tt.args, w, got)
			}
		}
	}
}
