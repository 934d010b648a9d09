package logs

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Loopback is a listen address on the loopback interface only: what the
// kubelet's probes and other pods, which connect to the pod IP, cannot
// reach (https://kubernetes.io/docs/concepts/services-networking/#the-kubernetes-network-model).
type Loopback struct {
	Addr     string // "localhost:4050"
	Line     string // the log record or the spec entry that says it
	Previous bool   // from the previous instance's log
	Spec     string // the container's arg or env var that sets it, when from the spec
}

// loopbackAddrRe is a loopback host and port: localhost, 127.0.0.1 (any
// 127/8 address), ::1, with an optional scheme.
var loopbackAddrRe = regexp.MustCompile(`(?i)(?:^|[\s"'=(\[/,])(?:(?:https?|tcp)://)?(?P<addr>(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1):(?P<port>\d{2,5}))\b`)

// listenSettingRe is a setting that names a listen address: a flag, a
// variable or a config key with listen or bind in its name
// (--listen-address, --web.listen-address, HttpListenAddr, BIND_ADDRESS).
// A bare ADDR is a client's (VAULT_ADDR, CONSUL_HTTP_ADDR): where it
// connects, not where it listens.
var listenSettingRe = regexp.MustCompile(`(?i)(?:listen|bind)[\w.-]*"?\s*[:=]\s*"?`)

// LoopbackListen is where container says it listens on port on loopback
// only: its log (a listen record, or a logged config key naming a listen
// address: Flask's "Running on http://127.0.0.1:5000", Puma's "Listening on
// http://127.0.0.1:3000", a JSON config's "HttpListenAddr":"localhost:4050"),
// else its args and env. nil when nothing says so.
func LoopbackListen(c *rule.Pass, p *corev1.Pod, container, port string) *Loopback {
	for _, l := range Readable(c, p, container) {
		log := l.Log
		var found *Loopback
		for i := len(log.Events) - 1; i >= 0; i-- {
			for _, raw := range log.Events[i].Raw {
				if allAddrsRe.MatchString(raw) {
					return nil
				}
				if !listensIn(raw) && !listenSettingRe.MatchString(raw) {
					continue
				}
				if wildcardOn(raw, port) {
					// Werkzeug lists 127.0.0.1 next to "all addresses
					// (0.0.0.0)": reachable after all.
					return nil
				}
				if addr := loopbackIn(raw, port); addr != "" && found == nil && (listensIn(raw) || listenSetting(raw, addr)) {
					found = &Loopback{Addr: addr, Line: strings.TrimSpace(raw), Previous: l.Previous}
				}
			}
		}
		if found != nil {
			return found
		}
	}
	for _, ctr := range p.Spec.Containers {
		if ctr.Name != container {
			continue
		}
		for _, a := range append(append([]string{}, ctr.Command...), ctr.Args...) {
			if addr := loopbackIn(a, port); addr != "" && listenSetting(a, addr) {
				return &Loopback{Addr: addr, Line: a, Spec: "args"}
			}
		}
		for _, e := range ctr.Env {
			kv := e.Name + "=" + e.Value
			if addr := loopbackIn(kv, port); addr != "" && listenSetting(kv, addr) {
				return &Loopback{Addr: addr, Line: kv, Spec: "env " + e.Name}
			}
		}
	}
	return nil
}

// wildcardAddrRe is a listen address every interface reaches: 0.0.0.0,
// [::], * or a bare :port; allAddrsRe says so in words.
var (
	wildcardAddrRe = regexp.MustCompile(`(?:^|[\s"'=(/,])(?:0\.0\.0\.0|\[::\]|\*)?:(?P<port>\d{2,5})\b`)
	allAddrsRe     = regexp.MustCompile(`(?i)\b(?:running|listening|serving|bound) on all (?:addresses|interfaces)\b`)
)

// wildcardOn: s listens on port on every interface.
func wildcardOn(s, port string) bool {
	for _, m := range submatch.FindAll(wildcardAddrRe, s, -1) {
		if m.Get("port") == port {
			return true
		}
	}
	return false
}

// loopbackIn is the loopback address with port in s, "" if none.
func loopbackIn(s, port string) string {
	for _, m := range submatch.FindAll(loopbackAddrRe, s, -1) {
		if m.Get("port") == port {
			return m.Get("addr")
		}
	}
	return ""
}

// listensIn: the record speaks of listening (applog's own vocabulary),
// and is not an outgoing connection or a failed bind.
func listensIn(s string) bool {
	e := applog.Extract(s)
	return len(e.Listen) > 0 && !failedBind(s)
}

// listenSetting: addr is the value of a listen, bind or address setting.
func listenSetting(s, addr string) bool {
	for _, loc := range listenSettingRe.FindAllStringIndex(s, -1) {
		rest := strings.TrimLeft(s[loc[1]:], `"' `)
		rest = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(rest, "http://"), "https://"), "tcp://")
		if strings.HasPrefix(rest, addr) {
			return true
		}
	}
	return false
}
