package pod

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
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

// settingMatching is where container's spec or a ConfigMap it mounts sets
// what re matches: an env var, an arg, or a mounted ConfigMap key's line
// (comments skipped). "" when none does (the image's own configuration).
func settingMatching(c *rule.Pass, p *corev1.Pod, container string, re *regexp.Regexp) string {
	ctr := kube.SpecOf(p, container)
	if ctr == nil {
		return ""
	}
	for _, e := range ctr.Env {
		if re.MatchString(" " + e.Value + " ") {
			return fmt.Sprintf("env %s=%s", e.Name, e.Value)
		}
	}
	for _, a := range append(append([]string{}, ctr.Command...), ctr.Args...) {
		if re.MatchString(" " + a + " ") {
			return fmt.Sprintf("arg %s", a)
		}
	}
	for _, m := range ctr.VolumeMounts {
		v := volumeNamed(p, m.Name)
		if v == nil || v.ConfigMap == nil {
			continue
		}
		if cm := c.B.ConfigMap(p.Namespace, v.ConfigMap.Name); cm != nil {
			keys := make([]string, 0, len(cm.Data))
			for k := range cm.Data {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if m.SubPath != "" && m.SubPath != k {
					continue
				}
				for _, line := range strings.Split(cm.Data[k], "\n") {
					if re.MatchString(line) && !isComment(line) {
						return fmt.Sprintf("ConfigMap %s key %s, mounted at %s: %s", cm.Name, k, m.MountPath, strings.TrimSpace(line))
					}
				}
			}
		}
	}
	return ""
}

// resolverOf says whose resolvers a pod's /etc/resolv.conf lists, by its
// dnsPolicy (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-s-dns-policy).
func resolverOf(p *corev1.Pod) string {
	node := kube.OrDash(p.Spec.NodeName)
	switch policy := p.Spec.DNSPolicy; {
	case policy == corev1.DNSDefault, policy == corev1.DNSClusterFirst && p.Spec.HostNetwork:
		return fmt.Sprintf("dnsPolicy %s: that is node %s's resolv.conf (the kubelet's --resolv-conf), where a local stub such as systemd-resolved's 127.0.0.53 is the pod itself", kube.OrDash(string(policy)), node)
	case policy == corev1.DNSNone:
		var ns []string
		if p.Spec.DNSConfig != nil {
			ns = p.Spec.DNSConfig.Nameservers
		}
		return fmt.Sprintf("dnsPolicy None: that lists dnsConfig's nameservers %s", kube.OrDash(strings.Join(ns, ", ")))
	default:
		return fmt.Sprintf("dnsPolicy %s: that names the cluster DNS Service, which this server may itself be behind", kube.OrDash(string(policy)))
	}
}

// isComment: a configuration line that is a comment (#, //, ;, <!-- -->).
func isComment(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, ";") || strings.HasPrefix(t, "<!--")
}
