package bundle

import (
	"net"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// peerSignals are failures whose other side is a server the container
// talks to, whose version the cause depends on: a compatibility check
// naming versions, a 400 naming a key the server does not know.
var peerSignals = map[applog.Signal]bool{applog.SigVersion: true, applog.SigAPIMismatch: true}

// PeerService is the Service of the namespace a version or API mismatch
// in event is about: among the hosts the event names and those the
// container's env and command line configure, the Service whose name
// shares the most words with the event ("Please change pgvecto.rs … in the
// Postgres instance" is immich-postgres-v17-rw's, not
// immich-valkey-primary's); the first one when none does. from says where
// the host was read; nil when no host is a Service of the namespace.
func PeerService(services []*corev1.Service, p *corev1.Pod, container, event string) (svc *corev1.Service, from string) {
	if p == nil {
		return nil, ""
	}
	type cand struct {
		svc  *corev1.Service
		from string
	}
	var cands []cand
	add := func(h, from string) {
		s, _ := ServiceForHost(services, p.Namespace, h)
		if s != nil && !slices.ContainsFunc(cands, func(c cand) bool { return c.svc == s }) {
			cands = append(cands, cand{s, from})
		}
	}
	e := applog.Extract(event)
	for _, h := range e.Hosts {
		add(h, "the log line")
	}
	for _, ep := range e.Endpoints {
		if h, _, err := net.SplitHostPort(ep); err == nil {
			add(h, "the log line")
		}
	}
	for _, h := range EnvHosts(p, container) {
		add(h, "the container's env")
	}
	for _, h := range ArgHosts(p, container) {
		add(h, "the container's command line")
	}
	if len(cands) == 0 {
		return nil, ""
	}
	lower := strings.ToLower(event)
	best, bestScore := cands[0], -1
	for _, c := range cands {
		score := 0
		for _, w := range strings.FieldsFunc(c.svc.Name, func(r rune) bool { return r == '-' || r == '.' }) {
			if len(w) >= 4 && strings.Contains(lower, w) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	return best.svc, best.from
}

// peerEvents are the decisive events of a log that are a peer's version
// or API mismatch.
func peerEvents(text string) []string {
	var out []string
	for _, d := range applog.Decide(text, applog.Options{Max: 3}) {
		if peerSignals[d.Signal()] || slices.ContainsFunc(applog.Signals(d.Text), func(s applog.Signal) bool { return peerSignals[s] }) {
			out = append(out, d.Text)
		}
	}
	return out
}
