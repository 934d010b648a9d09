// Package proc supervises the child processes of the test harnesses
// (testcluster's etcd and kube-apiserver, realnode's control plane, kubelet
// and containerd): each runs in a process group of its own with its output
// appended to a log file, whose tail goes into every error about it.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ErrAddrInUse marks an early exit whose log says a port was taken: a race
// with another process for a port picked free, which a caller may retry.
var ErrAddrInUse = errors.New("address already in use")

// Process is one started child.
type Process struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has been reaped
	waitErr error         // valid after done is closed
}

// Start starts bin with args, stdout and stderr appended to logPath.
func Start(name, bin, logPath string, args []string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// If the harness dies (panic, -timeout, SIGKILL) the kernel kills
		// the child: no orphaned component. Pdeathsig is tied to the forking
		// OS thread, but the Go runtime only retires threads of goroutines
		// that exit while locked with LockOSThread, which the harnesses never
		// do. What re-parents away (containerd's shims) the harness finds
		// itself.
		Pdeathsig: syscall.SIGKILL,
		// Own process group: a ^C in the terminal reaches only the harness,
		// which then stops its children in order.
		Setpgid: true,
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Exited says whether the process has ended (and been reaped).
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitError describes an early exit while waiting for what, with the log
// tail; it wraps ErrAddrInUse when the log says a port was taken.
func (p *Process) ExitError(what string) error {
	tail := LogTail(p.LogPath, 30)
	err := fmt.Errorf("%s exited (%v) waiting for %s; last log lines:\n%s", p.Name, p.waitErr, what, tail)
	if strings.Contains(tail, "address already in use") {
		return fmt.Errorf("%w: %w", ErrAddrInUse, err)
	}
	return err
}

// Stop sends SIGTERM to the process group, SIGKILL after timeout, and waits
// until the process is reaped. A nil or ended process is left alone.
func (p *Process) Stop(timeout time.Duration) {
	if p == nil || p.Exited() {
		return
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
}

// WaitFor polls cond every 50 ms until it holds, p exits, ctx ends or the
// timeout passes; errors carry the end of p's log. p may be nil (a condition
// no process of ours answers for). Exit is checked on both sides of cond: if
// our child died (a port race), whatever answers on its port is not ours.
func WaitFor(ctx context.Context, timeout time.Duration, p *Process, what string, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if p != nil && p.Exited() {
			return p.ExitError(what)
		}
		if cond() {
			if p != nil && p.Exited() {
				return p.ExitError(what)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			tail := ""
			if p != nil {
				tail = fmt.Sprintf("; last %s log lines:\n%s", p.Name, LogTail(p.LogPath, 30))
			}
			return fmt.Errorf("waiting %v for %s: %w%s", timeout, what, ctx.Err(), tail)
		case <-tick.C:
		}
	}
}

// LogTail returns the last n lines of a file ("" if unreadable).
func LogTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
