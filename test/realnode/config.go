package realnode

import (
	"fmt"
	"os"
	"path/filepath"
)

// containerdConfig: cgroupfs (the kubelet's driver), own root/state/socket,
// restrict_oom_score_adj because the VM lacks CAP_SYS_RESOURCE (without it
// every sandbox fails with "can't get final child's PID from pipe: EOF"),
// and the offline pause image as the sandbox image.
func (n *Node) containerdConfig() string {
	d := n.Dir
	return fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[6]q

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = %[4]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/%[7]s"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = %[9]q
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[8]q
    conf_dir = %[5]q
`, filepath.Join(d, "containerd", "root"), filepath.Join(d, "containerd", "state"), n.ContainerdSocket,
		filepath.Join(d, "containerd", "opt"), filepath.Join(d, "cni"), n.ContainerdSocket+".ttrpc", PauseImage, cniPluginDir,
		filepath.Join(d, "certs.d"))
}

// RegistryAddr is where a test may serve a registry over plain HTTP (on the
// node's address, inside its namespace); containerd is told so in
// certs.d/RegistryAddr/hosts.toml.
const RegistryAddr = NodeIP + ":5000"

func (n *Node) registryHosts() error {
	dir := filepath.Join(n.Dir, "certs.d", RegistryAddr)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "hosts.toml"), []byte(fmt.Sprintf(`server = "http://%[1]s"

[host."http://%[1]s"]
  capabilities = ["pull", "resolve"]
`, RegistryAddr)), 0o644)
}

// cniConfig is loopback only: the fault pods use the node's network
// (hostNetwork), and containerd 1.6 reports the network ready once a
// configuration exists.
const cniConfig = `{"cniVersion": "1.0.0", "name": "realnode", "plugins": [{"type": "loopback"}]}
`

// kubeletConfig: cgroupfs, no swap or cgroup v1 refusal, anonymous
// AlwaysAllow on the node's private address (the API server reads logs
// through it), eviction and image GC that leave the test disk and the
// imported images alone.
func (n *Node) kubeletConfig() string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[1]s
port: %[2]d
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
cgroupDriver: cgroupfs
failSwapOn: false
failCgroupV1: false
containerRuntimeEndpoint: unix://%[3]s
podLogsDir: /var/log/pods
resolvConf: ""
protectKernelDefaults: false
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: "50Mi"
  nodefs.available: "1%%"
  nodefs.inodesFree: "1%%"
  imagefs.available: "1%%"
nodeStatusUpdateFrequency: 4s
syncFrequency: 10s
fileCheckFrequency: 10s
volumeStatsAggPeriod: 1m
maxPods: 60
`, n.NodeIP, KubeletPort, n.ContainerdSocket)
}

// kubeconfig writes a kubeconfig for one of the static-token identities.
func (n *Node) kubeconfig(user string) (string, error) {
	path := filepath.Join(n.Dir, user+".kubeconfig")
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: realnode
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: realnode
  context:
    cluster: realnode
    user: %s
    namespace: default
current-context: realnode
`, n.Server, n.pki.CACertFile, user, n.pki.Tokens[user], user)
	return path, os.WriteFile(path, []byte(data), 0o600)
}
