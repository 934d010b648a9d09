package testcluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// stopTimeout bounds the graceful part of stopping a process; the data is
// thrown away anyway, so there is no point in waiting longer.
const stopTimeout = 5 * time.Second

// errAddrInUse marks a start failure caused by a port race with another
// process; Start retries with fresh ports.
var errAddrInUse = errors.New("address already in use")

// process is one child (etcd or kube-apiserver) with its log file.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	done    chan struct{} // closed when the process has been reaped
	waitErr error         // valid after done is closed
}

// startProcess starts bin with args, stdout+stderr appended to logPath.
func startProcess(name, bin, logPath string, args []string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// If the test binary dies (panic, -timeout, SIGKILL) the kernel
		// kills the child: no orphaned etcd/apiserver. Pdeathsig is tied to
		// the forking OS thread, but the Go runtime only retires threads of
		// goroutines that exit while locked with LockOSThread, which this
		// package never does.
		Pdeathsig: syscall.SIGKILL,
		// Own process group: a ^C in the terminal reaches only the test
		// binary, which then stops the children in order (apiserver first).
		Setpgid: true,
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, logFile: logFile, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes an early exit, with the log tail; it wraps
// errAddrInUse when the log says a port was taken.
func (p *process) exitError() error {
	tail := logTail(p.logPath, 25)
	err := fmt.Errorf("%s exited early (%v); last log lines:\n%s", p.name, p.waitErr, tail)
	if strings.Contains(tail, "address already in use") {
		return fmt.Errorf("%w: %w", errAddrInUse, err)
	}
	return err
}

// stop sends SIGTERM to the process group, SIGKILL after stopTimeout, and
// waits until the process is reaped.
func (p *process) stop() {
	if p == nil || p.exited() {
		return
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
}

// logTail returns the last n lines of a file ("" if unreadable).
func logTail(path string, n int) string {
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
