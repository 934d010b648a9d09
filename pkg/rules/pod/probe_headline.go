package pod

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

var statusCodeRe = regexp.MustCompile(`statuscode: (?P<code>\d+)`)

// probeStatusCode is the HTTP status in a probe's output ("HTTP probe
// failed with statuscode: 503"), "" when it names none.
func probeStatusCode(output string) string {
	if m, ok := submatch.Find(statusCodeRe, output); ok {
		return m.Get("code")
	}
	return ""
}

// probeHeadline says in a few words what a failing probe runs into, for
// the report's one-line root cause.
func probeHeadline(class probeClass, target probeTarget, pr *corev1.Probe, ports portCheck, output string) string {
	code := probeStatusCode(output)
	switch class {
	case probePortMismatch:
		return fmt.Sprintf("checks port %s, which the container does not declare (%s)", target.Port.String(), ports.Detail)
	case probeNamedPortMissing:
		return fmt.Sprintf("names port %q, which the container does not declare (%s)", target.Port.String(), ports.Detail)
	case probePathNotFound:
		return fmt.Sprintf("gets 404 Not Found: %s does not exist", target.Desc)
	case probeAuthRequired:
		return fmt.Sprintf("gets HTTP %s: %s demands authentication", code, target.Desc)
	case probeUnhealthy:
		if code != "" {
			return fmt.Sprintf("gets HTTP %s from %s: the application reports itself unhealthy", code, target.Desc)
		}
		return fmt.Sprintf("gets NOT_SERVING from %s: the application reports itself unhealthy", target.Desc)
	case probeHTTPStatus:
		return fmt.Sprintf("gets HTTP %s from %s (only 200-399 pass)", code, target.Desc)
	case probeTimeout:
		return fmt.Sprintf("gets no answer from %s within timeoutSeconds %ds", target.Desc, defaultIfZero(pr.TimeoutSeconds, 1))
	case probeConnectionRefused:
		return fmt.Sprintf("finds nothing listening on port %s (initialDelaySeconds %d)", target.Port.String(), pr.InitialDelaySeconds)
	case probeConnectionReset:
		return fmt.Sprintf("has its connection reset (%s)", target.Desc)
	case probeUnreachable:
		return fmt.Sprintf("cannot reach the pod (%s): no route from the node", target.Desc)
	case probeCommandFailed:
		if output != "" {
			return fmt.Sprintf("fails: %s exits non-zero (%s)", target.Desc, kube.ProbeVerdict(output))
		}
		return fmt.Sprintf("fails: %s exits non-zero", target.Desc)
	}
	return fmt.Sprintf("fails (%s)", target.Desc)
}

// probeHandlerCopy returns a probe's handler, for a startup probe on the
// same endpoint.
func probeHandlerCopy(pr *corev1.Probe, handler string) any {
	switch handler {
	case "httpGet":
		return map[string]any{"path": pr.HTTPGet.Path, "port": pr.HTTPGet.Port}
	case "tcpSocket":
		return map[string]any{"port": pr.TCPSocket.Port}
	case "grpc":
		return map[string]any{"port": pr.GRPC.Port}
	}
	return nil
}
