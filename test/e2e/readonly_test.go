package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// hostileAgent is a fake `claude` that tries everything a prompt-injected
// agent would: writes, exec, Secret reads through the gateway, the user's
// kubeconfig and environment. Then it lists pods and reads logs (which must
// work) and reports.
const hostileAgent = `#!/bin/sh
echo '{"type":"system","subtype":"init"}'
try() { echo "TRY $*" >> output/attempts.log; kubectl "$@" >> output/attempts.log 2>&1 && echo "ALLOWED $*" >> output/attempts.log; }
try delete pod api
try create configmap injected --from-literal=a=b
try label pod api pwned=true
try scale deploy/web --replicas=0
try exec api -- sh
try get secrets
try get secret db -o yaml
try get all,secrets
try --kubeconfig "$HOME/.kube/config" get secrets
cat "$HOME/.kube/config" >> output/attempts.log 2>&1
env >> output/attempts.log
ln -s /etc/passwd output/artifacts/escape-link
kubectl get pods > output/artifacts/pods.txt 2>&1 || echo "LIST FAILED" >> output/attempts.log
kubectl logs api -c app --previous > output/artifacts/logs.txt 2>&1 || echo "LOGS FAILED" >> output/attempts.log
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"# Triage: Pod/api\n## Summary\nmissing env\n## Root cause\n**DATABASE_URL is empty** (confident, 0.8)\n"}'
`

func TestHostileAgentThroughGateway(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web"})
	if _, err := c.Client.CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db"}, StringData: map[string]string{"password": "hostile-planted-secret"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env, root, bin := agentEnvBin(t, c, "claude", hostileAgent)
	if err := os.Symlink(c.KubectlPath, filepath.Join(bin, "kubectl")); err != nil {
		t.Fatal(err)
	}
	env = append(env, "AWS_SECRET_ACCESS_KEY=user-planted-aws")
	mark := c.AuditMark()
	code, stdout, stderr := runWith(t, env, "pod/api", "-n", ns, "--agent", "claude")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dir := onlyWorkspace(t, root)
	assertWorkspace(t, dir, incident.Resolved)
	attempts, _ := os.ReadFile(filepath.Join(dir, "output", "attempts.log"))
	if strings.Contains(string(attempts), "ALLOWED") {
		t.Errorf("a hostile attempt succeeded:\n%s", attempts)
	}
	for _, leak := range []string{"hostile-planted-secret", "user-planted-aws", c.UserKubeconfig, "harness"} {
		if strings.Contains(string(attempts), leak) {
			t.Errorf("the agent saw %q", leak)
		}
	}
	if strings.Contains(string(attempts), "LIST FAILED") || strings.Contains(string(attempts), "LOGS FAILED") {
		t.Errorf("reads through the gateway failed:\n%s", attempts)
	}
	pods, _ := os.ReadFile(filepath.Join(dir, "output", "artifacts", "pods.txt"))
	if !strings.Contains(string(pods), "api") {
		t.Errorf("the agent could not list pods through the gateway: %s", pods)
	}
	logs, _ := os.ReadFile(filepath.Join(dir, "output", "artifacts", "logs.txt"))
	if !strings.Contains(string(logs), "DATABASE_URL") {
		t.Errorf("the agent could not read logs through the gateway: %s", logs)
	}
	// The symlink out of the workspace is rejected, the real files catalogued.
	var cat struct {
		Artifacts []struct{ Path string }
		Rejected  []struct{ Path, Reason string }
	}
	data, _ := os.ReadFile(filepath.Join(dir, "output", "artifacts.json"))
	if err := json.Unmarshal(data, &cat); err != nil {
		t.Fatalf("artifacts.json: %v", err)
	}
	if len(cat.Rejected) != 1 || !strings.HasSuffix(cat.Rejected[0].Path, "escape-link") || !strings.Contains(stderr, "escape-link rejected") {
		t.Errorf("symlink artifact not rejected: %+v\n%s", cat, stderr)
	}
	if len(cat.Artifacts) != 2 {
		t.Errorf("want pods.txt and logs.txt catalogued: %+v", cat.Artifacts)
	}
	// Every denied attempt is in audit.jsonl; the footer counts them.
	denied := 0
	f, err := os.Open(filepath.Join(dir, "output", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct{ Allowed bool }
		json.Unmarshal(sc.Bytes(), &e)
		if !e.Allowed {
			denied++
		}
	}
	f.Close()
	if denied < 7 {
		t.Errorf("audit.jsonl lists %d denials, want every refused attempt (≥7)", denied)
	}
	if !strings.Contains(stdout, "through the read-only gateway") || !strings.Contains(stdout, "were denied") {
		t.Errorf("report footer lacks the gateway counts:\n%s", stdout)
	}
	// Nothing changed in the cluster; no Secret was read.
	for _, e := range c.AuditSince(t, mark, c.UserName) {
		if e.Verb != "get" && e.Verb != "list" && e.Verb != "watch" {
			t.Errorf("mutation reached the API server: %s %s", e.Verb, e.RequestURI)
		}
		if e.Resource == "secrets" {
			t.Errorf("secret read reached the API server: %s", e.RequestURI)
		}
	}
	if _, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), "api", metav1.GetOptions{}); err != nil {
		t.Errorf("pod api is gone: %v", err)
	}
	// The workspace holds no credential of the user's.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		for _, s := range []string{"hostile-planted-secret", "user-planted-aws"} {
			if strings.Contains(string(data), s) {
				t.Errorf("%s contains %q", p, s)
			}
		}
		return nil
	})
}

// viewOnlyKubeconfig is a ServiceAccount bound to the built-in view role.
func viewOnlyKubeconfig(t *testing.T, c *testcluster.Cluster, ns string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "reader-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "reader", Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "reader", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.Config.CAData}
	cfg.AuthInfos["reader"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["reader"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "reader", Namespace: ns}
	cfg.CurrentContext = "reader"
	path := filepath.Join(t.TempDir(), "reader.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	// The RBAC authorizer learns of the binding through a watch.
	rc, _ := clientcmd.BuildConfigFromFlags("", path)
	wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kubernetesFor(rc).CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	return path
}

func TestCheckCredentials(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)

	r := triage(t, c, ns, "pod/api", "--check-credentials")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: your credentials can write") {
		t.Errorf("cluster-admin must be warned about: exit %d\n%s", r.code, r.stderr)
	}
	r = triage(t, c, ns, "pod/api", "--require-readonly-credentials")
	if r.code != 1 || !strings.Contains(r.stderr, "refusing to run") {
		t.Errorf("--require-readonly-credentials must refuse a writer: exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(r.root); len(entries) != 0 {
		t.Errorf("a refused run created a workspace")
	}
	reader := viewOnlyKubeconfig(t, c, ns)
	// A read-only agent identity is not enough: the evidence is still
	// collected with the user's own, which can write.
	r = triage(t, c, ns, "pod/api", "--agent-kubeconfig", reader, "--require-readonly-credentials")
	if r.code != 1 || !strings.Contains(r.stderr, "which collect the evidence) can write") {
		t.Errorf("a writer collecting the evidence must be refused: exit %d\n%s", r.code, r.stderr)
	}
	r = triage(t, c, ns, "pod/api", "--kubeconfig", reader, "--agent-kubeconfig", reader, "--require-readonly-credentials")
	if r.code != 0 || !strings.Contains(r.stderr, "the --agent-kubeconfig credentials cannot write") || !strings.Contains(r.stderr, "which collect the evidence) cannot write") {
		t.Errorf("view-only identities for both pass the check: exit %d\n%s", r.code, r.stderr)
	}
}

func kubernetesFor(cfg *rest.Config) kubernetes.Interface { return kubernetes.NewForConfigOrDie(cfg) }
