package pod

import (
	"regexp"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// ipv6WildcardRe is an IPv6 wildcard or loopback address set as a listen
// value: "<listen_host>::</listen_host>", "listen [::]:80;", "HOST=::",
// "--bind=[::]:8080", "address: '::'".
var ipv6WildcardRe = regexp.MustCompile(`\[::1?\](?::\d{1,5})?|(?:^|[\s>="':])::1?(?:$|[\s<"',;])`)

// ipv6Setting is where container's spec or a ConfigMap it mounts sets an
// IPv6 listen address; "" when none does (the image's own configuration).
func ipv6Setting(c *rule.Pass, p *corev1.Pod, container string) string {
	return settingMatching(c, p, container, ipv6WildcardRe)
}
