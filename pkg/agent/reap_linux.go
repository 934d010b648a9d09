package agent

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// reap makes sure nothing the agent started outlives it: SIGKILL to its
// process group, then to any process still carrying the incident's
// INCIDENT_ID in its environment (a descendant that left the group with
// setsid). Only our own processes are visible to read and signal. The sweep
// repeats until two passes in a row find nothing, so a process caught
// between fork and exec (its environment briefly unreadable) or forked by a
// dying parent is still found.
func reap(pgid int, incidentID string) {
	syscall.Kill(-pgid, syscall.SIGKILL)
	if incidentID == "" {
		return
	}
	marker := []byte("\x00INCIDENT_ID=" + incidentID + "\x00")
	clean := 0
	for i := 0; i < 50 && clean < 2; i++ {
		if sweep(marker) == 0 {
			clean++
		} else {
			clean = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sweep SIGKILLs every live process whose environment holds marker and
// returns how many it signalled.
func sweep(marker []byte) int {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), marker) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && isZombie(stat) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// isZombie reads the state field of /proc/PID/stat ("pid (comm) S …").
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
