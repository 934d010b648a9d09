package store

import (
	"errors"
	"os"
	"runtime"
	"syscall"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// AgentGone reports whether an investigating incident looks abandoned: it
// recorded its agent's process ID and no such process exists on this host
// (the plugin was killed before it could record the outcome). It is a hint
// for humans, never a reason to collect: a workspace root shared between
// hosts, or a reused process ID, would fool it. False when unknown (the
// builtin agent runs in-process and records no PID).
func (e *Entry) AgentGone() bool {
	inc := e.Incident
	if inc.Status != incident.Investigating || inc.Agent.PID <= 0 || runtime.GOOS == "windows" {
		return false
	}
	p, err := os.FindProcess(inc.Agent.PID)
	if err != nil {
		return false
	}
	defer p.Release()
	err = p.Signal(syscall.Signal(0))
	return errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH)
}
