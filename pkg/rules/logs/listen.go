package logs

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// Listen is the last log record in which an application says which ports
// it listens on.
type Listen struct {
	Ports    []string
	Line     string
	Previous bool // from the previous instance's log
}

// Listening reads a container's logs (the current instance first: it is
// the one that serves now) for the ports the application says it listens
// on; nil when it does not say. A record about a port it could not bind is
// not one it listens on.
func Listening(c *rule.Pass, p *corev1.Pod, container string) *Listen {
	for _, l := range Readable(c, p, container) {
		log := l.Log
		for i := len(log.Events) - 1; i >= 0; i-- {
			text := log.Events[i].Text()
			if failedBind(text) {
				continue
			}
			if ports := applog.Extract(text).Listen; len(ports) > 0 {
				return &Listen{Ports: ports, Line: strings.TrimSpace(text), Previous: l.Previous}
			}
		}
	}
	return nil
}

func failedBind(text string) bool {
	for _, s := range applog.Signals(text) {
		if s == applog.SigAddrInUse || s == applog.SigBindDenied || s == applog.SigPermission {
			return true
		}
	}
	return false
}
