//go:build !linux && !windows

package agent

import "syscall"

// reap kills the agent's process group; other systems have no /proc to
// find descendants that left it.
func reap(pgid int, _ string) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}
