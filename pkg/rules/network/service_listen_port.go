package network

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// ServiceListenPort is the rule network/service-listen-port.
var ServiceListenPort = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-listen-port",
		Kinds: []string{"Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.Pods, rule.Logs},
		Doc:   "A Service whose targetPort differs from the port its running pods' applications log that they listen on.",
	},
	Check: checkServiceListenPort,
}

// listener is a running container of a selected pod that says, in its
// current log, where it listens.
type listener struct {
	Pod       *corev1.Pod
	Container string
	*logs.Listen
}

// checkServiceListenPort: containers need not declare their ports, so a
// targetPort that matches the declared containerPort can still reach
// nothing; the application's own "listening on" line says where it is. Only
// running containers are read (their current log): a crashing pod's cause
// is the pod rules' to name.
func checkServiceListenPort(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		return nil
	}
	var ls []listener
	for _, p := range selectedPods(c, svc) {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Running == nil {
				continue
			}
			if l := logs.Listening(c, p, cs.Name); l != nil && !l.Previous {
				ls = append(ls, listener{p, cs.Name, l})
			}
		}
	}
	if len(ls) == 0 {
		return nil
	}
	var out []rule.Finding
	for i, sp := range svc.Spec.Ports {
		var wrong []listener
		target := ""
		for _, p := range podsOf(ls) {
			t := resolveTarget(p, sp)
			if t == 0 {
				continue // a name the pod does not declare: network/service-target-port
			}
			target = strconv.Itoa(int(t))
			var mine []listener
			served := false
			for _, l := range ls {
				if l.Pod == p {
					mine = append(mine, l)
					served = served || slices.Contains(l.Ports, target)
				}
			}
			if !served {
				wrong = append(wrong, mine...)
			}
		}
		// Every listening pod misses it: a pod that serves it shows the
		// port is right for the application.
		if len(wrong) == 0 || len(wrong) < len(ls) {
			continue
		}
		out = append(out, listenFinding(c, svc, i, sp, target, wrong))
	}
	return out
}

func podsOf(ls []listener) []*corev1.Pod {
	var out []*corev1.Pod
	for _, l := range ls {
		if !slices.Contains(out, l.Pod) {
			out = append(out, l.Pod)
		}
	}
	return out
}

// resolveTarget is the port number a Service port sends to on pod p; 0 for
// a name p does not declare.
func resolveTarget(p *corev1.Pod, sp corev1.ServicePort) int32 {
	switch {
	case sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "":
		for _, ctr := range p.Spec.Containers {
			for _, cp := range ctr.Ports {
				if cp.Name == sp.TargetPort.StrVal {
					return cp.ContainerPort
				}
			}
		}
		return 0
	case sp.TargetPort.IntVal != 0:
		return sp.TargetPort.IntVal
	}
	return sp.Port
}

func listenFinding(c *rule.Pass, svc *corev1.Service, index int, sp corev1.ServicePort, target string, wrong []listener) rule.Finding {
	l := wrong[0]
	listen := strings.Join(l.Ports, ", ")
	tp := sp.TargetPort.String()
	if tp != target {
		tp = fmt.Sprintf("%s (port %s)", tp, target)
	}
	ev := []string{
		c.Evidence(fmt.Sprintf("Service %s port %s forwards to targetPort %s", svc.Name, servicePortLabel(sp), tp),
			fmt.Sprintf("%s .spec.ports[%d].targetPort", svcRef(svc), index),
			fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.ports}'", svc.Name, svcNS(svc))),
		c.Evidence(fmt.Sprintf("Container %s of pod %s logs that it listens on port %s: %q", l.Container, l.Pod.Name, listen, l.Line),
			fmt.Sprintf("logs of %s container %s (current instance)", kube.PodRef(l.Pod), l.Container), kube.LogsCmd(l.Pod, l.Container, false)),
	}
	var names []string
	for _, w := range wrong {
		names = append(names, w.Pod.Name+"/"+w.Container)
	}
	want := l.Ports[0]
	f := rule.Finding{
		Category: rule.Service.Sub("TargetPort", "NotListening"), Verdict: report.Validated, Confidence: rule.Strong,
		Current: true, Strength: rule.Traced, Subject: svc.Name, Evidence: ev,
		Hypothesis: fmt.Sprintf("Service %s forwards to port %s, but its pods' application listens on %s", svc.Name, target, listen),
		Title:      fmt.Sprintf("service %s forwards to targetPort %s, but the application in its pods listens on port %s (its log says so)", svc.Name, tp, listen),
		Summary: fmt.Sprintf("Service %s port %s forwards to port %s of its pods, but the application in them logs that it listens on port %s (%q, container %s of pod %s): connections through the Service reach no listener and are refused.",
			svc.Name, servicePortLabel(sp), target, listen, l.Line, l.Container, l.Pod.Name),
		Mechanism:    "kube-proxy forwards Service traffic to the targetPort of each ready endpoint whether or not anything listens there; a containerPort declaration does not make the application listen on it.",
		Culprit:      fmt.Sprintf("%s .spec.ports[%d].targetPort %s; the application listens on %s", svcRef(svc), index, tp, listen),
		Contributing: []string{fmt.Sprintf("Running containers that listen elsewhere: %s.", strings.Join(firstNames(names, 5), ", "))},
		Actions: []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Point the Service's targetPort at port %s, where the application listens (or make the application listen on %s, and keep containerPort and probes on the same port).", want, target),
				Commands: []string{fmt.Sprintf(`kubectl patch service %s %s --type=json -p '[{"op":"replace","path":"/spec/ports/%d/targetPort","value":%s}]'`, svc.Name, svcNS(svc), index, want)},
				Risk:     "traffic moves to the new port at once"},
			{Kind: report.Check, Description: "Confirm the listening port from inside a pod.",
				Commands: []string{fmt.Sprintf("kubectl exec %s %s -c %s -- sh -c 'netstat -tln 2>/dev/null || ss -tln'", l.Pod.Name, kube.NSFlag(l.Pod), l.Container)}},
		},
	}
	return f
}
