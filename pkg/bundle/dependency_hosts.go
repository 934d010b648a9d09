package bundle

import (
	"net"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// EnvHosts are the hosts the container's env configures: the host of each
// value that is a host:port, a URL or a connection string, and the bare
// value of a variable named like a host setting (SPRING_RABBITMQ_HOST=
// rabbitmq, REDIS_SERVER=redis-master). They stand in for the host a
// connection failure does not name.
func EnvHosts(p *corev1.Pod, container string) []string {
	var out []string
	add := func(h string) {
		if h != "" && !contains(out, h) {
			out = append(out, h)
		}
	}
	for _, ctr := range allContainers(p) {
		if ctr.Name != container {
			continue
		}
		for _, e := range ctr.Env {
			ents := applog.Extract(e.Value)
			for _, h := range ents.Hosts {
				add(h)
			}
			for _, ep := range ents.Endpoints {
				if h, _, err := net.SplitHostPort(ep); err == nil {
					add(h)
				}
			}
			if hostVarRe.MatchString(e.Name) && bareHostRe.MatchString(e.Value) && net.ParseIP(e.Value) == nil {
				add(e.Value)
			}
		}
	}
	return out
}

// ArgHosts are the hosts the container's command and args name: the host
// of each URL or host:port in them (busybox's `wget --spider http://nginx`,
// `curl -sf http://api:8080/healthz`, `redis-cli -h`'s host:port, a shell
// script's), where a client given its destination on the command line
// says where it connects when its error names no host.
func ArgHosts(p *corev1.Pod, container string) []string {
	var out []string
	for _, a := range commandLine(p, container) {
		ents := applog.Extract(a)
		for _, u := range ents.URLs {
			for _, h := range applog.Extract(u).Hosts {
				if !contains(out, h) {
					out = append(out, h)
				}
			}
		}
		for _, ep := range ents.Endpoints {
			if h, _, err := net.SplitHostPort(ep); err == nil && !contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

var (
	hostVarRe  = regexp.MustCompile(`(?i)_(HOST|HOSTNAME|SERVER|ADDR|ADDRESS)$`)
	bareHostRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`)
	dialRe     = regexp.MustCompile(`(?i)\bconnect|\bdial|\bconnecting\b`)
)

// LoggedEndpoints are the host:port endpoints with a name (not an IP) that
// the log's connection lines name, the latest first: a client that logs
// "Attempting to connect to: [rabbitmq:5672]" before a bare "Connection
// refused" says there which host failed.
func LoggedEndpoints(text string) []string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := len(lines) - 1; i >= 0; i-- {
		if !dialRe.MatchString(lines[i]) {
			continue
		}
		for _, ep := range applog.Extract(lines[i]).Endpoints {
			if h, _, err := net.SplitHostPort(ep); err == nil && net.ParseIP(h) == nil && !contains(out, ep) {
				out = append(out, ep)
			}
		}
	}
	return out
}
