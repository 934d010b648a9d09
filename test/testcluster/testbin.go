package testcluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// EnvTestBin names the directory holding the etcd, kube-apiserver and kubectl
// binaries. When unset, hack/testbin.sh is run to build (or find cached) ones.
const EnvTestBin = "KUBECTL_TRIAGE_TESTBIN"

// EnvKeep, when "1", makes Stop keep the cluster directory (logs, PKI, etcd
// data) for post-mortem inspection.
const EnvKeep = "KUBECTL_TRIAGE_KEEP"

var requiredBinaries = []string{"etcd", "kube-apiserver", "kubectl"}

// findBinDir returns the directory holding the control-plane binaries.
func findBinDir() (string, error) {
	dir := os.Getenv(EnvTestBin)
	if dir == "" {
		var err error
		if dir, err = runTestbinScript(); err != nil {
			return "", err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	for _, name := range requiredBinaries {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("binary %s missing in %s (run hack/testbin.sh or set %s): %w", name, dir, EnvTestBin, err)
		}
		if fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("binary %s is not executable", p)
		}
	}
	return dir, nil
}

// runTestbinScript runs hack/testbin.sh from the repository root and returns
// the directory it prints. `go test ./...` runs one process per package in
// parallel, and the script builds into fixed *.tmp paths, so invocations are
// serialised machine-wide with an flock: the first one builds, the others
// then find the cached binaries in milliseconds.
func runTestbinScript() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "hack", "testbin.sh")

	lockPath := filepath.Join(os.TempDir(), "kubectl-triage-testbin.lock")
	lock, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return "", fmt.Errorf("open testbin lock: %w", err)
	}
	defer lock.Close() // closing the descriptor releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lockPath, err)
	}

	cmd := exec.Command("bash", script)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	// The build takes minutes when cold: show its progress instead of
	// looking hung, and keep a copy for the error message.
	cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("run %s: %w\n%s", script, err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	dir := strings.TrimSpace(lines[len(lines)-1])
	if dir == "" {
		return "", fmt.Errorf("%s printed no directory", script)
	}
	return dir, nil
}

// repoRoot walks up from the working directory (the package directory under
// `go test`) to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("getwd: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "hack", "testbin.sh")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod with hack/testbin.sh above the working directory; set " + EnvTestBin)
		}
		dir = parent
	}
}
