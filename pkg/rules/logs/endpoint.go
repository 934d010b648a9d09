package logs

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// ConfiguredEndpoint names the endpoint a container is configured to reach
// when a connection failure names none (kafka-python's NoBrokersAvailable,
// pgjdbc's older "Connection refused. Check that the hostname and port are
// correct"): the env variable the failing event reads (a traceback line
// quoting os.environ["KAFKA_BOOTSTRAP"]), else the one whose name shares a
// word with the dependency the event names, else the container's only
// env value that is a host:port or URL. "" when none or several fit.
func ConfiguredEndpoint(p *corev1.Pod, container string, d *Decisive) (name, value string) {
	type cand struct{ name, value string }
	var cands []cand
	for _, c := range p.Spec.Containers {
		if c.Name != container {
			continue
		}
		for _, e := range c.Env {
			if e.Value == "" {
				continue
			}
			ents := applog.Extract(e.Value)
			if len(ents.Endpoints) > 0 || len(ents.URLs) > 0 {
				cands = append(cands, cand{e.Name, e.Value})
			}
		}
	}
	if len(cands) == 0 {
		return "", ""
	}
	text := d.Raw + "\n" + d.Line
	for _, c := range cands {
		if strings.Contains(text, c.name) {
			return c.name, c.value
		}
	}
	lower := strings.ToLower(text)
	var byWord []cand
	for _, c := range cands {
		for _, w := range strings.Split(strings.ToLower(c.name), "_") {
			if len(w) >= 4 && w != "host" && w != "port" && w != "addr" && w != "servers" && strings.Contains(lower, w) {
				byWord = append(byWord, c)
				break
			}
		}
	}
	if len(byWord) == 1 {
		return byWord[0].name, byWord[0].value
	}
	if len(cands) == 1 {
		return cands[0].name, cands[0].value
	}
	return "", ""
}
