package bundle

import (
	"context"
	"net"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// maxDependencies bounds the Services whose EndpointSlices are read because
// a log names them: one request each, after the logs are in. One keeps a
// crashing pod's triage within its budget of 15 requests; the rules read
// the host of the line that killed the container, named first here.
const maxDependencies = 1

// dependencies reads the EndpointSlices of the namespace's Services that
// the pods' logs name in a failing line (a host that does not resolve, a
// host:port refused or timing out), so that a rule can say whether the
// Service behind the host has ready endpoints. Only the Services listed with
// the namespace (NeedNamespaceServices) are candidates: nothing is fetched
// unless a log names one of them.
func (c *collector) dependencies(ctx context.Context) {
	ns := c.b.Target.Namespace
	if ns == "" || len(c.b.Services) == 0 {
		return
	}
	var want []string
	// The previous instances first: the one that died says why.
	logs := append([]ContainerLog(nil), c.b.Logs...)
	sort.SliceStable(logs, func(a, b int) bool { return logs[a].Previous && !logs[b].Previous })
	for _, l := range logs {
		if l.Error != "" || l.Text == "" {
			continue
		}
		for _, h := range FailingHosts(l.Text, c.podNamed(l.Pod), l.Container) {
			if svc, _ := ServiceForHost(c.b.Services, ns, h); svc != nil && !contains(want, svc.Name) && !c.haveSlices(ns, svc.Name) {
				want = append(want, svc.Name)
			}
		}
	}
	if len(want) > maxDependencies {
		want = want[:maxDependencies]
	}
	c.fanOut(ctx, len(want), func(i int) { c.endpointSlices(ctx, ns, want[i]) })
}

func (c *collector) podNamed(name string) *corev1.Pod {
	for _, p := range c.b.Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (c *collector) haveSlices(ns, svc string) bool {
	for _, s := range c.b.EndpointSlices {
		if s.Namespace == ns && s.Labels[discoveryv1.LabelServiceName] == svc {
			return true
		}
	}
	return false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// connectionSignals are the failures that name a dependency's host.
var connectionSignals = map[applog.Signal]bool{applog.SigDNS: true, applog.SigRefused: true, applog.SigTimeout: true, applog.SigReset: true}

// FailingHosts are the hosts a log's decisive lines fail to reach: those
// they name, or, when a connection failure names none (kafka-python's
// NoBrokersAvailable), the hosts of the container's env values that are a
// host:port or URL.
func FailingHosts(text string, p *corev1.Pod, container string) []string {
	var out []string
	add := func(h string) {
		if h != "" && !contains(out, h) {
			out = append(out, h)
		}
	}
	conn := false
	for _, d := range applog.Decide(text, applog.Options{Max: 3}) {
		if !connectionSignals[d.Signal()] {
			continue
		}
		conn = true
		for _, h := range d.Unresolved {
			add(h)
		}
		for _, h := range d.Hosts {
			add(h)
		}
		for _, ep := range d.Endpoints {
			if h, _, err := net.SplitHostPort(ep); err == nil {
				add(h)
			}
		}
	}
	if conn && len(out) == 0 && p != nil {
		for _, ctr := range allContainers(p) {
			if ctr.Name != container {
				continue
			}
			for _, e := range ctr.Env {
				ents := applog.Extract(e.Value)
				for _, h := range ents.Hosts {
					add(h)
				}
				for _, ep := range ents.Endpoints {
					if h, _, err := net.SplitHostPort(ep); err == nil {
						add(h)
					}
				}
			}
		}
	}
	return out
}

// ServiceForHost is the Service of namespace ns a host name or IP means:
// "name", "name.ns", "name.ns.svc", "name.ns.svc.cluster.local" or the
// Service's cluster IP. otherNS is the namespace a qualified name points
// at when it is not ns (the Service there is not listed).
func ServiceForHost(services []*corev1.Service, ns, host string) (svc *corev1.Service, otherNS string) {
	name, hostNS := SplitServiceHost(host)
	if hostNS != "" && hostNS != ns {
		return nil, hostNS
	}
	for _, s := range services {
		if s.Namespace != ns {
			continue
		}
		if s.Name == name || (net.ParseIP(host) != nil && (s.Spec.ClusterIP == host || contains(s.Spec.ClusterIPs, host))) {
			return s, ""
		}
	}
	return nil, ""
}

// SplitServiceHost reads a cluster DNS name: "db" → (db, ""), "db.shop",
// "db.shop.svc", "db.shop.svc.cluster.local" → (db, shop). A name with
// more labels that is not under .svc (api.example.com) is no Service name:
// ("", "").
func SplitServiceHost(host string) (name, ns string) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if net.ParseIP(host) != nil {
		return host, ""
	}
	labels := strings.Split(host, ".")
	switch {
	case len(labels) == 1:
		return labels[0], ""
	case len(labels) == 2 && !publicSuffix[labels[1]]:
		return labels[0], labels[1]
	case len(labels) > 2 && labels[2] == "svc":
		return labels[0], labels[1]
	}
	return "", ""
}

// publicSuffix are last labels that make a two-label name a domain, not
// "service.namespace".
var publicSuffix = map[string]bool{"com": true, "net": true, "org": true, "io": true, "dev": true, "local": true, "internal": true, "lan": true, "cloud": true, "app": true, "co": true, "de": true, "uk": true, "localdomain": true}
