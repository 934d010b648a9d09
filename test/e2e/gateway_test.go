package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-triage/kubectl-triage/pkg/gateway"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// kubectlVia runs the real kubectl with the gateway's kubeconfig.
func kubectlVia(t *testing.T, c *testcluster.Cluster, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(c.KubectlPath, args...)
	cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + t.TempDir(), "KUBECACHEDIR=" + filepath.Join(t.TempDir(), "cache"), "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestGatewayWithRealKubectl drives the real kubectl through the gateway
// while the identity behind it is cluster-admin: reads work, every write,
// exec, port-forward, proxy and Secret read is refused by the gateway, and
// the API server's own audit log shows not one mutation and not one Secret
// read.
func TestGatewayWithRealKubectl(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web"})
	if _, err := c.Client.CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db"}, StringData: map[string]string{"password": "gateway-planted-secret"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	auditPath := filepath.Join(dir, "audit.jsonl")
	gw, err := gateway.Start(c.UserConfig(), auditPath) // cluster-admin behind it
	if err != nil {
		t.Fatal(err)
	}
	kc, err := gw.Kubeconfig(ns)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	os.WriteFile(kubeconfig, kc, 0o600)
	if strings.Contains(string(kc), c.Server) {
		t.Fatalf("the agent's kubeconfig names the real API server")
	}
	manifest := filepath.Join(dir, "cm.yaml")
	os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: injected\ndata:\n  a: b\n"), 0o600)

	mark := c.AuditMark()
	allowed := [][]string{
		{"get", "pods"},
		{"get", "pod", "api", "-o", "yaml"},
		{"logs", "api", "-c", "app", "--previous"},
		{"get", "events"},
		{"describe", "pod", "api"},
		{"get", "deploy,rs"},
		{"get", "all"},
		{"auth", "can-i", "list", "pods"},
		{"api-resources", "--verbs=list", "-o", "name"},
		{"version"},
	}
	for _, args := range allowed {
		if out, err := kubectlVia(t, c, kubeconfig, args...); err != nil {
			t.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	denied := []struct {
		args []string
		want string
	}{
		{[]string{"create", "configmap", "x", "--from-literal=a=b"}, "read-only"},
		{[]string{"apply", "-f", manifest}, "read-only"},
		{[]string{"delete", "pod", "api"}, "read-only"},
		{[]string{"patch", "pod", "api", "-p", `{"metadata":{"labels":{"x":"y"}}}`}, "read-only"},
		{[]string{"scale", "deploy/web", "--replicas=0"}, "read-only"},
		{[]string{"label", "pod", "api", "x=y"}, "read-only"},
		{[]string{"annotate", "pod", "api", "x=y"}, "read-only"},
		{[]string{"exec", "api", "--", "sh"}, "not available"},
		{[]string{"port-forward", "pod/api", "18080:80"}, "not available"},
		{[]string{"cp", "api:/etc/passwd", filepath.Join(dir, "passwd")}, "not available"},
		{[]string{"get", "--raw", "/api/v1/namespaces/" + ns + "/services/web:80/proxy/"}, "not available"},
		{[]string{"get", "secrets"}, gateway.SecretMessage},
		{[]string{"get", "secret", "db", "-o", "yaml"}, gateway.SecretMessage},
		{[]string{"get", "all,secrets"}, gateway.SecretMessage},
		{[]string{"get", "secrets", "-A"}, gateway.SecretMessage},
		{[]string{"create", "token", "default"}, "not available"},
	}
	for _, d := range denied {
		out, err := kubectlVia(t, c, kubeconfig, d.args...)
		if err == nil {
			t.Errorf("kubectl %s succeeded through the gateway:\n%s", strings.Join(d.args, " "), out)
		} else if !strings.Contains(out, d.want) {
			t.Errorf("kubectl %s: refusal does not say %q:\n%s", strings.Join(d.args, " "), d.want, out)
		}
	}
	// A request without the token gets nothing.
	for _, token := range []string{"", "wrong-token"} {
		cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
		if err != nil {
			t.Fatal(err)
		}
		cfg.BearerToken = token
		cs := kubernetes.NewForConfigOrDie(cfg)
		if _, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
			t.Errorf("token %q: want 401, got %v", token, err)
		}
	}
	if err := gw.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if out, err := kubectlVia(t, c, kubeconfig, "get", "pods", "--request-timeout=2s"); err == nil {
		t.Errorf("the gateway still answers after Stop:\n%s", out)
	}

	for _, e := range c.AuditSince(t, mark, c.UserName) {
		if e.Verb != "get" && e.Verb != "list" && e.Verb != "watch" && !strings.Contains(e.RequestURI, "selfsubject") {
			t.Errorf("a mutation reached the API server: %s %s", e.Verb, e.RequestURI)
		}
		if e.Resource == "secrets" {
			t.Errorf("a Secret read reached the API server: %s %s", e.Verb, e.RequestURI)
		}
	}
	// Every refusal is in the gateway's audit trail.
	f, err := os.Open(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	deniedLines, total := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct {
			Allowed bool   `json:"allowed"`
			Code    int    `json:"code"`
			Verb    string `json:"verb"`
			Reason  string `json:"reason"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line is not JSON: %s", sc.Text())
		}
		total++
		if !e.Allowed {
			deniedLines++
			if e.Reason == "" || (e.Code != 403 && e.Code != 401) {
				t.Errorf("denied audit line without reason/code: %s", sc.Text())
			}
		}
	}
	if deniedLines < len(denied) {
		t.Errorf("audit.jsonl lists %d denials, want at least %d", deniedLines, len(denied))
	}
	if gotTotal, gotDenied := gw.Counts(); gotTotal != total || gotDenied != deniedLines {
		t.Errorf("counts %d/%d differ from the audit log %d/%d", gotTotal, gotDenied, total, deniedLines)
	}
	// The secret's value never left the API server.
	data, _ := os.ReadFile(auditPath)
	if strings.Contains(string(data), "gateway-planted-secret") {
		t.Errorf("secret value in the audit log")
	}
}
