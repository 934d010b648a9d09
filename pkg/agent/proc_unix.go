//go:build !windows

package agent

import (
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// resendInterrupt is how often a cancelled agent's group is interrupted
// again until it exits (exec.Cmd.WaitDelay ends with SIGKILL).
const resendInterrupt = time.Second

// setProcessGroup puts the agent in its own process group and makes a
// cancel interrupt the whole group: the CLI and every tool it started.
//
// The interrupt is sent again each resendInterrupt: a sandboxed agent's
// group leader is its PID namespace's init, and the kernel drops a signal
// to an init that has no handler for it yet (pid_namespaces(7)), so an
// interrupt that comes while the init is still starting would otherwise be
// lost and the run would wait out the whole WaitDelay. The caller calls
// the returned func once Wait has returned: the group's id is then free for
// another process to take.
func setProcessGroup(cmd *exec.Cmd) (exited func()) {
	done := make(chan struct{})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		pgid := cmd.Process.Pid
		err := syscall.Kill(-pgid, syscall.SIGINT)
		go func() {
			t := time.NewTicker(resendInterrupt)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					if syscall.Kill(-pgid, syscall.SIGINT) != nil {
						return
					}
				}
			}
		}()
		return err
	}
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
