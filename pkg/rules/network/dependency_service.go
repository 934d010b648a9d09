package network

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
)

// DependencyService is the rule network/dependency-service.
var DependencyService = &rule.Rule{
	Meta: rule.Meta{
		ID:       "network/dependency-service",
		Kinds:    []string{"Pod", "Deployment"},
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{pod.CrashLoop, pod.Probe, pod.RunningErrors},
		Needs:    []rule.Need{rule.Pods, rule.Events, rule.Logs, rule.NamespaceServices, rule.Dependencies, rule.NetworkPolicies},
		Doc:      "A crashing (probe-failing, or running but repeating a connection error) container's unresolvable or unreachable host checked against the namespace's Services: none of that name (or a near miss), one without ready endpoints or without the port, or one whose pods a NetworkPolicy isolates from the caller; a login refused by a Service that answers, named by the refusal its own pod logs.",
	},
	Check: checkDependencyService,
}

// checkDependencyService reads the crash loop's finding for each container
// whose decisive line is a DNS failure or a refused connection, takes the
// host the line names (or the one the container's env configures), and
// says what the namespace holds under that name. It speaks only when the
// cluster shows a fault: no such Service, a Service by a nearly equal name,
// one with no ready endpoint, one that does not expose the port dialled.
func checkDependencyService(c *rule.Pass) []rule.Finding {
	if servicesUnread(c) {
		return nil
	}
	var out []rule.Finding
	// A container that crashes, runs but fails its probes (a health
	// check that needs the database), or runs and retries a dependency
	// forever (a worker's broker): each says why in its log.
	found := append(append(c.ResultOf(pod.CrashLoop), c.ResultOf(pod.Probe)...), c.ResultOf(pod.RunningErrors)...)
	seen := map[string]bool{}
	for _, crash := range found {
		if seen[crash.Subject] {
			continue
		}
		podName, ctr, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		dec, _ := logs.LastDecisive(c, p, ctr)
		if st := containerStatus(p, ctr); dec != nil && st != nil && st.LastTerminationState.Terminated != nil {
			dec = logs.ForExit(dec, st.LastTerminationState.Terminated.ExitCode)
		}
		if dec == nil {
			continue
		}
		dns := dec.Pattern.Class == logs.DNS
		auth := dec.Pattern.Class == logs.AuthFailed
		if !dns && !auth && dec.Pattern.Class != logs.ConnectionRefused && !timesOut(dec.Line) {
			continue
		}
		host, port, from := dependencyHost(p, ctr, dec)
		if host == "" {
			host, port, from = configuredService(c, p, ctr)
		}
		if host == "" {
			continue
		}
		if svc, _ := bundle.ServiceForHost(c.B.Services, p.Namespace, host); svc == nil && net.ParseIP(host) != nil {
			if h, fr := nameForIP(c, p, ctr, dec.Entities.Hosts, port); h != "" {
				host, from = h, fmt.Sprintf("%s: %s is no Service's cluster IP", fr, host)
			}
		}
		if auth {
			// The server answered: what it says of the login is the
			// fault, not whether it can be reached.
			if f := authFinding(c, p, crash, dec, host, port, from); f != nil {
				seen[crash.Subject] = true
				out = append(out, *f)
			}
			continue
		}
		if cat := string(crash.Category); !strings.Contains(cat, "/"+dec.Pattern.Class.String()) && dec.Pattern.Dependency() {
			crash.Category = crash.Category.Sub(dec.Pattern.Class.String())
		}
		refused := strings.Contains(strings.ToLower(dec.Line+" "+dec.Raw), "refused") || strings.Contains(dec.Line, "ECONNREFUSED")
		if f := dependencyFinding(c, p, crash, dec, host, port, from, dns, refused); f != nil {
			seen[crash.Subject] = true
			out = append(out, *f)
		}
	}
	return out
}

func containerStatus(p *corev1.Pod, name string) *corev1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == name {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// servicesUnread: the namespace's Services could not be listed, so "no
// such Service" cannot be said.
func servicesUnread(c *rule.Pass) bool {
	for _, pr := range c.B.Problems {
		if strings.HasPrefix(pr.What, "services of ") {
			return true
		}
	}
	return false
}

// dependencyHost is the host (and port, when named) the decisive line
// fails to reach: the name that did not resolve, a named endpoint (a name
// before an IP), or the endpoint the container's env configures when the
// line names none. from says where it was read.
func dependencyHost(p *corev1.Pod, ctr string, dec *logs.Decisive) (host, port, from string) {
	// The line first: the rest of its event may hold a location that
	// reads as host:port (Node's "node:internal/process/promises:289").
	e := applog.Extract(dec.Line)
	if len(e.Unresolved) == 0 && len(e.Endpoints) == 0 {
		e = dec.Entities
	}
	if len(e.Unresolved) > 0 {
		h, pt := splitHostPort(e.Unresolved[0])
		return h, pt, "the log line"
	}
	var ipHost, ipPort string
	for _, ep := range e.Endpoints {
		h, pt := splitHostPort(ep)
		if net.ParseIP(h) == nil {
			return h, pt, "the log line"
		}
		if ipHost == "" {
			ipHost, ipPort = h, pt
		}
	}
	// A URL's host (amqp://guest:**@rabbit:5672//), which is no bare
	// host:port to the log component; a URL cut short by a redacted
	// password ("amqp://guest:[REDACTED") names none.
	for _, u := range e.URLs {
		if h, pt := urlHostPort(u); hostNameRe.MatchString(h) && net.ParseIP(h) == nil {
			return h, pt, "the log line"
		}
	}
	if ipHost != "" {
		return ipHost, ipPort, "the log line"
	}
	if name, value := logs.ConfiguredEndpoint(p, ctr, dec); name != "" {
		ents := applog.Extract(value)
		if len(ents.Endpoints) > 0 {
			h, pt := splitHostPort(ents.Endpoints[0])
			return h, pt, "env " + name
		}
		if len(ents.Hosts) > 0 {
			return ents.Hosts[0], "", "env " + name
		}
	}
	return "", "", ""
}

// hostNameRe is a DNS name as a client dials it.
var hostNameRe = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$`)

func splitHostPort(s string) (string, string) {
	if h, p, err := net.SplitHostPort(s); err == nil {
		return h, p
	}
	return s, ""
}

// dependencyFinding builds on the crash finding what the namespace holds
// under the host's name; nil when it shows no fault.
func dependencyFinding(c *rule.Pass, p *corev1.Pod, crash rule.Finding, dec *logs.Decisive, host, port, from string, dns, refused bool) *rule.Finding {
	ns := p.Namespace
	svc, otherNS := bundle.ServiceForHost(c.B.Services, ns, host)
	if otherNS != "" {
		return nil // a Service of another namespace: named by the crash finding, not listed here
	}
	f := crash
	f.Strength, f.Confidence = rule.Traced, rule.Strong
	where := fmt.Sprintf("host %s (from %s)", net.JoinHostPort(host, port), from)
	if port == "" {
		where = fmt.Sprintf("host %s (from %s)", host, from)
	}
	hp := host
	if port != "" {
		hp = net.JoinHostPort(host, port)
	}
	named := fmt.Sprintf("%s, from %s", hp, from)
	reach := "reach"
	if dns {
		reach = "resolve"
	}
	// The decisive line stays in the root cause: the cluster fact explains it.
	f.Contributing = append(slices.Clone(crash.Contributing), fmt.Sprintf("The application's log says: %q.", dec.Line))
	lead := crashLead(crash)
	if svc == nil && isLoopback(host) && !dns {
		return loopbackFinding(c, p, f, crash, lead, host, port, from, dec.Line)
	}
	if svc == nil {
		name, _ := bundle.SplitServiceHost(host)
		if name == "" || net.ParseIP(host) != nil || name == "localhost" {
			return nil
		}
		if refused {
			// The name resolved (a refusal comes from an address): a
			// missing Service would have failed the lookup instead.
			return nil
		}
		if c.B.Cluster.ServicesListed != ns {
			// The namespace's Services were not read whole: absent from
			// the bundle is not absent from the cluster.
			return nil
		}
		var names []string
		for _, s := range c.B.Services {
			if s.Namespace == ns {
				names = append(names, s.Name)
			}
		}
		near := nearestService(name, names)
		listed := c.Evidence(fmt.Sprintf("Namespace %s has no Service named %s; its Services: %s", ns, name, orNone(firstNames(names, 8))),
			"services of namespace "+ns, fmt.Sprintf("kubectl get services -n %s", ns))
		f.Evidence = append(f.Evidence, listed)
		if near != "" {
			f.Category = crash.Category.Sub("ServiceNameMismatch")
			f.Title = fmt.Sprintf("%s: the application cannot %s %s: namespace %s has no Service %s, but has Service %s (a near miss)", lead, reach, where, ns, name, near)
			f.Hypothesis = fmt.Sprintf("The application is configured with host %s where the Service is named %s", name, near)
			f.Culprit = fmt.Sprintf("%s: no Service %s in namespace %s (Service %s exists)", where, name, ns, near)
			f.Actions = append([]report.Action{{Kind: report.Immediate,
				Description: fmt.Sprintf("Point the application at Service %s (fix the host in its env or config file), or, if %s is the intended name, create or rename the Service so that %s resolves.", near, name, name),
				Commands:    []string{fmt.Sprintf("kubectl get service %s -n %s -o wide", near, ns), fmt.Sprintf(serviceEndpointsSelector, ns, near)}}}, crash.Actions...)
		} else {
			f.Category = crash.Category.Sub("ServiceMissing")
			f.Title = fmt.Sprintf("%s: the application cannot %s %s: namespace %s has no Service %s", lead, reach, where, ns, name)
			f.Hypothesis = fmt.Sprintf("No Service %s exists in namespace %s for the application to reach", name, ns)
			f.Culprit = fmt.Sprintf("%s: no Service %s in namespace %s", where, name, ns)
			f.Actions = append([]report.Action{{Kind: report.Immediate,
				Description: fmt.Sprintf("Create Service %s in namespace %s (deploy the dependency it fronts), or correct the host the application is configured with.", name, ns),
				Commands:    []string{fmt.Sprintf("kubectl get services -n %s", ns), fmt.Sprintf("kubectl get services -A --field-selector metadata.name=%s", name)}}}, crash.Actions...)
		}
		f.Mechanism = fmt.Sprintf("Cluster DNS answers for a Service name only when the Service exists in the namespace asked for; %s. %s", dnsOrConnect(dns), crash.Mechanism)
		f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), crash.Summary)
		return &f
	}
	if dns && svc.Spec.Type == corev1.ServiceTypeExternalName {
		return externalNameFinding(c, svc, f, crash, lead, named)
	}
	if dns && svc.Spec.ClusterIP != corev1.ClusterIPNone {
		// A Service with a cluster IP resolves whatever its endpoints:
		// the lookup itself fails (cluster DNS, or egress to it).
		return nil
	}
	ep := EndpointsOf(c, svc)
	svcEv := c.Evidence(fmt.Sprintf("Service %s (type %s, cluster IP %s) exposes %s; %s", svc.Name, kube.OrDash(string(svc.Spec.Type)), kube.OrDash(svc.Spec.ClusterIP), servicePorts(svc), ep.Summary()),
		svcRef(svc)+" and its EndpointSlices", fmt.Sprintf(serviceEndpointsSelector, ns, svc.Name))
	switch {
	case ep.Slices > 0 && len(ep.Ready) == 0:
		// Slices are read only when the log names the Service; the
		// EndpointSlice controller keeps one per selector Service, empty
		// when the selector matches no Ready pod.
		f.Category = crash.Category.Sub("ServiceNotReady")
		notReady := "no endpoint at all"
		if len(ep.NotReady) > 0 {
			notReady = "not ready: " + strings.Join(firstNames(ep.NotReady, 3), ", ")
		}
		f.Title = fmt.Sprintf("%s: the application cannot reach Service %s (%s): the Service has no ready endpoint (%s)", lead, svc.Name, named, notReady)
		f.Hypothesis = fmt.Sprintf("Service %s exists but none of its pods is Ready, so the application cannot reach it", svc.Name)
		f.Culprit = fmt.Sprintf("%s (%s): 0 ready endpoints, %s", svcRef(svc), named, notReady)
		if down := downDependency(c, svc); down != nil {
			// The dependency's own failure is the cause to fix.
			f.Title = fmt.Sprintf("%s: the application cannot reach Service %s (%s): %s", lead, svc.Name, named, down.text())
			f.Culprit = fmt.Sprintf("%s (%s): 0 ready endpoints; %s", svcRef(svc), named, down.text())
			f.Evidence = append(f.Evidence, down.Evidence...)
			f.Contributing = append(f.Contributing, fmt.Sprintf("Service %s's pod %s is %s: fix it first, this container fails only because of it.", svc.Name, down.Pod, down.State))
		}
		f.Mechanism = fmt.Sprintf("A Service forwards only to Ready endpoints; with none, a connection to its cluster IP is refused or times out (and a headless Service's name does not resolve). %s", crash.Mechanism)
		f.Actions = append([]report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Fix Service %s's pods first: this container only fails because they are not Ready. Triage them, and make the application wait or retry instead of exiting.", svc.Name),
			Commands:    []string{fmt.Sprintf(serviceEndpointsSelector, ns, svc.Name), fmt.Sprintf("kubectl triage service/%s -n %s", svc.Name, ns)}}}, crash.Actions...)
	case port != "" && !dns && !exposes(svc, port):
		f.Category = crash.Category.Sub("ServicePortMismatch")
		f.Title = fmt.Sprintf("%s: the application dials Service %s on port %s (from %s), a port the Service does not expose (it exposes %s)", lead, svc.Name, port, from, servicePorts(svc))
		f.Hypothesis = fmt.Sprintf("The application dials Service %s on port %s, which the Service does not expose", svc.Name, port)
		f.Culprit = fmt.Sprintf("%s (%s): port %s not among its ports %s", svcRef(svc), named, port, servicePorts(svc))
		f.Mechanism = fmt.Sprintf("A Service's cluster IP answers only on the ports it declares; others are refused. %s", crash.Mechanism)
		f.Actions = append([]report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Point the application at one of Service %s's ports (%s), or add port %s to the Service.", svc.Name, servicePorts(svc), port),
			Commands:    []string{fmt.Sprintf("kubectl get service %s -n %s -o jsonpath='{.spec.ports}'", svc.Name, ns)}}}, crash.Actions...)
	case !dns && !refused:
		// It serves and exposes the port, yet the connection times out:
		// a policy around its pods may drop this caller.
		pols, label := callerBlocked(c, p, svc, port)
		if pols == nil {
			return nil
		}
		return policyFinding(c, p, svc, f, crash, lead, named, pols, label)
	default:
		return nil // it exists, serves and exposes the port: the fault is elsewhere
	}
	f.Evidence = append(f.Evidence, svcEv)
	f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), crash.Summary)
	return &f
}

func dnsOrConnect(dns bool) string {
	if dns {
		return "the name does not resolve, so the application cannot connect"
	}
	return "the application's connection fails before it reaches any pod"
}

// nearestService is the one Service name a requested name nearly is: one
// or two edits away, or the same name with a suffix or prefix
// ("netbox" and "netbox-app"). "" when none or several.
func nearestService(name string, names []string) string {
	var near []string
	for _, n := range names {
		d := kube.EditDistance(name, n)
		affix := len(name) >= 3 && (strings.HasPrefix(n, name+"-") || strings.HasSuffix(n, "-"+name) || strings.HasPrefix(name, n+"-") || strings.HasSuffix(name, "-"+n))
		if (d <= 2 && d*3 <= len(name)) || affix {
			near = append(near, n)
		}
	}
	if len(near) != 1 {
		return ""
	}
	return near[0]
}

func servicePorts(svc *corev1.Service) string {
	var ps []string
	for _, p := range svc.Spec.Ports {
		ps = append(ps, strconv.Itoa(int(p.Port)))
	}
	return orNone(ps)
}

func exposes(svc *corev1.Service, port string) bool {
	for _, p := range svc.Spec.Ports {
		if strconv.Itoa(int(p.Port)) == port {
			return true
		}
	}
	return false
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// timesOut: the line states a timeout (a dial that got no answer).
func timesOut(line string) bool {
	return slices.Contains(applog.Signals(line), applog.SigTimeout)
}

// crashLead is the crash finding's own words for what the container does,
// before its reason ("container app crashes with exit code 1", "init
// container …"): the start of a headline that names the dependency.
func crashLead(crash rule.Finding) string {
	lead := crash.Title
	if i := strings.IndexAny(lead, ":;"); i > 0 {
		lead = lead[:i]
	}
	return lead
}
