package pod

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// plainHTTPURLRe is the URL the runtime asked over HTTPS and got a plain
// HTTP answer from: its host is the registry (or mirror endpoint) to
// configure, which may differ from the image reference's own host.
var plainHTTPURLRe = regexp.MustCompile(`https://(?P<host>[^/"\s]+)/\S*"?: http: server gave HTTP response to HTTPS client`)

// plainHTTPHost is the host that answered in plain HTTP, else the image's
// registry.
func plainHTTPHost(text, image string) string {
	if m, ok := submatch.Find(plainHTTPURLRe, text); ok {
		return m.Get("host")
	}
	return registryOf(image)
}

// qualified is a short image reference completed as containerd and dockerd
// complete it: docker.io, and library/ for an official image.
func qualified(image string) string {
	if registryOf(image) != "docker.io" || strings.HasPrefix(image, "docker.io/") {
		return image
	}
	if !strings.Contains(strings.SplitN(image, "@", 2)[0], "/") {
		return "docker.io/library/" + image
	}
	return "docker.io/" + image
}

// servedOverTLS: a public registry, or its blob storage, that answers
// only over HTTPS; a plain HTTP answer from its name is not the registry's.
func servedOverTLS(host string) bool {
	name, _, _ := strings.Cut(host, ":")
	return publicRegistry(name) || strings.HasSuffix(name, ".docker.com") || strings.HasSuffix(name, ".docker.io")
}
