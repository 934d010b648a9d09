package network

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
)

// InitDependency is the rule network/init-dependency.
var InitDependency = &rule.Rule{
	Meta: rule.Meta{
		ID:       "network/init-dependency",
		Kinds:    []string{"Pod", "Deployment"},
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{pod.InitRunning},
		Needs:    []rule.Need{rule.Pods, rule.Logs, rule.NamespaceServices, rule.Dependencies},
		Doc:      "The host a running init container's wait loop waits for (its nslookup/nc -z/wait-for-it/pg_isready/curl target, or the host its log fails to reach) checked against the namespace's Services: none of that name (or a near miss), one without ready endpoints, or one without the port.",
	},
	Check: checkInitDependency,
}

// checkInitDependency reads the init-running finding of each init
// container that keeps waiting, takes the hosts its wait loop names and
// says what the namespace holds under each: it speaks only when the
// cluster shows the fault that keeps the loop waiting (docs/DESIGN.md §7).
func checkInitDependency(c *rule.Pass) []rule.Finding {
	if servicesUnread(c) {
		return nil
	}
	var out []rule.Finding
	for _, init := range c.ResultOf(pod.InitRunning) {
		podName, ctr, _ := strings.Cut(init.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		text := ""
		if l, _ := c.B.LogsFor(p.Name, ctr); l != nil && l.Error == "" {
			text = l.Text
		}
		for _, t := range bundle.InitWaitTargets(p, ctr, text) {
			if f := initDependencyFinding(c, p, ctr, init, t, text); f != nil {
				out = append(out, *f)
				break
			}
		}
	}
	return out
}

// initDependencyFinding builds on the init-running finding what the
// namespace holds under the target's name; nil when it shows no fault.
func initDependencyFinding(c *rule.Pass, p *corev1.Pod, ctr string, init rule.Finding, t bundle.WaitTarget, log string) *rule.Finding {
	ns := p.Namespace
	name, _ := bundle.SplitServiceHost(t.Host)
	if name == "" {
		return nil // a name outside the cluster's Service domain
	}
	svc, otherNS := bundle.ServiceForHost(c.B.Services, ns, t.Host)
	if otherNS != "" {
		return nil // another namespace's Services are not listed
	}
	f := init
	f.Strength, f.Confidence = rule.Traced, rule.Strong
	f.Current = true
	named := fmt.Sprintf("%s, from %s", t.HostPort(), t.From)
	lead := fmt.Sprintf("init container %s waits for %s (from %s)", ctr, t.HostPort(), t.From)
	f.Contributing = append(slices.Clone(init.Contributing), init.Title+".")
	if svc == nil {
		if c.B.Cluster.ServicesListed != ns || refusedIn(log, t.Host) {
			// Not read whole, or the name resolved (a refusal comes from
			// an address): absent from the bundle is not absent.
			return nil
		}
		var names []string
		for _, s := range c.B.Services {
			if s.Namespace == ns {
				names = append(names, s.Name)
			}
		}
		f.Evidence = append(slices.Clone(init.Evidence), c.Evidence(fmt.Sprintf("Namespace %s has no Service named %s; its Services: %s", ns, name, orNone(firstNames(names, 8))),
			"services of namespace "+ns, fmt.Sprintf("kubectl get services -n %s", ns)))
		if near := nearestService(name, names); near != "" {
			f.Category = rule.InitContainer.Sub("ServiceNameMismatch")
			f.Title = fmt.Sprintf("%s: namespace %s has no Service %s, but has Service %s (a near miss); pod %s never starts its app containers", lead, ns, name, near, p.Name)
			f.Hypothesis = fmt.Sprintf("Init container %s waits for host %s where the Service is named %s", ctr, name, near)
			f.Culprit = fmt.Sprintf("%s init container %s waits for %s: no Service %s in namespace %s (Service %s exists)", kube.PodRef(p), ctr, named, name, ns, near)
			f.Actions = []report.Action{{Kind: report.Immediate,
				Description: fmt.Sprintf("Point init container %s at Service %s (fix the host in its command), or, if %s is the intended name, create or rename the Service.", ctr, near, name),
				Commands:    []string{fmt.Sprintf("kubectl get service %s -n %s -o wide", near, ns), initCommandCmd(p, ctr)}}}
		} else {
			f.Category = rule.InitContainer.Sub("ServiceMissing")
			f.Title = fmt.Sprintf("%s: namespace %s has no Service %s, so the wait never ends and pod %s never starts its app containers", lead, ns, name, p.Name)
			f.Hypothesis = fmt.Sprintf("No Service %s exists in namespace %s for init container %s to find", name, ns, ctr)
			f.Culprit = fmt.Sprintf("%s init container %s waits for %s: no Service %s in namespace %s", kube.PodRef(p), ctr, named, name, ns)
			f.Actions = []report.Action{{Kind: report.Immediate,
				Description: fmt.Sprintf("Create Service %s in namespace %s (deploy the dependency it fronts), or correct the host init container %s waits for.", name, ns, ctr),
				Commands:    []string{fmt.Sprintf("kubectl get services -n %s", ns), fmt.Sprintf("kubectl get services -A --field-selector metadata.name=%s", name), initCommandCmd(p, ctr)}}}
		}
		f.Mechanism = "Cluster DNS answers for a Service name only when the Service exists in the namespace asked for, so a lookup or connection check against it fails on every pass of the loop. " + init.Mechanism
		f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), init.Summary)
		return &f
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	ep := EndpointsOf(c, svc)
	svcEv := c.Evidence(fmt.Sprintf("Service %s (type %s, cluster IP %s) exposes %s; %s", svc.Name, kube.OrDash(string(svc.Spec.Type)), kube.OrDash(svc.Spec.ClusterIP), servicePorts(svc), ep.Summary()),
		svcRef(svc)+" and its EndpointSlices", fmt.Sprintf(serviceEndpointsSelector, ns, svc.Name))
	f.Evidence = append(slices.Clone(init.Evidence), svcEv)
	switch {
	case ep.Slices > 0 && len(ep.Ready) == 0:
		f.Category = rule.InitContainer.Sub("ServiceNotReady")
		notReady := "no endpoint at all"
		if len(ep.NotReady) > 0 {
			notReady = "not ready: " + strings.Join(firstNames(ep.NotReady, 3), ", ")
		}
		f.Title = fmt.Sprintf("%s: Service %s has no ready endpoint (%s), so the wait never ends and pod %s never starts its app containers", lead, svc.Name, notReady, p.Name)
		f.Hypothesis = fmt.Sprintf("Service %s exists but none of its pods is Ready, so init container %s keeps waiting", svc.Name, ctr)
		f.Culprit = fmt.Sprintf("%s (%s): 0 ready endpoints, %s", svcRef(svc), named, notReady)
		if down := downDependency(c, svc); down != nil {
			f.Title = fmt.Sprintf("%s: Service %s has no ready endpoint: %s", lead, svc.Name, down.text())
			f.Culprit = fmt.Sprintf("%s (%s): 0 ready endpoints; %s", svcRef(svc), named, down.text())
			f.Evidence = append(f.Evidence, down.Evidence...)
			f.Contributing = append(f.Contributing, fmt.Sprintf("Service %s's pod %s is %s: fix it first, the init container waits only because of it.", svc.Name, down.Pod, down.State))
		}
		f.Mechanism = "A Service forwards only to Ready endpoints; with none, every connection check of the wait loop is refused or times out. " + init.Mechanism
		f.Actions = []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Fix Service %s's pods: init container %s waits until they are Ready. Triage them.", svc.Name, ctr),
			Commands:    []string{fmt.Sprintf(serviceEndpointsSelector, ns, svc.Name), fmt.Sprintf("kubectl triage service/%s -n %s", svc.Name, ns)}}}
	case t.Port != "" && !exposes(svc, t.Port):
		f.Category = rule.InitContainer.Sub("ServicePortMismatch")
		f.Title = fmt.Sprintf("%s: Service %s does not expose port %s (it exposes %s), so the wait never ends and pod %s never starts its app containers", lead, svc.Name, t.Port, servicePorts(svc), p.Name)
		f.Hypothesis = fmt.Sprintf("Init container %s checks Service %s on port %s, which the Service does not expose", ctr, svc.Name, t.Port)
		f.Culprit = fmt.Sprintf("%s (%s): port %s not among its ports %s", svcRef(svc), named, t.Port, servicePorts(svc))
		f.Mechanism = "A Service's cluster IP answers only on the ports it declares; a check on another port never succeeds. " + init.Mechanism
		f.Actions = []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Point init container %s at one of Service %s's ports (%s), or add port %s to the Service.", ctr, svc.Name, servicePorts(svc), t.Port),
			Commands:    []string{fmt.Sprintf("kubectl get service %s -n %s -o jsonpath='{.spec.ports}'", svc.Name, ns), initCommandCmd(p, ctr)}}}
	default:
		return nil // it exists, serves and exposes the port: the wait is on something else
	}
	f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), init.Summary)
	return &f
}

// refusedIn: the log says a connection to host was refused, so the name
// resolved.
func refusedIn(log, host string) bool {
	for _, l := range strings.Split(strings.ToLower(log), "\n") {
		if strings.Contains(l, "refused") && strings.Contains(l, host) {
			return true
		}
	}
	return false
}

func initCommandCmd(p *corev1.Pod, ctr string) string {
	return fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.initContainers[?(@.name=="%s")].command}'`, p.Name, kube.NSFlag(p), ctr)
}
