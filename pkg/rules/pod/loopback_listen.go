package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// probeLoopbackOnly: the probed port is the one the application listens
// on, but on the loopback interface only, and the kubelet connects to the
// pod IP: the connection is refused although the application runs.
const probeLoopbackOnly probeClass = "LoopbackOnly"

func loopbackFinding(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, pf rule.Finding, kind *probeKind, port int32, lb *logs.Loopback) rule.Finding {
	f := pf
	probe := strings.ToLower(kind.Name) + " probe"
	f.Category = rule.Probe.Sub(kind.Name, string(probeLoopbackOnly))
	f.Strength, f.Confidence, f.Current = rule.Traced, rule.Definitive, true
	where, source, cmd := "its log says so", fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), ctr.Name, kube.Instance(lb.Previous)), kube.LogsCmd(p, ctr.Name, lb.Previous)
	if lb.Spec != "" {
		where = "its " + lb.Spec + " says so"
		source = fmt.Sprintf("%s .spec.containers[%s] %s", kube.PodRef(p), ctr.Name, lb.Spec)
		cmd = containerSpecCmd(p, ctr.Name, strings.Fields(lb.Spec)[0])
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("The application listens on %s, the loopback interface only: %q", lb.Addr, lb.Line), source, cmd))
	f.Title = fmt.Sprintf("%s of container %s connects to the pod IP on port %d, but the application listens on %s only (%s)", probe, ctr.Name, port, lb.Addr, where)
	if i := strings.LastIndex(pf.Title, "; "); i >= 0 {
		f.Title += pf.Title[i:] // what the failure does (restarts, not Ready)
	}
	f.Hypothesis = fmt.Sprintf("Container %s's %s is refused because the application listens on %s, which the pod IP does not reach", ctr.Name, probe, lb.Addr)
	f.Culprit = fmt.Sprintf("%s container %s listen address %s (%s)", kube.PodRef(p), ctr.Name, lb.Addr, where)
	f.Summary = fmt.Sprintf("The %s of container %s in pod %s connects to the pod IP on port %d, and the application listens there on %s only (%q): the kubelet's connection, like any other pod's or a Service's, is refused. %s", probe, ctr.Name, p.Name, port, lb.Addr, lb.Line, pf.Summary)
	f.Mechanism += " The kubelet sends probes to the pod IP, never to the container's loopback interface; an application bound to localhost/127.0.0.1 is reachable only from inside its own pod."
	f.Contributing = append(f.Contributing, "A Service that forwards to this port reaches nothing either: its endpoints are pod IPs.")
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Make the application listen on all interfaces on port %d (0.0.0.0:%d or :%d) through its listen setting (a --listen-address/--bind flag, a HOST or *_ADDR variable, its config file's listen key; for Flask `--host=0.0.0.0`, for Puma `-b tcp://0.0.0.0:%d`).", port, port, port, port),
		Commands:    []string{containerSpecCmd(p, ctr.Name, "args"), cmd}}}, withoutImmediate(pf.Actions)...)
	return f
}

// withoutImmediate keeps the probe rule's checks and long-term steps: its
// own fix aims at a port that is right.
func withoutImmediate(as []report.Action) []report.Action {
	var out []report.Action
	for _, a := range as {
		if a.Kind != report.Immediate {
			out = append(out, a)
		}
	}
	return out
}
