package kube

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ProbeText renders a probe's handler, and with timing its thresholds.
func ProbeText(p *corev1.Probe, timing bool) string {
	if p == nil {
		return "none"
	}
	var s string
	switch {
	case p.HTTPGet != nil:
		s = fmt.Sprintf("httpGet %s port %s", ValueOr(p.HTTPGet.Path, "(default)"), p.HTTPGet.Port.String())
	case p.TCPSocket != nil:
		s = "tcpSocket port " + p.TCPSocket.Port.String()
	case p.Exec != nil:
		s = "exec [" + strings.Join(p.Exec.Command, " ") + "]"
	case p.GRPC != nil:
		s = fmt.Sprintf("grpc port %d", p.GRPC.Port)
	default:
		s = "no handler"
	}
	if timing {
		s += fmt.Sprintf(" (initialDelaySeconds %d, periodSeconds %d, timeoutSeconds %d, failureThreshold %d)", p.InitialDelaySeconds, p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold)
	}
	return s
}
