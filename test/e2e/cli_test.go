package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// runBinary runs the built plugin as a user would and returns its exit code.
func runBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(pluginBinary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = append(os.Environ(), env...)
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errOut.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errOut.String()
	}
	t.Fatalf("run plugin: %v", err)
	return -1, "", ""
}

// TestBinaryAsAUser: the built binary against the control plane prints the
// report on stdout with exit 0, and a missing pod is a one-line error, exit 1.
func TestBinaryAsAUser(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns) // pod/api crash-looping on a missing env var
	root := t.TempDir()
	env := []string{"KUBECONFIG=" + c.UserKubeconfig, "WORKSPACE_ROOT=" + root, "HOME=" + t.TempDir()}

	code, stdout, stderr := runBinary(t, env, "pod/api", "-n", ns)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "# Triage: Pod/api") || !strings.Contains(stdout, "DATABASE_URL") {
		t.Errorf("report on stdout does not name the cause:\n%s", stdout)
	}
	if strings.Contains(stdout, "Collected") || !strings.Contains(stderr, "Collected") {
		t.Errorf("progress belongs on stderr only")
	}

	code, stdout, stderr = runBinary(t, env, "nosuch", "-n", ns)
	if code != 1 {
		t.Errorf("nosuch: exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if stdout != "" || !strings.HasPrefix(last, "error: ") || !strings.Contains(last, `"nosuch" not found in namespace "`+ns+`"`) || !strings.Contains(last, "kubectl get") {
		t.Errorf("nosuch: want a one-line actionable error, got stdout %q stderr %q", stdout, stderr)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("a failed lookup must not create a workspace: %d entries in the root", len(entries))
	}
}

func TestErrors(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	forbidden := restrictedKubeconfig(t, c, ns)
	tests := []struct {
		name string
		args []string
		ns   string
		want []string
	}{
		{"missing pod says which namespace", []string{"pod/ghost"}, ns, []string{`"ghost" not found in namespace "` + ns + `"`, "kubectl get pods -n " + ns}},
		{"unknown type", []string{"frobnicator/x"}, ns, []string{`unknown resource type "frobnicator"`, "kubectl api-resources"}},
		{"more than one target", []string{"pod/a", "pod/b"}, ns, []string{"exactly one resource"}},
		{"no target", nil, ns, []string{"you must name one resource"}},
		{"unknown agent", []string{"pod/a", "--agent", "nope"}, ns, []string{`unknown agent "nope"`, "builtin"}},
		{"cluster unreachable", []string{"pod/a", "--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify"}, ns, []string{"cannot reach the cluster at https://127.0.0.1:1", "connection refused"}},
		{"forbidden", []string{"pod/a", "--kubeconfig", forbidden}, ns, []string{"forbidden", "read access"}},
		{"secret target", []string{"secret/db"}, ns, []string{"never reads Secrets", `uses "db"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := triage(t, c, tt.ns, tt.args...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout must stay empty on error: %q", r.stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if _, err := os.Stat(r.root); !os.IsNotExist(err) {
				entries, _ := os.ReadDir(r.root)
				if len(entries) > 0 {
					t.Errorf("error before an incident exists left %d workspace(s)", len(entries))
				}
			}
		})
	}
}

// restrictedKubeconfig is an identity with no permissions at all: a
// ServiceAccount token without any binding.
func restrictedKubeconfig(t *testing.T, c *testcluster.Cluster, ns string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "nobody", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.Config.CAData}
	cfg.AuthInfos["nobody"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["nobody"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "nobody", Namespace: ns}
	cfg.CurrentContext = "nobody"
	path := filepath.Join(t.TempDir(), "nobody.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNoSecretInWorkspace plants credentials in env and logs and checks no
// workspace file contains them.
func TestNoSecretInWorkspace(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	c.SetLogs(ns, "api", "app", true, "connecting with postgres://app:s3cr3t-planted-pw@db:5432/shop\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlLXBsYW50ZWQ\nFATAL config: required env DATABASE_URL is empty\n")
	r := triage(t, c, ns, "pod/api")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	dir := onlyWorkspace(t, r.root)
	planted := []string{"hunter2-planted-secret", "s3cr3t-planted-pw", "c2lnbmF0dXJlLXBsYW50ZWQ"}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range planted {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s contains planted secret %q", path, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range planted {
		if strings.Contains(r.stdout, s) {
			t.Errorf("report contains planted secret %q", s)
		}
	}
	// The evidence still says which variable was involved.
	data, _ := os.ReadFile(filepath.Join(dir, "context", "resources", "pod-api.json"))
	if !strings.Contains(string(data), "DB_PASSWORD") {
		t.Errorf("redaction removed the variable's name, which is evidence")
	}
}

// TestAgentTimeout: an agent that runs out of time ends the incident failed
// with reason timeout, agent state timeout, and exit code 5.
func TestAgentTimeout(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	r := triage(t, c, ns, "pod/api", "--timeout", "1ns")
	if r.code != 5 {
		t.Fatalf("exit %d, want 5 (timeout); stderr %s", r.code, r.stderr)
	}
	dir := onlyWorkspace(t, r.root)
	inc := assertWorkspace(t, dir, incident.Failed)
	if inc.FailureReason != incident.ReasonTimeout || inc.Agent.State != incident.AgentTimeout || inc.CompletedAt == nil {
		t.Errorf("incident after timeout: reason %q state %q completed %v", inc.FailureReason, inc.Agent.State, inc.CompletedAt)
	}
	if r.stdout != "" {
		t.Errorf("no report may be printed for a failed incident: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "timeout") || !strings.Contains(r.stderr, dir) {
		t.Errorf("stderr should say it timed out and where the workspace is: %q", r.stderr)
	}
}
