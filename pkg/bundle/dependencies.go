package bundle

import (
	"context"
	"net"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

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
	refused := map[string]bool{} // Services a login was refused by
	peer := map[string]bool{}    // Services whose version a mismatch is about
	// The previous instances first: the one that died says why.
	logs := append([]ContainerLog(nil), c.b.Logs...)
	sort.SliceStable(logs, func(a, b int) bool { return logs[a].Previous && !logs[b].Previous })
	for _, l := range logs {
		if l.Error != "" || l.Text == "" {
			continue
		}
		for _, h := range failingHosts(l.Text, c.podNamed(l.Pod), l.Container) {
			if svc, _ := ServiceForHost(c.b.Services, ns, h.host); svc != nil && !contains(want, svc.Name) && !c.haveSlices(ns, svc.Name) {
				want = append(want, svc.Name)
				refused[svc.Name] = h.loginRefused
			}
		}
		// A version the server's own release decides: its pods' images
		// say which it runs (docs/DESIGN.md §7).
		for _, ev := range peerEvents(l.Text) {
			if svc, _ := PeerService(c.b.Services, c.podNamed(l.Pod), l.Container, ev); svc != nil && !contains(want, svc.Name) && !c.haveSlices(ns, svc.Name) {
				want = append(want, svc.Name)
				peer[svc.Name] = true
			}
		}
	}
	// A running init container's wait loop names what it waits for
	// (docs/DESIGN.md §7): read only when one is waiting.
	for _, p := range c.b.Pods {
		for _, name := range waitingInitContainers(p) {
			text := ""
			if l, _ := c.b.LogsFor(p.Name, name); l != nil && l.Error == "" {
				text = l.Text
			}
			for _, t := range InitWaitTargets(p, name, text) {
				if svc, _ := ServiceForHost(c.b.Services, ns, t.Host); svc != nil && !contains(want, svc.Name) && !c.haveSlices(ns, svc.Name) {
					want = append(want, svc.Name)
				}
			}
		}
	}
	if len(want) > maxDependencies {
		want = want[:maxDependencies]
	}
	// A version's server is read by its pods alone: their readiness is
	// what its slices would say.
	read := slices.DeleteFunc(slices.Clone(want), func(name string) bool { return peer[name] })
	c.fanOut(ctx, len(read), func(i int) { c.endpointSlices(ctx, ns, read[i]) })
	for _, name := range want {
		svc, _ := ServiceForHost(c.b.Services, ns, name)
		switch {
		case svc == nil:
		case peer[name]:
			c.dependencyPods(ctx, svc, peerPod)
		case !c.readyEndpoints(ns, name):
			c.dependencyPods(ctx, svc, downPod)
		case refused[name]:
			// It answers but refused the login: the server's own log
			// says why (DESIGN.md §7).
			c.dependencyPods(ctx, svc, servingPod)
		}
	}
}

// waitingInitContainers are the pod's init containers running a first
// time without finishing (a restartable sidecar runs for the pod's life).
func waitingInitContainers(p *corev1.Pod) []string {
	if p == nil || p.Status.Phase != corev1.PodPending {
		return nil
	}
	var out []string
	for _, st := range p.Status.InitContainerStatuses {
		if st.State.Running == nil || st.LastTerminationState.Terminated != nil {
			continue
		}
		for _, ctr := range p.Spec.InitContainers {
			if ctr.Name == st.Name && (ctr.RestartPolicy == nil || *ctr.RestartPolicy != corev1.ContainerRestartPolicyAlways) {
				out = append(out, st.Name)
			}
		}
	}
	return out
}

// maxDependencyPods bounds the pods read behind a dependency Service with
// no ready endpoint: the first one not ready says why, the rest count.
const maxDependencyPods = 5

// depPod is which of a dependency's pods has the log that says why, and
// which of its logs.
type depPod int

const (
	// downPod: the first pod that is not ready, for a Service with no
	// ready endpoint: why the dependency itself is down.
	downPod depPod = iota
	// servingPod: the first ready pod, for a Service that answers but
	// refused the caller's login: its current log states the server's
	// reason (RabbitMQ's "login refused", PostgreSQL's "password
	// authentication failed for user").
	servingPod
	// peerPod: the ready pods, for a Service a version or API mismatch is
	// about: their images say the server's version; no log is read.
	peerPod
)

// dependencyPods follows a Service the logs fail to reach (or that refused
// their login) to the pods its selector picks (one bounded list) and reads
// the log of the one that says why (one request): the cause the caller's
// failure only shows.
func (c *collector) dependencyPods(ctx context.Context, svc *corev1.Service, which depPod) {
	if len(svc.Spec.Selector) == 0 {
		return
	}
	c.count()
	list, err := c.cs.CoreV1().Pods(svc.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String(), Limit: maxDependencyPods})
	if err != nil {
		c.problem("pods of service "+svc.Name, err)
		return
	}
	var first *corev1.Pod
	for i := range list.Items {
		p := &list.Items[i]
		p.ManagedFields = nil
		rp := redacted(p, gvkPod)
		c.mu.Lock()
		c.b.DependencyPods = append(c.b.DependencyPods, rp)
		c.mu.Unlock()
		if first == nil && podHealthy(rp) == (which != downPod) {
			first = rp
		}
	}
	if first == nil || which == peerPod || !c.opts.wants(NeedLogs) {
		return
	}
	r, ok := dependencyLog(first)
	if which == servingPod {
		r, ok = servingLog(first, svc)
	}
	if ok {
		c.log(ctx, first.Namespace, first.Name, r)
	}
}

// servingLog is the current log of the container that serves the
// Service's port (ServingContainer).
func servingLog(p *corev1.Pod, svc *corev1.Service) (logRequest, bool) {
	ctr := ServingContainer(p, svc)
	if ctr == nil {
		return logRequest{}, false
	}
	return logRequest{container: ctr.Name}, true
}

// ServingContainer is the container of p that serves svc's port: the one
// whose ports hold its target port (by number or name), else the pod's
// only or first container; nil for a pod without containers.
func ServingContainer(p *corev1.Pod, svc *corev1.Service) *corev1.Container {
	if len(p.Spec.Containers) == 0 {
		return nil
	}
	for i, ctr := range p.Spec.Containers {
		for _, cp := range ctr.Ports {
			for _, sp := range svc.Spec.Ports {
				tp := sp.TargetPort
				if tp.String() == cp.Name && cp.Name != "" || tp.IntValue() == int(cp.ContainerPort) || tp.IntValue() == 0 && tp.StrVal == "" && sp.Port == cp.ContainerPort {
					return &p.Spec.Containers[i]
				}
			}
		}
	}
	return &p.Spec.Containers[0]
}

// dependencyLog is the one log that says why a dependency's pod is down:
// the previous instance of a container that crashed, else the current one
// of a container that runs; none for a pod that never started one.
func dependencyLog(p *corev1.Pod) (logRequest, bool) {
	for _, st := range p.Status.ContainerStatuses {
		if st.LastTerminationState.Terminated != nil {
			return logRequest{container: st.Name, previous: true}, true
		}
	}
	for _, st := range p.Status.ContainerStatuses {
		if st.State.Running != nil && !st.Ready {
			return logRequest{container: st.Name}, true
		}
	}
	return logRequest{}, false
}

// readyEndpoints: some EndpointSlice of the Service holds a ready endpoint.
func (c *collector) readyEndpoints(ns, svc string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.b.EndpointSlices {
		if s.Namespace != ns || s.Labels[discoveryv1.LabelServiceName] != svc {
			continue
		}
		for _, e := range s.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				return true
			}
		}
	}
	return false
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

// dependencySignals are those and a login the dependency refused: its
// Service and, when it answers, its own log say why.
var dependencySignals = map[applog.Signal]bool{applog.SigDNS: true, applog.SigRefused: true, applog.SigTimeout: true, applog.SigReset: true, applog.SigUnauthorized: true}

// failingHost is a host a log fails to reach or to log in to.
type failingHost struct {
	host string
	// loginRefused: the failure is a refused login (the host answered).
	loginRefused bool
}

// FailingHosts are the hosts a log's decisive lines fail to reach: those
// they name, or, when a connection failure names no host by name (kafka-
// python's NoBrokersAvailable, a bare "Connection refused", an IP that may
// be no Service's), the hosts the container's env configures (EnvHosts),
// those its command and args name (ArgHosts) and those its earlier
// connection lines name (LoggedEndpoints).
func FailingHosts(text string, p *corev1.Pod, container string) []string {
	var out []string
	for _, h := range failingHosts(text, p, container) {
		out = append(out, h.host)
	}
	return out
}

func failingHosts(text string, p *corev1.Pod, container string) []failingHost {
	var out []failingHost
	named, refused := false, false
	add := func(h string) {
		if h != "" && !slices.ContainsFunc(out, func(f failingHost) bool { return f.host == h }) {
			out = append(out, failingHost{host: h, loginRefused: refused})
			named = named || net.ParseIP(h) == nil
		}
	}
	conn := false
	for _, d := range applog.Decide(text, applog.Options{Max: 3}) {
		sigs := applog.Signals(d.Text)
		if !dependencySignals[d.Signal()] && !slices.ContainsFunc(sigs, func(s applog.Signal) bool { return dependencySignals[s] }) {
			continue // a line may lead with another signal (SQLSTATE … Connection refused)
		}
		conn = true
		refused = d.Signal() == applog.SigUnauthorized || slices.Contains(sigs, applog.SigUnauthorized)
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
	if conn && !named && p != nil {
		for _, h := range EnvHosts(p, container) {
			add(h)
		}
		for _, h := range ArgHosts(p, container) {
			add(h)
		}
		for _, ep := range LoggedEndpoints(text) {
			if h, _, err := net.SplitHostPort(ep); err == nil {
				add(h)
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
