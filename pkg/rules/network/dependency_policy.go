package network

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// callerBlocked is the ingress side seen from the caller: the policies of
// the namespace that select the Service's pods (its selector's labels stand
// for theirs) isolate their ingress and no rule admits the caller pod p on
// the port the Service forwards to. It returns those policies and the port
// label, or nil when some rule admits p (or none isolates the pods).
func callerBlocked(c *rule.Pass, p *corev1.Pod, svc *corev1.Service, port string) ([]*networkingv1.NetworkPolicy, string) {
	if len(svc.Spec.Selector) == 0 {
		return nil, ""
	}
	backend := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Labels: svc.Spec.Selector}}
	pols := selectingPolicies(c.B.NetworkPolicies, backend, networkingv1.PolicyTypeIngress)
	if len(pols) == 0 {
		return nil, ""
	}
	sp := servicePort(svc, port)
	if sp == nil {
		return nil, ""
	}
	number, name := sp.Port, ""
	switch {
	case sp.TargetPort.Type == intstr.String:
		number, name = 0, sp.TargetPort.StrVal
	case sp.TargetPort.IntVal != 0:
		number = sp.TargetPort.IntVal
	}
	var nsLabels labels.Set
	if c.B.Namespace != nil && c.B.Namespace.Name == p.Namespace {
		nsLabels = c.B.Namespace.Labels
	} else {
		nsLabels = labels.Set{nsNameLabel: p.Namespace}
	}
	for _, np := range pols {
		for _, r := range np.Spec.Ingress {
			if !portAllowed(r.Ports, number, name, sp.Protocol) {
				continue
			}
			if peersAdmit(r.From, p, nsLabels) {
				return nil, ""
			}
		}
	}
	label := fmt.Sprintf("TCP %d", number)
	if name != "" {
		label = "port " + name
	}
	return pols, label
}

// peersAdmit: an ingress rule's from list admits pod p (with its
// namespace's labels). No peers admit everyone; an ipBlock is given the
// benefit of the doubt (pod IPs may be in it).
func peersAdmit(from []networkingv1.NetworkPolicyPeer, p *corev1.Pod, nsLabels labels.Set) bool {
	if len(from) == 0 {
		return true
	}
	for _, peer := range from {
		if peer.IPBlock != nil {
			return true
		}
		nsOK := peer.NamespaceSelector == nil // a podSelector alone: the policy's own namespace
		if peer.NamespaceSelector != nil {
			sel, err := metav1.LabelSelectorAsSelector(peer.NamespaceSelector)
			nsOK = err == nil && sel.Matches(nsLabels)
		}
		podOK := true
		if peer.PodSelector != nil {
			sel, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
			podOK = err == nil && sel.Matches(labels.Set(p.Labels))
		}
		if nsOK && podOK {
			return true
		}
	}
	return false
}

// servicePort is the Service port the caller dials: the one numbered port,
// else the only one.
func servicePort(svc *corev1.Service, port string) *corev1.ServicePort {
	for i := range svc.Spec.Ports {
		if strconv.Itoa(int(svc.Spec.Ports[i].Port)) == port {
			return &svc.Spec.Ports[i]
		}
	}
	if len(svc.Spec.Ports) == 1 {
		return &svc.Spec.Ports[0]
	}
	return nil
}

// policyFinding: the caller times out on a Service whose pods a policy
// isolates without admitting the caller.
func policyFinding(c *rule.Pass, p *corev1.Pod, svc *corev1.Service, f rule.Finding, crash rule.Finding, lead, named string, pols []*networkingv1.NetworkPolicy, port string) *rule.Finding {
	np := pols[0]
	f.Category = crash.Category.Sub("NetworkPolicy")
	f.Title = fmt.Sprintf("%s: the application's connection to Service %s (%s) times out: NetworkPolicy %s isolates the Service's pods and admits no ingress from pod %s on %s", lead, svc.Name, named, np.Name, p.Name, port)
	f.Hypothesis = fmt.Sprintf("NetworkPolicy %s drops pod %s's connections to Service %s's pods", np.Name, p.Name, svc.Name)
	f.Culprit = fmt.Sprintf("networkpolicy/%s .spec.ingress (selects Service %s's pods %s; no rule admits pod %s on %s)", np.Name, svc.Name, selectorText(np), p.Name, port)
	f.Mechanism = fmt.Sprintf("Once a NetworkPolicy with policyType Ingress selects a pod, the network plugin drops every connection no ingress rule admits; the caller sees a timeout, not a refusal. %s", crash.Mechanism)
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("NetworkPolicy %s selects Service %s's pods (podSelector %s) and isolates their ingress: %s", np.Name, svc.Name, selectorText(np), describeRules(pols, networkingv1.PolicyTypeIngress)),
		"networkpolicy/"+np.Name+" .spec", fmt.Sprintf("kubectl get networkpolicy -n %s -o yaml", np.Namespace)))
	who := "pod " + p.Name
	if len(p.Labels) > 0 {
		who = "pods labelled " + labels.Set(p.Labels).String()
	}
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Add an ingress rule to NetworkPolicy %s admitting %s from %s (a from: podSelector on the caller's labels), or give the caller the labels an existing rule admits.", np.Name, port, who),
		Commands:    []string{fmt.Sprintf("kubectl get networkpolicy %s -n %s -o yaml", np.Name, np.Namespace), fmt.Sprintf("kubectl get pod %s -n %s --show-labels", p.Name, p.Namespace)}}}, crash.Actions...)
	if ns := c.B.Namespace; ns != nil && ns.Name == p.Namespace {
		if pol, key, val := namespaceLabelMiss(pols, ns); pol != "" {
			// The commonest way such a rule misses: namespaceSelector
			// selects labels, and only kubernetes.io/metadata.name is set
			// on every namespace (https://kubernetes.io/docs/concepts/services-networking/network-policies/#targeting-a-namespace-by-its-name).
			f.Culprit += fmt.Sprintf("; its namespaceSelector %s=%s matches no label of namespace %s", key, val, ns.Name)
			f.Contributing = append(f.Contributing, fmt.Sprintf("NetworkPolicy %s admits namespaces labelled %s=%s, meaning namespace %s, which carries no such label: a namespaceSelector matches labels, not names; every namespace carries %s=<its name>.", pol, key, val, ns.Name, labelNamespaceName))
			f.Actions = append([]report.Action{{Kind: report.Immediate,
				Description: fmt.Sprintf("Select namespace %s by the label every namespace carries: replace %s=%s with %s=%s in NetworkPolicy %s's namespaceSelector (or label the namespace %s=%s).", ns.Name, key, val, labelNamespaceName, ns.Name, pol, key, val),
				Commands:    []string{fmt.Sprintf("kubectl get namespace %s --show-labels", ns.Name), fmt.Sprintf("kubectl get networkpolicy %s -n %s -o yaml", pol, np.Namespace)}}}, f.Actions...)
		}
	}
	f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), crash.Summary)
	return &f
}

// labelNamespaceName is the label the API server sets on every namespace.
const labelNamespaceName = "kubernetes.io/metadata.name"

// namespaceLabelMiss finds an ingress peer whose namespaceSelector names
// namespace ns by a label ns does not carry (name=<ns>): the rule was
// meant to admit ns and admits nothing.
func namespaceLabelMiss(pols []*networkingv1.NetworkPolicy, ns *corev1.Namespace) (policy, key, value string) {
	for _, np := range pols {
		for _, r := range np.Spec.Ingress {
			for _, peer := range r.From {
				if peer.NamespaceSelector == nil {
					continue
				}
				for _, k := range kube.SortedKeys(peer.NamespaceSelector.MatchLabels) {
					if v := peer.NamespaceSelector.MatchLabels[k]; k != labelNamespaceName && v == ns.Name && ns.Labels[k] != v {
						return np.Name, k, v
					}
				}
			}
		}
	}
	return "", "", ""
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackFinding: the application dials localhost (its default, or a
// docker-compose habit) and no container of its pod declares that port:
// in a pod, localhost is the pod itself, and the dependency is another
// pod behind a Service. A sidecar declaring the port (a proxy) is left to
// the other rules.
func loopbackFinding(c *rule.Pass, p *corev1.Pod, f rule.Finding, crash rule.Finding, lead, host, port, from, line string) *rule.Finding {
	if port == "" {
		return nil
	}
	for _, ctr := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, cp := range ctr.Ports {
			if strconv.Itoa(int(cp.ContainerPort)) == port {
				return nil
			}
		}
	}
	var exposing []string
	for _, s := range c.B.Services {
		if s.Namespace == p.Namespace && exposes(s, port) {
			exposing = append(exposing, s.Name)
		}
	}
	hp := net.JoinHostPort(host, port)
	f.Category = crash.Category.Sub("Localhost")
	f.Title = fmt.Sprintf("%s: the application dials %s (from %s), but no container of pod %s listens on port %s: in Kubernetes localhost is the pod itself", lead, hp, from, p.Name, port)
	f.Hypothesis = fmt.Sprintf("The application is configured to reach its dependency at %s, which inside the pod is the pod itself", hp)
	f.Culprit = fmt.Sprintf("%s (from %s): no container of pod %s declares port %s", hp, from, p.Name, port)
	f.Mechanism = fmt.Sprintf("Every container of a pod shares one network namespace: localhost reaches only the pod's own containers. A dependency in another pod is reached through its Service's DNS name. %s", crash.Mechanism)
	target := "the dependency's Service name (<service>." + p.Namespace + ".svc)"
	if len(exposing) == 1 {
		target = fmt.Sprintf("Service %s (%s.%s.svc:%s), which exposes port %s in the namespace", exposing[0], exposing[0], p.Namespace, port, port)
	}
	if len(exposing) > 0 {
		f.Contributing = append(f.Contributing, fmt.Sprintf("Services of namespace %s exposing port %s: %s.", p.Namespace, port, strings.Join(firstNames(exposing, 5), ", ")))
	}
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Configure the application to reach %s instead of %s (the env variable or config file that sets the host).", target, hp),
		Commands:    []string{fmt.Sprintf("kubectl get services -n %s", p.Namespace), fmt.Sprintf(`kubectl get pod %s -n %s -o jsonpath='{.spec.containers[*].env}'`, p.Name, p.Namespace)}}}, crash.Actions...)
	_, ctr, _ := strings.Cut(crash.Subject, "/")
	if client, env, ok := loopbackDefault(p, ctr, line, host, port); ok && env != "" {
		// No variable names the address: the client fell back to its
		// default because the one that configures it is unset.
		f.Category = f.Category.Sub("DefaultUnset")
		f.Title = fmt.Sprintf("%s: the application dials %s, %s default, because %s is not set on container %s: in Kubernetes localhost is the pod itself", lead, hp, client, env, ctr)
		f.Hypothesis = fmt.Sprintf("%s is unset, so the client dials its default %s, which inside the pod is the pod itself", env, hp)
		f.Culprit = fmt.Sprintf("%s unset on container %s: %s falls back to %s (no container of pod %s declares port %s)", env, ctr, client, hp, p.Name, port)
		f.Actions[0].Description = fmt.Sprintf("Set %s on container %s to %s.", env, ctr, target)
	} else if ok {
		f.Contributing = append(f.Contributing, fmt.Sprintf("No env variable of container %s names %s: the address is the client's default, so the variable that should configure it is unset.", ctr, hp))
	}
	f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), crash.Summary)
	return &f
}
