package realnode

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// envInside carries the node directory to the re-run child; its presence
// means "you are inside the namespaces".
const envInside = "KUBECTL_TRIAGE_REALNODE_DIR"

// netnsFile is where the child records its network namespace, so the parent
// can find the namespace's processes after the child is gone.
const netnsFile = "netns"

// InsideDir returns the node directory when this process is the isolated
// child, "" otherwise.
func InsideDir() string { return os.Getenv(envInside) }

// RecordNetns writes the child's network namespace for the parent.
func RecordNetns(dir string) error {
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, netnsFile), []byte(ns), 0o644)
}

// Isolate runs argv (normally this very binary with its arguments) in a new
// network and mount namespace with envInside set to a fresh node directory,
// and returns its exit code. Whatever way the child ends (success, failure,
// panic, a signal, SIGKILL), it then kills every process left in the
// child's network namespace, restores the sysctls, removes the kubepods
// cgroups and the mount points it had to create, and the directory (unless
// KUBECTL_TRIAGE_KEEP=1). A restore failure is an error: the host was left
// changed.
func Isolate(argv []string, extraEnv ...string) (code int, err error) {
	dir, err := os.MkdirTemp("", "realnode-")
	if err != nil {
		return 1, err
	}
	host, err := saveHost()
	defer func() {
		if rerr := cleanupHost(dir, host); rerr != nil {
			err = errors.Join(err, rerr)
			if code == 0 {
				code = 1
			}
		}
	}()
	if err != nil {
		return 1, err
	}

	args := append([]string{"--net", "--mount", "--propagation", "slave", "--"}, argv...)
	cmd := exec.Command("unshare", args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(append(os.Environ(), envInside+"="+dir), extraEnv...)
	// A ^C reaches the child through the terminal's process group; the
	// parent stays to clean up after it. SIGTERM is passed on.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("start unshare: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			if s == syscall.SIGTERM {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
			continue
		case werr := <-done:
			var exit *exec.ExitError
			if errors.As(werr, &exit) {
				return exit.ExitCode(), nil
			}
			if werr != nil {
				return 1, werr
			}
			return 0, nil
		}
	}
}

func cleanupHost(dir string, host *hostState) error {
	var errs []error
	if ns, err := os.ReadFile(filepath.Join(dir, netnsFile)); err == nil {
		if self, _ := os.Readlink("/proc/self/ns/net"); strings.TrimSpace(string(ns)) != self {
			errs = append(errs, killNetns(strings.TrimSpace(string(ns))))
		}
	}
	if host != nil {
		errs = append(errs, host.restore())
	}
	if os.Getenv(EnvKeep) == "1" {
		fmt.Fprintf(os.Stderr, "realnode: %s=1, keeping %s\n", EnvKeep, dir)
	} else {
		// The mount namespace died with its last process, taking the
		// overlay and tmpfs mounts below dir with it; retry briefly while
		// the kernel releases them.
		var err error
		for range 20 {
			if err = os.RemoveAll(dir); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}
