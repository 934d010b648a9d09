package agent

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// reap makes sure nothing the agent started outlives it: SIGKILL to its
// process group, then to any process still carrying the incident's
// INCIDENT_ID in its environment (a descendant that left the group with
// setsid). Only our own processes are visible to read and signal.
func reap(pgid int, incidentID string) {
	syscall.Kill(-pgid, syscall.SIGKILL)
	if incidentID == "" {
		return
	}
	marker := []byte("\x00INCIDENT_ID=" + incidentID + "\x00")
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), marker) {
			continue
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
