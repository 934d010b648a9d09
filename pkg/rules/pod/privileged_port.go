package pod

import (
	"fmt"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// privilegedPort names the port below 1024 a container is set to listen
// on, when a bind is denied and the log does not say which: .NET prints
// only "SocketException (13): Permission denied" while ASPNETCORE_URLS
// (http://+:80) or the declared containerPort say it. With the user the
// process runs as, which is why it may not. "" when neither says.
func privilegedPort(p *corev1.Pod, container string) string {
	ctr := kube.SpecOf(p, container)
	if ctr == nil {
		return ""
	}
	port, from := "", ""
	for _, e := range ctr.Env {
		for _, m := range submatch.FindAll(envPortRe, e.Value, -1) {
			if n, _ := strconv.Atoi(m.Get("port")); n > 0 && n < 1024 && port == "" {
				port, from = m.Get("port"), fmt.Sprintf("%s=%s", e.Name, e.Value)
			}
		}
	}
	for _, cp := range ctr.Ports {
		if cp.ContainerPort > 0 && cp.ContainerPort < 1024 && port == "" {
			port, from = strconv.Itoa(int(cp.ContainerPort)), "containerPort"
		}
	}
	if port == "" {
		return ""
	}
	s := fmt.Sprintf("port %s from %s", port, from)
	if uid := runAsUser(p, ctr); uid != nil && *uid != 0 {
		s += fmt.Sprintf(", as non-root user %d", *uid)
	}
	return s
}

// envPortRe is a listen URL's port in an environment value
// (ASPNETCORE_URLS=http://+:80, LISTEN=0.0.0.0:443).
var envPortRe = regexp.MustCompile(`^(?:\w+://)?(?:[\w.*+-]+|\[[0-9a-fA-F:]*\])?:(?P<port>\d{1,5})(?:/|;|$)`)

func runAsUser(p *corev1.Pod, ctr *corev1.Container) *int64 {
	if ctr.SecurityContext != nil && ctr.SecurityContext.RunAsUser != nil {
		return ctr.SecurityContext.RunAsUser
	}
	if p.Spec.SecurityContext != nil {
		return p.Spec.SecurityContext.RunAsUser
	}
	return nil
}

// tlsListener names the setting that asks a container for a TLS listener,
// when its log says the listener has no certificate: the first environment
// value holding an https:// URL (ASPNETCORE_URLS=https://+:8081;http://+:8080,
// Kestrel__Endpoints__Https__Url). "" when none does (the server's own
// configuration file says it, which the pod spec does not show).
func tlsListener(p *corev1.Pod, container string) string {
	ctr := kube.SpecOf(p, container)
	if ctr == nil {
		return ""
	}
	for _, e := range ctr.Env {
		if m, ok := submatch.Find(httpsURLRe, e.Value); ok {
			return fmt.Sprintf("%s from env %s=%s", m.Get("url"), e.Name, e.Value)
		}
	}
	return ""
}

// httpsURLRe is an https:// listen URL in an environment value, up to the
// separator of the next one.
var httpsURLRe = regexp.MustCompile(`(?i)(?P<url>https://[^;,\s]+)`)
