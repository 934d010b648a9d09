//go:build !unix

package owner

import "os"

// alive: FindProcess fails where no process has the PID (Windows opens it).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
