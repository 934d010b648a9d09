// Package owner identifies the process that owns an incident, so that any
// other process can tell whether it is still there: an incident whose owner
// is gone can never finish and must not stay "investigating" forever.
//
// A PID alone is not enough: PIDs are reused, so the process's start time is
// recorded beside it, and a process with the same PID but another start time
// is a different one. The host is recorded too: a workspace root on shared
// storage may hold incidents of processes on other machines, whose liveness
// cannot be known from here.
package owner

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// Process is a process as recorded in incident.json.
type Process struct {
	PID int `json:"pid"`
	// StartTime is the process's start time in clock ticks since boot
	// (/proc/PID/stat field 22); 0 where the system does not say.
	StartTime uint64 `json:"startTime,omitempty"`
	Host      string `json:"host,omitempty"`
}

// Self is the current process.
func Self() Process {
	p := Process{PID: os.Getpid()}
	p.StartTime, _ = startTime(p.PID)
	p.Host, _ = os.Hostname()
	return p
}

// Gone reports whether the process is certainly no longer running: no
// process has its PID, or the one that has started at another time. It is
// false whenever that cannot be known (another host, no PID recorded).
func (p Process) Gone() bool {
	if p.PID <= 0 {
		return false
	}
	if h, _ := os.Hostname(); p.Host != "" && h != "" && p.Host != h {
		return false
	}
	if p.StartTime != 0 {
		st, err := startTime(p.PID)
		switch {
		case err == nil:
			return st != p.StartTime
		case errors.Is(err, os.ErrNotExist):
			return true
		}
	}
	return !alive(p.PID)
}

// Token is the process as a name fragment, PID.STARTTIME, for a directory
// name (a workspace being created) that must say who is creating it.
func (p Process) Token() string {
	return strconv.Itoa(p.PID) + "." + strconv.FormatUint(p.StartTime, 10)
}

// ParseToken reads a Token of this host; false when s is not one.
func ParseToken(s string) (Process, bool) {
	pid, start, ok := strings.Cut(s, ".")
	if !ok {
		return Process{}, false
	}
	n, err1 := strconv.Atoi(pid)
	st, err2 := strconv.ParseUint(start, 10, 64)
	if err1 != nil || err2 != nil || n <= 0 {
		return Process{}, false
	}
	return Process{PID: n, StartTime: st}, true
}

// startTime reads field 22 of /proc/PID/stat. The command name (field 2)
// may hold spaces and parentheses, so fields are counted after its last ')'.
func startTime(pid int) (uint64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if _, serr := os.Stat("/proc/self/stat"); serr != nil {
			return 0, errors.New("no /proc") // not Linux: unknown, not gone
		}
		return 0, os.ErrNotExist
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("unreadable stat")
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state); field 22 is fields[19].
	if len(fields) < 20 {
		return 0, errors.New("unreadable stat")
	}
	// A zombie has exited: its record stays until it is reaped.
	if fields[0] == "Z" || fields[0] == "X" {
		return 0, os.ErrNotExist
	}
	return strconv.ParseUint(fields[19], 10, 64)
}
