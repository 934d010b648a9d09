//go:build unix

package owner

import (
	"errors"
	"syscall"
)

// alive sends signal 0: ESRCH means no such process; EPERM means one exists
// (of another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
