package network

import (
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// externalNameFinding: the host that does not resolve is an ExternalName
// Service, so the cluster DNS answers with a CNAME to its externalName and
// it is that name which has no answer. The name to fix is the Service's
// target, not the application's host.
func externalNameFinding(c *rule.Pass, svc *corev1.Service, f, crash rule.Finding, lead, named string) *rule.Finding {
	target := svc.Spec.ExternalName
	ns := svc.Namespace
	f.Category = crash.Category.Sub("ExternalName")
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Service %s is type ExternalName: the cluster DNS answers %s.%s.svc with a CNAME to %s", svc.Name, svc.Name, ns, target),
		svcRef(svc)+" .spec.externalName", fmt.Sprintf("kubectl get service %s -n %s -o jsonpath='{.spec.type} {.spec.externalName}'", svc.Name, ns)))
	short := "no DNS answer for it inside the cluster"
	why := fmt.Sprintf("%s does not resolve from inside the cluster (a name only some machines' hosts file or a private zone knows, one the cluster's upstream resolver does not serve, or a typo)", target)
	fix := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Point Service %s's externalName at a name the cluster's DNS resolves (check it from a pod: nslookup %s), or make %s resolvable by the cluster's upstream resolver.", svc.Name, target, target),
		Commands: []string{fmt.Sprintf("kubectl get service %s -n %s -o jsonpath='{.spec.externalName}'", svc.Name, ns),
			fmt.Sprintf(`kubectl patch service %s -n %s --type=merge -p '{"spec":{"externalName":"<a resolvable name>"}}'`, svc.Name, ns)}}
	switch name, otherNS := bundle.SplitServiceHost(target); {
	case net.ParseIP(target) != nil:
		// The API accepts an IPv4 string as a name; CoreDNS serves it as a
		// CNAME to a host called "10.1.2.3", which does not exist.
		short = "an IP address, not a DNS name"
		why = fmt.Sprintf("%s is an IP address, and an ExternalName is a DNS name: the CNAME points at a host literally named %s, which does not exist", target, target)
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("For a fixed IP, replace ExternalName Service %s with a Service without selector (type ClusterIP, the port) and an EndpointSlice labelled kubernetes.io/service-name=%s holding %s.", svc.Name, svc.Name, target),
			Commands:    []string{fmt.Sprintf("kubectl get service %s -n %s -o yaml", svc.Name, ns)}}
	case name != "" && otherNS != "":
		short = fmt.Sprintf("Service %s of namespace %s, which gives no answer", name, otherNS)
		why = fmt.Sprintf("%s names Service %s of namespace %s, and no answer for it means that Service does not exist there (or has no endpoint, if headless)", target, name, otherNS)
		fix.Commands = append(fix.Commands, fmt.Sprintf("kubectl get service %s -n %s", name, otherNS))
	}
	f.Title = fmt.Sprintf("%s: the application cannot resolve %s: Service %s is an ExternalName for %s, which does not resolve", lead, named, svc.Name, target)
	f.Hypothesis = fmt.Sprintf("Service %s is an ExternalName alias for %s, which the cluster DNS cannot resolve", svc.Name, target)
	f.Culprit = fmt.Sprintf("%s .spec.externalName %s (%s)", svcRef(svc), target, short)
	f.Mechanism = fmt.Sprintf("An ExternalName Service is a DNS alias: the cluster DNS answers its name with a CNAME to spec.externalName, and the client then resolves that name through the same resolver; %s, so the lookup of %s fails. %s", why, svc.Name, crash.Mechanism)
	f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), crash.Summary)
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	return &f
}
