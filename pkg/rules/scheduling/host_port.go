package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

func (e *schedContext) hostPort(part schedReason, _ submatch.Match) schedCause {
	var ports []string
	for _, ctr := range e.p.Spec.Containers {
		for _, port := range ctr.Ports {
			if port.HostPort > 0 {
				proto := port.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				ports = append(ports, fmt.Sprintf("hostPort %d/%s (container %s)", port.HostPort, proto, ctr.Name))
			}
		}
	}
	cause := schedCause{Confidence: rule.High}
	cause.Text = withCount(part)
	cause.Culprit = e.spec("containers[*].ports[*].hostPort")
	if len(ports) > 0 {
		cause.Text += " — " + strings.Join(ports, ", ")
		cause.Culprit += " " + strings.Join(ports, ", ")
	}
	if r := e.replicas(); r > 0 && len(e.c.B.Nodes) > 0 && int(r) > len(e.c.B.Nodes) {
		cause.Notes = append(cause.Notes, fmt.Sprintf("%s wants %d replicas on %s: a hostPort allows one per node.", e.workload(), r, nodesCount(len(e.c.B.Nodes))))
		cause.Definitive = true
	}
	cause.Actions = []report.Action{{Kind: report.Immediate,
		Description: "Drop the hostPort and expose the pods through a Service, or run no more replicas than nodes.",
		Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.containers[*].ports[*].hostPort", e.workload(), kube.NSFlag(e.p), podTemplatePath(e.kind))},
			"drop "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".containers[*].ports[*].hostPort"),
		Risk: e.templateRisk("starts a rollout") + "; clients using the node's port must switch to the Service"}}
	return cause
}
