// Package realnode runs a real single-node cluster for the real-node test
// tier: etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
// containerd and a kubelet, inside a network and a mount namespace the
// harness creates, with offline images (Debian's busybox-static and a tiny
// pause binary) imported into containerd. The faults it produces come from
// the real components, not from statuses written by hand.
//
// It needs root, Debian's containerd, runc, busybox-static and
// containernetworking-plugins, and kubelet/kube-scheduler/
// kube-controller-manager beside the API server in the test binary cache
// (`make testbin`). Unavailable says what is missing.
//
// The process model: Main (from TestMain) or the realnode command re-runs
// the same binary under `unshare --net --mount` (Isolate); the child starts
// the node (Start) and runs the tests; the parent, after the child ends in
// any way, kills whatever is left in the node's network namespace by PID,
// restores the sysctls the kubelet changed, removes its cgroups and the
// mount points it created.
package realnode

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/pki"
	"github.com/kubectl-triage/kubectl-triage/test/proc"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	// NodeName is the real node's name.
	NodeName = "realnode"
	// NodeIP is the node's address, on a veth inside its network namespace.
	NodeIP      = "10.99.0.1"
	KubeletPort = 10250
	apiPort     = 6443
)

// EnvTestBin is the directory of the version-keyed binary cache.
const EnvTestBin = "KUBECTL_TRIAGE_TESTBIN"

// EnvKeep=1 keeps the node's directory (logs, configs) after Stop.
const EnvKeep = "KUBECTL_TRIAGE_KEEP"

var nodeBinaries = []string{"etcd", "kube-apiserver", "kubectl", "kubelet", "kube-scheduler", "kube-controller-manager"}

// Node is a running real node and its control plane.
type Node struct {
	Dir              string
	BinDir           string
	Server           string // https://127.0.0.1:6443, inside the namespace
	NodeIP           string
	ContainerdSocket string
	// AdminKubeconfig is the harness's identity, UserKubeconfig the one
	// for the code under test.
	AdminKubeconfig string
	UserKubeconfig  string
	KubectlPath     string
	Client          kubernetes.Interface

	// Times of the bring-up, for make bench.
	StartedIn time.Duration

	pki      *pki.Files
	procs    []*proc.Process // in start order
	mounts   []string
	stopOnce sync.Once
}

// FindBinDir returns the cache directory holding every binary the node
// needs, or an error naming the first one missing.
func FindBinDir() (string, error) {
	dir := os.Getenv(EnvTestBin)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		cmd := exec.Command("bash", filepath.Join(root, "hack", "testbin.sh"))
		cmd.Env = append(os.Environ(), "TESTBIN_NODE=1")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("hack/testbin.sh: %w", err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		dir = lines[len(lines)-1]
	}
	for _, b := range nodeBinaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("%s missing in %s (run `make testbin` as root with containerd installed, or TESTBIN_NODE=1 hack/testbin.sh)", b, dir)
		}
	}
	return filepath.Abs(dir)
}

// Start brings the node up in the current process's namespaces, which must
// be private ones (see Isolate). ctx bounds the bring-up only. On error
// nothing it started is left running.
func Start(ctx context.Context, dir, binDir string) (_ *Node, err error) {
	t0 := time.Now()
	n := &Node{
		Dir: dir, BinDir: binDir, NodeIP: NodeIP,
		Server: fmt.Sprintf("https://127.0.0.1:%d", apiPort),
		// Inside the private bind mount of /run/containerd: cadvisor looks
		// for containerd at its default socket for container stats.
		ContainerdSocket: "/run/containerd/containerd.sock",
		KubectlPath:      filepath.Join(binDir, "kubectl"),
	}
	defer func() {
		if err != nil {
			n.Stop()
		}
	}()
	for _, d := range []string{"logs", "cni", "kubelet", "containerd", "host/run-containerd", "host/var-lib-kubelet", "host/var-log-pods", "host/var-log-containers", "host/var-lib-cni"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := setupNetwork(); err != nil {
		return nil, fmt.Errorf("set up the network namespace: %w", err)
	}
	if err := n.bindHostPaths(); err != nil {
		return nil, err
	}
	if n.pki, err = genPKI(filepath.Join(dir, "pki"), net.ParseIP(NodeIP)); err != nil {
		return nil, fmt.Errorf("generate pki: %w", err)
	}

	// containerd and the images first: they take the longest and need
	// nothing from the control plane.
	imagesDone := make(chan error, 1)
	if err := n.startContainerd(ctx); err != nil {
		return nil, err
	}
	go func() { imagesDone <- n.importImages(ctx) }()

	if err := n.startEtcd(ctx); err != nil {
		return nil, err
	}
	if err := n.startAPIServer(ctx); err != nil {
		return nil, err
	}
	if n.AdminKubeconfig, err = n.kubeconfig("admin"); err != nil {
		return nil, err
	}
	if n.UserKubeconfig, err = n.kubeconfig("triage-user"); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", n.AdminKubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	if n.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if err := n.startControllers(ctx); err != nil {
		return nil, err
	}
	if err := <-imagesDone; err != nil {
		return nil, fmt.Errorf("import images: %w", err)
	}
	if err := n.startKubelet(ctx); err != nil {
		return nil, err
	}
	n.StartedIn = time.Since(t0)
	return n, nil
}

// setupNetwork brings loopback up and puts the node's address on one end of
// a veth pair (this kernel has no dummy interfaces), with the default route
// through it: nothing routes out of the namespace.
func setupNetwork() error {
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", "rn0", "type", "veth", "peer", "name", "rn1"},
		{"addr", "add", NodeIP + "/24", "dev", "rn0"},
		{"link", "set", "rn0", "up"},
		{"link", "set", "rn1", "up"},
		{"route", "add", "default", "dev", "rn0"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// bindHostPaths mounts the node's own directories over the fixed host paths,
// in the private mount namespace.
func (n *Node) bindHostPaths() error {
	if err := syscall.Mount("", "/", "", syscall.MS_SLAVE|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	for _, p := range hostPaths {
		src := filepath.Join(n.Dir, "host", strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "-"))
		if err := syscall.Mount(src, p, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s over %s: %w", src, p, err)
		}
		n.mounts = append(n.mounts, p)
	}
	return nil
}

func (n *Node) start(name string, args ...string) (*proc.Process, error) {
	bin := name
	if _, err := os.Stat(filepath.Join(n.BinDir, name)); err == nil {
		bin = filepath.Join(n.BinDir, name)
	}
	p, err := proc.Start(name, bin, filepath.Join(n.Dir, "logs", name+".log"), args)
	if err != nil {
		return nil, err
	}
	n.procs = append(n.procs, p)
	return p, nil
}

func (n *Node) startContainerd(ctx context.Context) error {
	cfg := filepath.Join(n.Dir, "containerd.toml")
	if err := os.WriteFile(cfg, []byte(n.containerdConfig()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(n.Dir, "cni", "10-realnode.conflist"), []byte(cniConfig), 0o644); err != nil {
		return err
	}
	if err := n.registryHosts(); err != nil {
		return err
	}
	p, err := n.start("containerd", "--config", cfg)
	if err != nil {
		return err
	}
	return proc.WaitFor(ctx, 30*time.Second, p, "containerd", func() bool {
		return exec.Command("ctr", "--address", n.ContainerdSocket, "version").Run() == nil
	})
}

func (n *Node) importImages(ctx context.Context) error {
	pause, err := buildPause(n.Dir)
	if err != nil {
		return err
	}
	tarPath := filepath.Join(n.Dir, "images.tar")
	if err := buildImages(tarPath, pause); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "ctr", "--address", n.ContainerdSocket, "-n", "k8s.io", "images", "import", tarPath).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ctr images import: %w: %s", err, out)
	}
	return nil
}

func (n *Node) startEtcd(ctx context.Context) error {
	data := filepath.Join(n.Dir, "etcd")
	if err := os.Mkdir(data, 0o700); err != nil {
		return err
	}
	p, err := n.start("etcd", "--name=realnode", "--data-dir="+data,
		"--listen-client-urls=http://127.0.0.1:2379", "--advertise-client-urls=http://127.0.0.1:2379",
		"--listen-peer-urls=http://127.0.0.1:2380", "--initial-advertise-peer-urls=http://127.0.0.1:2380",
		"--initial-cluster=realnode=http://127.0.0.1:2380", "--log-level=warn",
		"--heartbeat-interval=10", "--election-timeout=100", "--unsafe-no-fsync")
	if err != nil {
		return err
	}
	return proc.WaitFor(ctx, 30*time.Second, p, "etcd health", func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:2379", time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

func (n *Node) startAPIServer(ctx context.Context) error {
	p := n.pki
	apiserver, err := n.start("kube-apiserver",
		"--etcd-servers=http://127.0.0.1:2379",
		"--bind-address=0.0.0.0", fmt.Sprintf("--secure-port=%d", apiPort), "--advertise-address="+NodeIP,
		"--cert-dir="+filepath.Join(n.Dir, "pki"),
		"--tls-cert-file="+p.ServingCert, "--tls-private-key-file="+p.ServingKey,
		"--client-ca-file="+p.CACertFile, "--token-auth-file="+p.TokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+p.SAPub, "--service-account-signing-key-file="+p.SAKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
		"--kubelet-preferred-address-types=InternalIP",
		"--profiling=false")
	if err != nil {
		return err
	}
	return proc.WaitFor(ctx, 90*time.Second, apiserver, "kube-apiserver /readyz", func() bool {
		out, err := exec.Command(n.KubectlPath, "--server", n.Server, "--token", p.Tokens["admin"],
			"--certificate-authority", p.CACertFile, "get", "--raw", "/readyz").CombinedOutput()
		return err == nil && strings.TrimSpace(string(out)) == "ok"
	})
}

func (n *Node) startControllers(ctx context.Context) error {
	kcm, err := n.kubeconfig("kube-controller-manager")
	if err != nil {
		return err
	}
	sched, err := n.kubeconfig("kube-scheduler")
	if err != nil {
		return err
	}
	p, err := n.start("kube-controller-manager", "--kubeconfig="+kcm,
		"--authentication-kubeconfig="+kcm, "--authorization-kubeconfig="+kcm,
		"--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=10257",
		"--service-account-private-key-file="+n.pki.SAKey, "--root-ca-file="+n.pki.CACertFile,
		"--use-service-account-credentials=false", "--cluster-name=realnode",
		"--profiling=false")
	if err != nil {
		return err
	}
	if _, err = n.start("kube-scheduler", "--kubeconfig="+sched,
		"--authentication-kubeconfig="+sched, "--authorization-kubeconfig="+sched,
		"--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=10259", "--profiling=false"); err != nil {
		return err
	}
	// The controllers run once the default ServiceAccount exists: pods
	// are refused until then.
	return proc.WaitFor(ctx, time.Minute, p, "the default ServiceAccount", func() bool {
		_, err := n.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
}

func (n *Node) startKubelet(ctx context.Context) error {
	cfg := filepath.Join(n.Dir, "kubelet.yaml")
	if err := os.WriteFile(cfg, []byte(n.kubeletConfig()), 0o644); err != nil {
		return err
	}
	kc, err := n.kubeconfig("kubelet")
	if err != nil {
		return err
	}
	p, err := n.start("kubelet", "--config="+cfg, "--kubeconfig="+kc,
		"--root-dir="+filepath.Join(n.Dir, "kubelet"), "--cert-dir="+filepath.Join(n.Dir, "kubelet", "pki"),
		"--hostname-override="+NodeName, "--node-ip="+NodeIP, "--v=1")
	if err != nil {
		return err
	}
	return proc.WaitFor(ctx, 2*time.Minute, p, "node Ready", func() bool {
		node, err := n.Client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	})
}

// Stop stops the components in reverse start order (kubelet first, etcd
// last), kills what is left in the network namespace and unmounts. Safe on
// a half-started node and more than once.
func (n *Node) Stop() {
	if n == nil {
		return
	}
	n.stopOnce.Do(func() {
		for i := len(n.procs) - 1; i >= 0; i-- {
			n.procs[i].Stop(10 * time.Second)
		}
		if self, err := os.Readlink("/proc/self/ns/net"); err == nil {
			_ = killNetns(self)
		}
		for i := len(n.mounts) - 1; i >= 0; i-- {
			_ = syscall.Unmount(n.mounts[i], syscall.MNT_DETACH)
		}
		unmountUnder(n.Dir)
	})
}

// unmountUnder detaches whatever the kubelet and containerd mounted below
// dir (secret tmpfs, overlay rootfs, shm), deepest first.
func unmountUnder(dir string) {
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return
	}
	var under []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			under = append(under, f[1])
		}
	}
	for i := len(under) - 1; i >= 0; i-- {
		_ = syscall.Unmount(under[i], syscall.MNT_DETACH)
	}
}

// LogsDir holds every component's log.
func (n *Node) LogsDir() string { return filepath.Join(n.Dir, "logs") }
