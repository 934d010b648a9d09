package realnode

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The node runs in namespaces of its own: a network namespace (the node's
// address on a veth pair there; no packet leaves it) and a mount namespace
// whose mounts never propagate to the host. What the kubelet and containerd
// insist on writing at fixed host paths is bind-mounted from the node's
// directory inside that mount namespace, so the host paths stay untouched;
// only the empty mount points the host lacked are created, and removed again.
// What cannot be namespaced (kernel sysctls, cgroups) is saved before and
// restored after, by the parent process, whatever way the child ended.

// hostPaths are the fixed paths the kubelet, containerd and the CNI plugins
// write to, whatever their configuration says.
var hostPaths = []string{
	"/run/containerd",     // containerd 1.6 shim sockets (/run/containerd/s)
	"/var/lib/kubelet",    // a few kubelet paths ignore --root-dir
	"/var/log/pods",       // container logs
	"/var/log/containers", // the kubelet's symlinks to them
	"/var/lib/cni",        // libcni's result cache
}

// sysctls the kubelet sets on start (setupKernelTunables) and never resets.
var sysctls = []string{
	"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes",
}

// binaries the tier needs from the host (Debian: containerd, runc,
// busybox-static, containernetworking-plugins, util-linux, iproute2).
var hostBinaries = []string{"containerd", "containerd-shim-runc-v2", "ctr", "runc", "unshare", "ip", "mount"}

const (
	busyboxPath  = "/bin/busybox"
	cniPluginDir = "/usr/lib/cni"
)

// Unavailable says why the real-node tier cannot run here, or "" if it can.
func Unavailable() string {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, b := range hostBinaries {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if out, err := exec.Command(busyboxPath, "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "BusyBox") {
		missing = append(missing, busyboxPath+" (busybox-static)")
	}
	if _, err := os.Stat(filepath.Join(cniPluginDir, "loopback")); err != nil {
		missing = append(missing, cniPluginDir+"/loopback (containernetworking-plugins)")
	}
	if len(missing) > 0 {
		return "needs " + strings.Join(missing, ", ")
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods"); len(m) > 0 {
		return "a kubelet already runs on this host (" + m[0] + " exists)"
	}
	if _, err := os.Stat("/sys/fs/cgroup/kubepods"); err == nil {
		return "a kubelet already runs on this host (/sys/fs/cgroup/kubepods exists)"
	}
	return ""
}

// hostState is what the parent saves before the node starts and puts back
// after it is gone.
type hostState struct {
	sysctls map[string]string
	created []string        // mount points that did not exist
	mounts  map[string]bool // the host's mount points before
}

func mountPoints() map[string]bool {
	out := map[string]bool{}
	data, _ := os.ReadFile("/proc/self/mounts")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			out[f[1]] = true
		}
	}
	return out
}

func saveHost() (*hostState, error) {
	h := &hostState{sysctls: map[string]string{}, mounts: mountPoints()}
	for _, s := range sysctls {
		data, err := os.ReadFile("/proc/sys/" + s)
		if err != nil {
			continue // absent on this kernel: the kubelet will not set it either
		}
		h.sysctls[s] = strings.TrimSpace(string(data))
	}
	for _, p := range hostPaths {
		if _, err := os.Lstat(p); err == nil {
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return h, err
		}
		// Record the topmost missing ancestor, so restore removes all it made.
		top := p
		for parent := filepath.Dir(top); parent != "/"; parent = filepath.Dir(parent) {
			if _, err := os.Lstat(parent); err == nil {
				break
			}
			top = parent
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return h, fmt.Errorf("create mount point %s: %w", p, err)
		}
		h.created = append(h.created, top)
	}
	return h, nil
}

// restore puts the sysctls back, removes the kubelet's cgroups and the
// mount points it created. It reports what it could not restore.
func (h *hostState) restore() error {
	var errs []error
	for s, v := range h.sysctls {
		cur, _ := os.ReadFile("/proc/sys/" + s)
		if strings.TrimSpace(string(cur)) == v {
			continue
		}
		if err := os.WriteFile("/proc/sys/"+s, []byte(v), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restore sysctl %s=%s: %w", s, v, err))
		}
	}
	if err := removeCgroups(); err != nil {
		errs = append(errs, err)
	}
	for _, p := range h.created {
		// Only empty directories are removed: the bind mounts were private
		// to the node's mount namespace, so nothing was written here.
		if err := removeEmptyTree(p); err != nil {
			errs = append(errs, fmt.Errorf("remove mount point %s: %w", p, err))
		}
	}
	errs = append(errs, h.verify())
	return errors.Join(errs...)
}

// verify checks that the host is as it was: the saved sysctls, no kubepods
// cgroup, no mount left by the node in this (the host's) mount namespace,
// none of the mount points it created.
func (h *hostState) verify() error {
	var errs []error
	for s, v := range h.sysctls {
		cur, _ := os.ReadFile("/proc/sys/" + s)
		if got := strings.TrimSpace(string(cur)); got != v {
			errs = append(errs, fmt.Errorf("sysctl %s is %s, was %s", s, got, v))
		}
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods"); len(m) > 0 {
		errs = append(errs, fmt.Errorf("cgroup %s is left", m[0]))
	}
	for m := range mountPoints() {
		if h.mounts[m] {
			continue
		}
		for _, p := range append([]string{filepath.Join(os.TempDir(), "realnode-")}, hostPaths...) {
			if strings.HasPrefix(m, p) {
				errs = append(errs, fmt.Errorf("mount %s is left", m))
			}
		}
	}
	for _, p := range h.created {
		if _, err := os.Lstat(p); err == nil {
			errs = append(errs, fmt.Errorf("%s is left", p))
		}
	}
	return errors.Join(errs...)
}

func removeEmptyTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return fmt.Errorf("%s is not empty (%s)", root, p)
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // children first
	for _, d := range dirs {
		if err := os.Remove(d); err != nil {
			return err
		}
	}
	return nil
}

// removeCgroups removes the kubepods hierarchy (cgroupfs driver) in every
// v1 controller and in the v2 root, deepest first, killing what is left in
// it (nothing, once the node's processes are gone).
func removeCgroups() error {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods")
	if _, err := os.Stat("/sys/fs/cgroup/kubepods"); err == nil {
		roots = append(roots, "/sys/fs/cgroup/kubepods")
	}
	var errs []error
	for _, root := range roots {
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
		for _, d := range dirs {
			var err error
			for range 50 { // a killed process leaves its cgroup a moment later
				killCgroupProcs(d)
				if err = syscall.Rmdir(d); err == nil || errors.Is(err, os.ErrNotExist) {
					err = nil
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("remove cgroup %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}

func killCgroupProcs(dir string) {
	data, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// killNetns kills every process whose network namespace is the node's
// (inode netns, as read from /proc/PID/ns/net): containerd's shims and the
// containers re-parent away from the node's process tree, so stopping the
// processes the harness started is not enough. It waits until they are gone.
func killNetns(netns string) error {
	if netns == "" {
		return nil
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		pids := netnsPids(netns)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v of the node's network namespace outlived SIGKILL", pids)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func netnsPids(netns string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if link, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid)); err == nil && link == netns {
			pids = append(pids, pid)
		}
	}
	return pids
}
