// Package testcluster runs a real kube-apiserver backed by a real etcd on
// loopback for tests, with no kubelet, scheduler or controllers. It writes
// what those would (default ServiceAccounts, aggregated ClusterRoles, a Ready
// Node, pod statuses, Deployment -> ReplicaSet -> Pod chains) and serves
// container logs from an in-process fake kubelet, so `kubectl logs` and
// anything built on client-go work end to end through the real API server.
//
// Every request is recorded in the apiserver's audit log, which tests use to
// count the requests made by the code under test (see AuditSince).
//
// Typical use, one cluster per test package:
//
//	func TestMain(m *testing.M) { os.Exit(testcluster.Main(m)) }
//
//	func TestX(t *testing.T) {
//		c := testcluster.Get(t)
//		ns := c.Namespace(t)
//		...
//	}
//
// Binaries come from $KUBECTL_TRIAGE_TESTBIN or hack/testbin.sh.
package testcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/proc"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// AdminName is the user of Cluster.Kubeconfig / Cluster.Config.
	AdminName = "admin"
	// UserName is the user of Cluster.UserKubeconfig, meant for the code
	// under test.
	UserName = "triage-user"
	// NodeName is the fake Node that pods are bound to by default.
	NodeName = "fake-node"

	startAttempts = 3
)

// Options tweak Start. The zero value is fine.
type Options struct {
	// AuditLog is accepted for readability only: Start always enables the
	// audit log, because AuditSince depends on it and it costs next to
	// nothing with level Metadata.
	AuditLog bool
	// ExtraAPIServerFlags are appended to the kube-apiserver command line
	// (later flags win), e.g. "--v=4".
	ExtraAPIServerFlags []string
	// Dir, if set, is used instead of a fresh temporary directory. It must
	// not exist or be empty, because Stop removes it.
	Dir string
}

// Cluster is a running etcd + kube-apiserver + fake kubelet.
type Cluster struct {
	Dir            string // temp dir holding pki, etcd data, logs, kubeconfigs
	Server         string // https://127.0.0.1:PORT
	Kubeconfig     string // admin kubeconfig (user "admin", system:masters), context "harness"
	UserKubeconfig string // kubeconfig for the code under test (user "triage-user", system:masters), context "triage"
	UserName       string // "triage-user"
	Config         *rest.Config
	Client         kubernetes.Interface
	Dynamic        dynamic.Interface
	NodeName       string // "fake-node"
	KubectlPath    string
	BinDir         string

	// AuditLogPath is the apiserver's JSON-lines audit log.
	AuditLogPath string
	// APIServerLogPath and EtcdLogPath hold the processes' output.
	APIServerLogPath string
	EtcdLogPath      string

	etcdPort  int
	pki       *creds
	etcd      *proc.Process
	apiserver *proc.Process
	kubelet   *fakeKubelet
	mapper    *restmapper.DeferredDiscoveryRESTMapper
	stopOnce  sync.Once
}

// Start starts etcd, kube-apiserver and the fake kubelet and creates the
// objects the missing controllers would. If a child fails to bind its port
// (another test process took it between picking and binding), it starts over
// with new ports, up to three times. On error nothing is left running.
// ctx bounds the startup only; the cluster runs until Stop.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	binDir, err := findBinDir()
	if err != nil {
		return nil, fmt.Errorf("find binaries: %w", err)
	}
	if opts.Dir != "" {
		entries, err := os.ReadDir(opts.Dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read dir: %w", err)
		}
		if len(entries) > 0 {
			return nil, fmt.Errorf("dir %s is not empty (Stop would delete it)", opts.Dir)
		}
	}
	for attempt := 1; ; attempt++ {
		c, err := start(ctx, opts, binDir)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, proc.ErrAddrInUse) || attempt == startAttempts {
			return nil, err
		}
		if opts.Dir != "" {
			// Only our files are in it (it was empty), and with
			// KUBECTL_TRIAGE_KEEP=1 the failed attempt's state is still there.
			if err := os.RemoveAll(opts.Dir); err != nil {
				return nil, fmt.Errorf("clean dir for retry: %w", err)
			}
		}
	}
}

func start(ctx context.Context, opts Options, binDir string) (_ *Cluster, err error) {
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "testcluster-"); err != nil {
			return nil, fmt.Errorf("create dir: %w", err)
		}
	} else if err = os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create dir: %w", err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	c := &Cluster{
		Dir:              dir,
		Kubeconfig:       filepath.Join(dir, "admin.kubeconfig"),
		UserKubeconfig:   filepath.Join(dir, "kubeconfig"),
		UserName:         UserName,
		NodeName:         NodeName,
		KubectlPath:      filepath.Join(binDir, "kubectl"),
		BinDir:           binDir,
		AuditLogPath:     filepath.Join(dir, "audit.log"),
		APIServerLogPath: filepath.Join(dir, "kube-apiserver.log"),
		EtcdLogPath:      filepath.Join(dir, "etcd.log"),
	}
	// Whatever happens below, a failed start leaves no process behind.
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	if c.pki, err = genPKI(filepath.Join(dir, "pki")); err != nil {
		return nil, fmt.Errorf("generate pki: %w", err)
	}
	if c.kubelet, err = startFakeKubelet(c.pki.kubeletTLS, filepath.Join(dir, "fake-kubelet.log")); err != nil {
		return nil, fmt.Errorf("start fake kubelet: %w", err)
	}

	ports, err := freePorts(3)
	if err != nil {
		return nil, fmt.Errorf("pick ports: %w", err)
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]
	c.Server = fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	c.etcdPort = etcdClient

	if err = c.startEtcd(ctx, etcdClient, etcdPeer); err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	if err = c.startAPIServer(ctx, etcdClient, apiPort, opts.ExtraAPIServerFlags); err != nil {
		return nil, fmt.Errorf("start kube-apiserver: %w", err)
	}
	if err = c.writeKubeconfigs(); err != nil {
		return nil, fmt.Errorf("write kubeconfigs: %w", err)
	}
	if err = c.initClients(); err != nil {
		return nil, fmt.Errorf("build clients: %w", err)
	}
	if err = c.kubelet.waitHealthy(); err != nil {
		return nil, fmt.Errorf("fake kubelet: %w", err)
	}
	if err = c.bootstrap(ctx); err != nil {
		return nil, fmt.Errorf("bootstrap objects: %w%s", err, c.logTails())
	}
	return c, nil
}

// stopTimeout bounds the graceful part of stopping a process; the data is
// thrown away anyway, so there is no point in waiting longer.
const stopTimeout = 5 * time.Second

// ServiceCIDR is the control plane's Service cluster IP range: room for
// every scenario's Services in one shared cluster (a /24 ran out as the
// corpus grew; the repair loop then reported ClusterIPNotAllocated on live
// Services).
const ServiceCIDR = "10.0.0.0/16"

// Stop stops the apiserver, etcd and the fake kubelet (SIGTERM, SIGKILL
// after a bound), waits for them, and removes Dir unless
// KUBECTL_TRIAGE_KEEP=1. Safe to call more than once and on a half-started
// cluster.
func (c *Cluster) Stop() {
	if c == nil {
		return
	}
	c.stopOnce.Do(func() {
		// apiserver first: it talks to the other two.
		c.apiserver.Stop(stopTimeout)
		c.etcd.Stop(stopTimeout)
		c.kubelet.stop()
		if os.Getenv(EnvKeep) == "1" {
			fmt.Fprintf(os.Stderr, "testcluster: %s=1, keeping %s\n", EnvKeep, c.Dir)
			return
		}
		if c.Dir != "" {
			_ = os.RemoveAll(c.Dir)
		}
	})
}

// freePorts asks the kernel for n distinct free loopback ports. They are
// released before the children bind them, so a parallel test process may
// grab one in between; Start retries in that case.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		// Deferred close keeps all n open at once, so they are distinct.
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

var (
	noFsyncMu    sync.Mutex
	noFsyncCache = map[string]bool{}
)

// etcdSupportsNoFsync reports whether this etcd has --unsafe-no-fsync (3.5+).
// Skipping fsync makes every write several times faster, and durability is
// irrelevant for a cluster thrown away after the tests.
func etcdSupportsNoFsync(bin string) bool {
	noFsyncMu.Lock()
	defer noFsyncMu.Unlock()
	if v, ok := noFsyncCache[bin]; ok {
		return v
	}
	out, _ := exec.Command(bin, "--help").CombinedOutput()
	v := strings.Contains(string(out), "--unsafe-no-fsync")
	noFsyncCache[bin] = v
	return v
}

func (c *Cluster) startEtcd(ctx context.Context, clientPort, peerPort int) error {
	dataDir := filepath.Join(c.Dir, "etcd-data")
	if err := os.Mkdir(dataDir, 0o700); err != nil { // etcd warns unless 0700
		return err
	}
	bin := filepath.Join(c.BinDir, "etcd")
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	args := []string{
		"--name=testcluster",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=testcluster=" + peerURL,
		"--logger=zap",
		"--log-level=warn",
		// A lone member on loopback has no peers to miss heartbeats; short
		// timings get it elected in ~50 ms instead of ~700 ms.
		"--heartbeat-interval=10",
		"--election-timeout=100",
	}
	if etcdSupportsNoFsync(bin) {
		args = append(args, "--unsafe-no-fsync")
	}
	p, err := proc.Start("etcd", bin, c.EtcdLogPath, args)
	if err != nil {
		return err
	}
	c.etcd = p

	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	return proc.WaitFor(ctx, 30*time.Second, p, "etcd /health", func() bool {
		resp, err := client.Get(clientURL + "/health")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"health":"true"`)
	})
}

func (c *Cluster) startAPIServer(ctx context.Context, etcdPort, port int, extra []string) error {
	p := c.pki
	args := []string{
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", etcdPort),
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--advertise-address=127.0.0.1",
		"--cert-dir=" + filepath.Dir(p.ServingCert),
		"--tls-cert-file=" + p.ServingCert,
		"--tls-private-key-file=" + p.ServingKey,
		"--client-ca-file=" + p.CACertFile,
		"--token-auth-file=" + p.TokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.SAPub,
		"--service-account-signing-key-file=" + p.SAKey,
		"--service-cluster-ip-range=" + ServiceCIDR,
		// Otherwise it logs an error every 10 s: the "kubernetes" Endpoints
		// may not point at a loopback address.
		"--endpoint-reconciler-type=none",
		// pods/log dials this Node address type: the fake Node has only an
		// InternalIP (127.0.0.1), where the fake kubelet listens. With no
		// --kubelet-certificate-authority the kubelet cert is not verified.
		"--kubelet-preferred-address-types=InternalIP",
		"--profiling=false",
		// Blocking mode: the event is on disk before the response is sent,
		// so AuditSince right after a call sees it.
		"--audit-policy-file=" + p.auditPolicy,
		"--audit-log-path=" + c.AuditLogPath,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		// 0 would mean lumberjack's default of 100 MB, after which the file
		// is rotated and AuditMark offsets become meaningless.
		"--audit-log-maxsize=1000000",
	}
	args = append(args, extra...)
	apiserver, err := proc.Start("kube-apiserver", filepath.Join(c.BinDir, "kube-apiserver"), c.APIServerLogPath, args)
	if err != nil {
		return err
	}
	c.apiserver = apiserver

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.CACert)
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	defer client.CloseIdleConnections()
	get := func(path string) bool {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Server+path, nil)
		if err != nil {
			return false
		}
		req.Header.Set("Authorization", "Bearer "+p.adminToken)
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode == http.StatusOK
	}
	// /readyz turns 200 only after every post-start hook ran, including
	// rbac/bootstrap-roles; the default namespace is created asynchronously
	// right after, so wait for it too.
	if err := proc.WaitFor(ctx, 90*time.Second, apiserver, "/readyz", func() bool { return get("/readyz") }); err != nil {
		return err
	}
	if err := proc.WaitFor(ctx, 30*time.Second, apiserver, "namespace default", func() bool { return get("/api/v1/namespaces/default") }); err != nil {
		return err
	}
	return nil
}

// logTails formats the end of both logs for error messages.
func (c *Cluster) logTails() string {
	return fmt.Sprintf("\n--- last lines of %s:\n%s\n--- last lines of %s:\n%s",
		c.APIServerLogPath, proc.LogTail(c.APIServerLogPath, 20), c.EtcdLogPath, proc.LogTail(c.EtcdLogPath, 10))
}

func (c *Cluster) writeKubeconfigs() error {
	write := func(path, context, user, token string) error {
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["testcluster"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.pki.CACert}
		cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
		cfg.Contexts[context] = &clientcmdapi.Context{Cluster: "testcluster", AuthInfo: user, Namespace: "default"}
		cfg.CurrentContext = context
		return clientcmd.WriteToFile(*cfg, path)
	}
	if err := write(c.Kubeconfig, "harness", AdminName, c.pki.adminToken); err != nil {
		return err
	}
	return write(c.UserKubeconfig, "triage", UserName, c.pki.userToken)
}

func (c *Cluster) initClients() error {
	c.Config = &rest.Config{
		Host:            c.Server,
		BearerToken:     c.pki.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.pki.CACert},
		// Negative QPS disables client-side throttling: tests create
		// objects in bursts and the default 5 QPS would dominate run time.
		QPS:       -1,
		UserAgent: "testcluster",
	}
	var err error
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		return err
	}
	if c.Dynamic, err = dynamic.NewForConfig(c.Config); err != nil {
		return err
	}
	c.mapper = newMapper(c.Client)
	return nil
}

// UserConfig returns a rest.Config for the triage-user identity (what the
// code under test should use), so its requests show up under UserName in
// the audit log.
func (c *Cluster) UserConfig() *rest.Config {
	cfg := rest.CopyConfig(c.Config)
	cfg.BearerToken = c.pki.userToken
	cfg.UserAgent = ""
	return cfg
}
