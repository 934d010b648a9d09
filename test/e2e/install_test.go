package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// applyInstall prints the manifests with the built plugin, creates them on
// the control plane with the admin identity (kubectl apply, as a user
// would) and returns the namespace and the ServiceAccount's user name.
func applyInstall(t *testing.T, c *testcluster.Cluster, extra ...string) (ns, user string) {
	t.Helper()
	ns = "triage-install-" + utilrand.String(5)
	args := append([]string{"install", "--print", "-n", ns}, extra...)
	code, manifests, stderr := runBinary(t, []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}, args...)
	if code != 0 {
		t.Fatalf("install --print: exit %d: %s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "install.yaml")
	if err := os.WriteFile(file, []byte(manifests), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Cluster-scoped objects outlive the namespace: remove everything.
		exec.Command(c.KubectlPath, "--kubeconfig", c.Kubeconfig, "delete", "--wait=false", "--ignore-not-found", "-f", file).Run()
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.KubectlPath, "--kubeconfig", c.Kubeconfig, "apply", "-f", file)
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(t.TempDir(), "cache"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	// The namespace enforces the restricted Pod Security Standard, and the
	// API server warns about a Deployment whose pods it would refuse.
	if bytes.Contains(out, []byte("Warning")) {
		t.Errorf("kubectl apply warns:\n%s", out)
	}
	for _, want := range []string{"namespace/" + ns, "serviceaccount/kubectl-triage", "clusterrole.rbac.authorization.k8s.io/kubectl-triage:" + ns,
		"clusterrolebinding.rbac.authorization.k8s.io/kubectl-triage:" + ns, "role.rbac.authorization.k8s.io/kubectl-triage-leases",
		"rolebinding.rbac.authorization.k8s.io/kubectl-triage-leases", "service/kubectl-triage-metrics",
		"poddisruptionbudget.policy/kubectl-triage", "deployment.apps/kubectl-triage"} {
		if !bytes.Contains(out, []byte(want+" created")) {
			t.Errorf("kubectl apply did not create %s:\n%s", want, out)
		}
	}
	d, err := c.Client.AppsV1().Deployments(ns).Get(ctx, "kubectl-triage", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the Deployment is not stored: %v", err)
	}
	if sc := d.Spec.Template.Spec.Containers[0].SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("stored Deployment lost its security context: %+v", sc)
	}
	return ns, "system:serviceaccount:" + ns + ":kubectl-triage"
}

// TestInstallManifests: the printed manifests are accepted by the API
// server, and the ServiceAccount they create may read what triage reads,
// may not read Secrets, and may write nothing but Leases in its namespace.
func TestInstallManifests(t *testing.T) {
	c := testcluster.Get(t)
	ns, user := applyInstall(t, c, "--source", "mcp", "--mcp-endpoint", "http://kubernetes-mcp-server.mcp:8080/mcp", "--slack-webhook-secret", "slack")
	other := c.Namespace(t)
	ctx := context.Background()
	for _, tc := range []struct {
		verb, group, resource, sub, ns string
		allowed                        bool
	}{
		{"list", "", "pods", "", "", true},
		{"watch", "", "pods", "", other, true},
		{"get", "", "pods", "log", other, true},
		{"list", "", "events", "", "", true},
		{"list", "events.k8s.io", "events", "", "", true},
		{"list", "", "nodes", "", "", true},
		{"get", "", "persistentvolumes", "", "", true},
		{"list", "storage.k8s.io", "storageclasses", "", "", true},
		{"list", "networking.k8s.io", "ingressclasses", "", "", true},
		{"watch", "apps", "deployments", "", "", true},
		{"list", "batch", "jobs", "", other, true},
		{"get", "", "secrets", "", other, false},
		{"get", "", "secrets", "", ns, false},
		{"list", "", "secrets", "", "", false},
		{"create", "", "pods", "", other, false},
		{"delete", "", "pods", "", other, false},
		{"create", "", "pods", "exec", other, false},
		{"update", "apps", "deployments", "", ns, false},
		{"patch", "", "nodes", "", "", false},
		{"delete", "", "namespaces", "", "", false},
		{"create", "", "events", "", ns, false},
		{"create", "coordination.k8s.io", "leases", "", ns, true},
		{"update", "coordination.k8s.io", "leases", "", ns, false}, // no name: not every Lease
		{"delete", "coordination.k8s.io", "leases", "", ns, false},
		{"list", "coordination.k8s.io", "leases", "", ns, false},
		{"watch", "coordination.k8s.io", "leases", "", ns, false},
		{"create", "coordination.k8s.io", "leases", "", other, false},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               user,
			Groups:             saGroups(ns),
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: tc.verb, Group: tc.group, Resource: tc.resource, Subresource: tc.sub, Namespace: tc.ns},
		}}
		res, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.Allowed != tc.allowed {
			t.Errorf("%s %s %s/%s in %q: allowed=%v, want %v (%s)", user, tc.verb, tc.resource, tc.sub, tc.ns, res.Status.Allowed, tc.allowed, res.Status.Reason)
		}
	}
}

func saGroups(ns string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
}

// leaseOf is the Lease the installed Deployment's watch elects on.
func leaseOf(t *testing.T, c *testcluster.Cluster, ns string) string {
	t.Helper()
	d, err := c.Client.AppsV1().Deployments(ns).Get(context.Background(), "kubectl-triage", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range d.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--leader-elect-lease-name="); ok {
			return v
		}
	}
	t.Fatalf("the Deployment names no Lease: %q", d.Spec.Template.Spec.Containers[0].Args)
	return ""
}

// TestInstallLeaseRole: the installed ServiceAccount may get and update the
// Lease its watch elects on, and create Leases, but may not read or take
// over any other Lease of its namespace (as a controller-manager's or a
// scheduler's leader Lease in kube-system would be): checked by the API
// server's RBAC authorizer, with the ServiceAccount impersonated, and by
// the real watch electing itself leader with the ServiceAccount's token.
func TestInstallLeaseRole(t *testing.T) {
	c := testcluster.Get(t)
	ns, user := applyInstall(t, c)
	lease := leaseOf(t, c, ns)
	ctx := context.Background()
	// Another component's leader Lease beside the watch's.
	foreign := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "kube-controller-manager", Namespace: ns},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("controller-manager-0"), LeaseDurationSeconds: ptr(int32(15))}}
	if _, err := c.Client.CoordinationV1().Leases(ns).Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		verb, name string
		allowed    bool
	}{
		{"get", lease, true}, {"update", lease, true}, {"create", "", true},
		{"patch", lease, false}, {"delete", lease, false},
		{"get", "kube-controller-manager", false}, {"update", "kube-controller-manager", false},
		{"patch", "kube-scheduler", false}, {"delete", "kube-scheduler", false},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: saGroups(ns),
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: tc.verb, Group: "coordination.k8s.io", Resource: "leases", Name: tc.name, Namespace: ns}}}
		res, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.Allowed != tc.allowed {
			t.Errorf("%s leases/%s in %s: allowed=%v, want %v (%s)", tc.verb, tc.name, ns, res.Status.Allowed, tc.allowed, res.Status.Reason)
		}
	}

	// The same requests made as the ServiceAccount.
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: saGroups(ns)}
	as, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	leases := as.CoordinationV1().Leases(ns)
	own, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: lease}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("e2e")}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create its own Lease: %v", err)
	}
	own.Spec.HolderIdentity = ptr("e2e-2")
	if _, err := leases.Update(ctx, own, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update its own Lease: %v", err)
	}
	if _, err := leases.Get(ctx, "kube-controller-manager", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("get another Lease: %v, want forbidden", err)
	}
	foreign, err = c.Client.CoordinationV1().Leases(ns).Get(ctx, "kube-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	foreign.Spec.HolderIdentity = ptr("kubectl-triage")
	if _, err := leases.Update(ctx, foreign, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("update another Lease: %v, want forbidden", err)
	}
	if err := c.Client.CoordinationV1().Leases(ns).Delete(ctx, lease, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// The watch itself, as the Deployment runs it, with the ServiceAccount's
	// token: it creates its Lease and leads with these rights alone.
	tok, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "kubectl-triage", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.Config.CAData}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	kc.Contexts["sa"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "sa", Namespace: ns}
	kc.CurrentContext = "sa"
	saKubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, saKubeconfig); err != nil {
		t.Fatal(err)
	}
	w, _ := startReplica(t, c, filepath.Join(t.TempDir(), "incidents"), ns, "--kubeconfig", saKubeconfig, "--leader-elect-lease-name", lease)
	rec := w.logged(t, "leader election: leading", time.Minute)
	if rec["lease"] != ns+"/"+lease {
		t.Errorf("leading on %v, want %s/%s", rec["lease"], ns, lease)
	}
	got, err := c.Client.CoordinationV1().Leases(ns).Get(ctx, lease, metav1.GetOptions{})
	if err != nil || got.Spec.HolderIdentity == nil || *got.Spec.HolderIdentity != rec["identity"] {
		t.Errorf("Lease %s after the watch leads: %+v, %v", lease, got, err)
	}
	if f, err := c.Client.CoordinationV1().Leases(ns).Get(ctx, "kube-controller-manager", metav1.GetOptions{}); err != nil || *f.Spec.HolderIdentity != "controller-manager-0" {
		t.Errorf("the other Lease changed: %+v, %v", f, err)
	}
}

// TestInstallRefusesKubeSystem: `install --print -n kube-system | kubectl
// apply -f -`, as a user would type it, prints nothing, says why in one
// line, and leaves kube-system as it was: no label changed, no role made.
func TestInstallRefusesKubeSystem(t *testing.T) {
	c := testcluster.Get(t)
	ctx := context.Background()
	before, err := c.Client.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, manifests, stderr := runBinary(t, []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}, "install", "--print", "-n", "kube-system")
	if code != 1 || manifests != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, `refusing to install into system namespace "kube-system"`) {
		t.Errorf("install --print -n kube-system: exit %d, stdout (%d bytes) %.200q, stderr %q; want exit 1, nothing printed, one line", code, len(manifests), manifests, stderr)
	}
	apply := exec.CommandContext(ctx, c.KubectlPath, "--kubeconfig", c.Kubeconfig, "apply", "-f", "-")
	apply.Stdin = strings.NewReader(manifests)
	apply.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(t.TempDir(), "cache"))
	if out, err := apply.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("no objects passed to apply")) {
		t.Errorf("kubectl apply of the refused output: %v\n%s", err, out)
	}
	after, err := c.Client.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion || after.Labels["pod-security.kubernetes.io/enforce"] != before.Labels["pod-security.kubernetes.io/enforce"] {
		t.Errorf("kube-system changed: labels %v, were %v", after.Labels, before.Labels)
	}
	if _, err := c.Client.RbacV1().Roles("kube-system").Get(ctx, "kubectl-triage-leases", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Role was made in kube-system: %v", err)
	}
	if _, err := c.Client.RbacV1().ClusterRoles().Get(ctx, "kubectl-triage:kube-system", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a ClusterRole was made for kube-system: %v", err)
	}
}

// TestInClusterConfig: with no kubeconfig anywhere and a ServiceAccount
// mounted where client-go looks for it (/var/run/secrets/…, faked in a
// private mount namespace), one-shot triage and watch reach the API server
// as the installed ServiceAccount, and with its rights alone do their job.
func TestInClusterConfig(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount the fake service-account directory in a private mount namespace")
	}
	if out, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs tmpfs /run").CombinedOutput(); err != nil {
		t.Skipf("cannot mount in a private mount namespace here: %v %s", err, out)
	}
	c := testcluster.Get(t)
	ns, user := applyInstall(t, c)
	work := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, work)

	ctx := context.Background()
	tok, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "kubectl-triage", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sa := t.TempDir()
	for name, data := range map[string][]byte{"token": []byte(tok.Status.Token), "ca.crt": c.Config.CAData, "namespace": []byte(ns)} {
		if err := os.WriteFile(filepath.Join(sa, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	host, port, ok := strings.Cut(strings.TrimPrefix(c.Server, "https://"), ":")
	if !ok {
		t.Fatalf("server %q", c.Server)
	}
	home := t.TempDir()
	// Only the pod's environment: no KUBECONFIG, an empty HOME.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"KUBERNETES_SERVICE_HOST=" + host, "KUBERNETES_SERVICE_PORT=" + port}
	inPod := func(args ...string) (int, string, string) {
		t.Helper()
		// /run is a fresh tmpfs in the private namespace only: the host's
		// /run/secrets is never touched.
		script := `set -e; mount -t tmpfs tmpfs /run; d=/var/run/secrets/kubernetes.io/serviceaccount; mkdir -p $d; cp "$SA"/* $d/; exec "$@"`
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, "unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh", pluginBinary(t)}, args...)...)
		cmd.Env = append(env, "SA="+sa)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String(), errOut.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errOut.String()
	}

	mark := c.AuditMark()
	code, stdout, stderr := inPod("pod/api", "-n", work, "--workspace-root", filepath.Join(home, "incidents"))
	if code != 0 {
		t.Fatalf("one-shot triage in the pod: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "DATABASE_URL") {
		t.Errorf("the report does not name the cause:\n%s", stdout)
	}

	// Cluster-wide, as the Deployment runs it: its access check covers
	// every namespace and the nodes. The crash-looping pod above guarantees
	// at least one existing fault (another test's may come first).
	code, stdout, stderr = inPod("watch", "--source", "cluster", "--include-existing", "--max-incidents", "1",
		"-o", "json", "--log-format", "json", "--workspace-root", filepath.Join(home, "watch"))
	if code != 0 || !strings.Contains(stdout, `"name":`) {
		t.Fatalf("watch in the pod: exit %d, stdout %s\nstderr %s", code, stdout, stderr)
	}

	// The requests came from the ServiceAccount, so from the in-cluster
	// config (there is no other credential), and all were reads.
	events := c.AuditSince(t, mark, user)
	if len(events) == 0 {
		t.Fatalf("no request by %s in the audit log: the in-cluster config was not used", user)
	}
	for _, e := range events {
		switch e.Verb {
		case "get", "list", "watch":
		default:
			if e.Resource != "selfsubjectaccessreviews" && e.Resource != "selfsubjectrulesreviews" {
				t.Errorf("write by %s: %s %s", user, e.Verb, e.RequestURI)
			}
		}
		if e.Code == 403 {
			t.Errorf("the installed role lacks a right triage needs: %s %s forbidden", e.Verb, e.RequestURI)
		}
	}
}

// TestInPodWithoutToken: in a pod (KUBERNETES_SERVICE_HOST set) with no
// kubeconfig and no mounted token, the error says what to change in the
// pod, not only where a kubeconfig was looked for.
func TestInPodWithoutToken(t *testing.T) {
	if _, err := os.Stat("/var/run/secrets/kubernetes.io/serviceaccount/token"); err == nil {
		t.Skip("this host runs in a pod with a mounted token")
	}
	home := t.TempDir()
	code, stdout, stderr := runBinary(t, []string{"KUBECONFIG=", "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT=1"}, "pod/api", "-n", "default")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "no ServiceAccount token mounted") || !strings.Contains(stderr, "automountServiceAccountToken") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
