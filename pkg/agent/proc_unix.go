//go:build !windows

package agent

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the agent in its own process group and makes a
// cancel interrupt the whole group: the CLI and every tool it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
}
