package pod

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// probeSchemeMismatch: an httpGet probe without scheme HTTPS (HTTP is the
// API default) against a port that speaks TLS. The TLS server cannot read
// the plain request: Go answers 400, nginx answers 400, Netty and the JVM
// close the connection (the kubelet sees EOF or a reset); each says so in
// its own log.
const probeSchemeMismatch probeClass = "SchemeMismatch"

// plainOnTLSRe are servers saying a plain HTTP request reached their TLS
// port:
//   - Go net/http (src/net/http/server.go): "http: TLS handshake error from
//     10.0.0.6:37448: client sent an HTTP request to an HTTPS server";
//   - nginx (src/http/ngx_http_request.c): "client sent plain HTTP request
//     to HTTPS port", and the page it answers: "The plain HTTP request was
//     sent to HTTPS port";
//   - Netty (handler/ssl/SslHandler.java): "NotSslRecordException: not an
//     SSL/TLS record";
//   - the JDK's SSLEngine (Tomcat, Jetty): "Unsupported or unrecognized SSL
//     message";
//   - Python's ssl module: "[SSL: HTTP_REQUEST] http request";
//   - Apache httpd's mod_ssl (OpenSSL's reason): "http request -- speaking
//     HTTP to HTTPS port!?", "You're speaking plain HTTP to an SSL-enabled
//     server port".
var plainOnTLSRe = regexp.MustCompile(`(?i)client sent an HTTP request to an HTTPS server|plain HTTP request (?:was )?sent to HTTPS port|client sent plain HTTP request to HTTPS port|not an SSL/TLS record|Unsupported or unrecognized SSL message|\[SSL: HTTP_REQUEST\] http request|speaking (?:plain )?HTTP to (?:an )?(?:HTTPS|SSL)`)

// tlsPortNameRe is a container port named for TLS ("https", "tls",
// "https-web", "metrics-tls"): with a 400 answer, the name alone says the
// probe speaks the wrong protocol there.
var tlsPortNameRe = regexp.MustCompile(`(?i)^(?:https|tls)(?:$|-)|-(?:https|tls)$`)

// probeSchemeReason says whether a failing plain-HTTP probe reaches a TLS
// listener: the application's log says a plain request reached its TLS
// port, or the probed port is named for TLS and answers 400. A probe that
// already uses HTTPS is never this.
func probeSchemeReason(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, pr *corev1.Probe, name probeClass, output string) *probeAnswer {
	if pr.HTTPGet == nil || pr.HTTPGet.Scheme == corev1.URISchemeHTTPS {
		return nil
	}
	switch name {
	case probeHTTPStatus, probeAuthRequired, probePathNotFound, probeUnhealthy, probeConnectionReset, probeFailed:
	default:
		return nil
	}
	ans := &probeAnswer{probeReason: probeReason{class: probeSchemeMismatch,
		explains: "the probe sends plain HTTP (its scheme is HTTP, the default) to a port that serves TLS, so the server refuses the request before any path is read"}}
	for _, l := range logs.Readable(c, p, ctr.Name) {
		for i := len(l.Log.Events) - 1; i >= 0; i-- {
			for _, raw := range l.Log.Events[i].Raw {
				if plainOnTLSRe.MatchString(raw) {
					ans.line, ans.prev = clipRecord(strings.TrimSpace(raw)), l.Previous
					return ans
				}
			}
		}
	}
	if !strings.Contains(output, "statuscode: 400") {
		return nil
	}
	if port := namedPort(ctr, pr.HTTPGet.Port.String(), pr.HTTPGet.Port.IntValue()); port != "" && tlsPortNameRe.MatchString(port) {
		ans.subject = fmt.Sprintf("port %s is named %q", pr.HTTPGet.Port.String(), port)
		return ans
	}
	return nil
}

// namedPort is the name of the container port a probe targets, by name or
// number.
func namedPort(ctr *corev1.Container, name string, number int) string {
	for _, cp := range ctr.Ports {
		if cp.Name != "" && (cp.Name == name || int(cp.ContainerPort) == number) {
			return cp.Name
		}
	}
	return ""
}

// schemeHeadline is the title's clause for a plain request on a TLS port.
func (a *probeAnswer) schemeHeadline(output string, target probeTarget) string {
	got := "fails"
	if sc := probeStatusCode(output); sc != "" {
		got = "gets HTTP " + sc
	}
	return fmt.Sprintf("%s: %s reaches a TLS listener, and the probe's scheme is not HTTPS", got, target.Desc)
}

// schemeCulprit names the probe's scheme and what shows the port is TLS.
func (a *probeAnswer) schemeCulprit(p *corev1.Pod, ctr *corev1.Container, kind probeKind) string {
	why := a.subject
	if a.line != "" {
		why = fmt.Sprintf("the server logs %q", a.line)
	}
	return fmt.Sprintf("%s container %s %s.httpGet.scheme (HTTP, the default; the port serves TLS: %s): set scheme: HTTPS", kube.PodRef(p), ctr.Name, kind.Field, why)
}

// schemeFix sets the probe's scheme: the kubelet does not verify the
// server's certificate on an HTTPS probe, so a self-signed one passes.
func (a *probeAnswer) schemeFix(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, kind probeKind) report.Action {
	return ContainerPatch(c, p, ctr.Name, map[string]any{kind.Field: map[string]any{"httpGet": map[string]any{"scheme": "HTTPS"}}},
		fmt.Sprintf("Probe the TLS port with scheme: HTTPS (the kubelet skips certificate verification for probes), or point the %s probe at a plain-HTTP port of the application.", strings.ToLower(kind.Name)), "")
}
