//go:build unix

package watch

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: a per-op cost that a loaded
// machine does not inflate the way wall time is.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
