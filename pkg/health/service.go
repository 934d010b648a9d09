package health

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
)

var serviceEndpoints = &Check{
	ID: "service/endpoints", Kinds: []string{"Service"},
	Doc: "A Service that sends traffic to endpoints (every type but ExternalName) has at least one ready endpoint.",
	Run: func(c *rule.Pass) []Result {
		svc := kube.TargetOf(c, "Service", c.B.Services)
		if svc == nil || !expectsEndpoints(svc) {
			return nil
		}
		if kube.CollectionFailed(c, "endpointslices") {
			return []Result{unchecked("Not checked: the endpoints of Service %s (its EndpointSlices could not be read)", svc.Name)}
		}
		eps := network.EndpointsOf(c, svc)
		if len(eps.Ready) == 0 {
			return []Result{fail("Service %s has no ready endpoint: %s", svc.Name, eps.Summary())}
		}
		return []Result{pass("Service %s has %d ready endpoint(s): %s", svc.Name, len(eps.Ready), kube.NamesUpTo(eps.Ready, 5))}
	},
}

// lbNodes: a load balancer's address carries traffic only through the
// nodes it may send it to (network.LBExclusion).
func lbNodes(c *rule.Pass, svc *corev1.Service) Result {
	nodes, ok := network.LBNodesOf(c, svc)
	switch {
	case !ok && kube.CollectionFailed(c, "nodes"):
		return unchecked("Not checked: which nodes may carry Service %s's load-balancer traffic (the nodes could not be listed)", svc.Name)
	case !ok:
		return unchecked("Not checked: which nodes may carry Service %s's load-balancer traffic (the nodes were not all read, or no ready endpoint's node was)", svc.Name)
	case len(nodes.Eligible) == 0:
		return fail("Service %s of type LoadBalancer has no node to carry its traffic: every %s (%d) is excluded from load balancers (%s)", svc.Name, nodes.Which(), nodes.Listed, strings.Join(nodes.Reasons, ", "))
	}
	return pass("Service %s of type LoadBalancer has %d %s(s) that may carry its traffic (not excluded from load balancers): %s", svc.Name, len(nodes.Eligible), nodes.Which(), kube.NamesUpTo(nodes.Eligible, 5))
}

// expectsEndpoints: every Service but an ExternalName (a DNS alias) sends
// traffic to endpoints, found by its selector or, without one, created by
// hand.
func expectsEndpoints(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName
}

var serviceType = &Check{
	ID: "service/type", Kinds: []string{"Service"},
	Doc: "What the Service's type promises is there: a LoadBalancer has an external address (after 5 minutes, counted from the service controller's first event when older than the Service; at once when its sync fails) and a node to carry its traffic (one not labelled node.kubernetes.io/exclude-from-external-load-balancers nor tainted for deletion; with externalTrafficPolicy Local, among the nodes of its ready endpoints), a NodePort has its node ports; an ExternalName's DNS name is not resolved by triage and is reported as not checked.",
	Run: func(c *rule.Pass) []Result {
		svc := kube.TargetOf(c, "Service", c.B.Services)
		if svc == nil {
			return nil
		}
		switch svc.Spec.Type {
		case corev1.ServiceTypeLoadBalancer:
			lb := network.LoadBalancerOf(c, svc)
			if lb.Address != "" {
				out := []Result{pass("Service %s of type LoadBalancer has its external address %s", svc.Name, lb.Address)}
				return append(out, lbNodes(c, svc))
			}
			wait := kube.HumanDuration(lb.Waiting(c.Now))
			if lb.Failed != nil {
				return []Result{fail("Service %s of type LoadBalancer has no external address after %s: the service controller's sync fails (%s)", svc.Name, wait, lb.Reason())}
			}
			if lb.Waiting(c.Now) > network.LBGrace {
				class := ""
				if lb.Class != "" {
					class = fmt.Sprintf(" of class %s", lb.Class)
				}
				return []Result{fail("Service %s of type LoadBalancer has no external address %s after its creation: no load-balancer controller%s has provisioned it (status.loadBalancer is empty)", svc.Name, wait, class)}
			}
			return []Result{note("Service %s of type LoadBalancer has no external address yet (waiting %s)", svc.Name, wait)}
		case corev1.ServiceTypeNodePort:
			for _, sp := range svc.Spec.Ports {
				if sp.NodePort == 0 {
					return []Result{fail("Service %s of type NodePort has no node port for port %s", svc.Name, network.PortLabel(sp))}
				}
			}
			return []Result{pass("Service %s of type NodePort has a node port for each of its %d port(s)", svc.Name, len(svc.Spec.Ports))}
		case corev1.ServiceTypeExternalName:
			return []Result{unchecked("Not checked: whether %s, the externalName of Service %s, resolves (triage resolves no names)", svc.Spec.ExternalName, svc.Name)}
		}
		return nil
	},
}

var ingressBackends = &Check{
	ID: "ingress/backends", Kinds: []string{"Ingress"},
	Doc: "Every backend of the Ingress is a Service that exists, exposes the port and has a ready endpoint, of a type its controller accepts (a controller's warning that a backend must be NodePort or LoadBalancer, matched to a backend that is neither), and that its load balancer does not report UNHEALTHY (GKE's ingress.kubernetes.io/backends); an Ingress no controller has given an address is noted.",
	Run: func(c *rule.Pass) []Result {
		ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
		if ing == nil {
			return nil
		}
		var out []Result
		backends := network.BackendsOf(ing)
		for _, r := range network.BackendTypeRefusals(c, ing) {
			out = append(out, fail("Ingress %s %s routes to service %s of type %s, which its controller refuses (it needs NodePort or LoadBalancer): %s", ing.Name, r.Backend.Where, r.Service.Name, network.ServiceTypeOf(r.Service), kube.FirstLine(r.Event.Message)))
		}
		for _, be := range backends {
			svc := network.ServiceNamed(c, ing.Namespace, be.Service)
			switch {
			case c.B.IsMissing("Service", ing.Namespace, be.Service):
				out = append(out, fail("Ingress %s %s routes to service %s, which does not exist", ing.Name, be.Where, be.Service))
			case svc == nil:
				out = append(out, unchecked("Not checked: backend service %s of Ingress %s (it could not be read)", be.Service, ing.Name))
			case !network.ServiceHasPort(svc, be.Port):
				out = append(out, fail("Ingress %s %s routes to service %s %s, which the Service does not expose (it has %s)", ing.Name, be.Where, be.Service, network.PortText(be.Port), network.ServicePortsText(svc)))
			case expectsEndpoints(svc) && !kube.CollectionFailed(c, "endpointslices"):
				if eps := network.EndpointsOf(c, svc); len(eps.Ready) == 0 {
					out = append(out, fail("Ingress %s %s routes to service %s, which has no ready endpoint: %s", ing.Name, be.Where, be.Service, eps.Summary()))
				}
			}
		}
		for _, lb := range network.LBBackends(c, ing) {
			if lb.Health != bundle.LBUnhealthy {
				continue
			}
			svc := "a backend no Service of the Ingress matched"
			if lb.Service != nil {
				svc = "service " + lb.Service.Name
			}
			out = append(out, fail("Ingress %s: its load balancer reports backend %s (%s) UNHEALTHY", ing.Name, lb.Name, svc))
		}
		if !hasStatus(out, Fail, Unchecked) && len(backends) > 0 {
			out = append(out, pass("Every backend of Ingress %s (%d) is a Service that exists, exposes the port and has a ready endpoint", ing.Name, len(backends)))
		}
		if len(ing.Status.LoadBalancer.Ingress) == 0 {
			// Many controllers (and every cluster without one) leave it
			// empty: a hint, not a fault.
			out = append(out, note("Ingress %s has no address in status.loadBalancer: no ingress controller has reported serving it", ing.Name))
		}
		return out
	},
}

// ingressTLS: what spec.tls promises. Whether each Secret exists is read
// as metadata only (docs/DESIGN.md §8): seen passes, not found fails, and
// a read that was refused or not made leaves the controller's event naming
// it absent as the only proof, else unchecked (a healthy verdict loses a
// band).
var ingressTLS = &Check{
	ID: "ingress/tls", Kinds: []string{"Ingress"},
	Doc: "Every spec.tls secretName of the Ingress exists in its namespace (a read of its table row; without one, a controller event naming it absent is a fault, else it is not checked), and no TLS host sits in an entry without a secretName while another entry names a Secret for no host.",
	Run: func(c *rule.Pass) []Result {
		ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
		if ing == nil {
			return nil
		}
		var out []Result
		for _, s := range network.TLSSecretsOf(ing) {
			byRead, e := network.TLSSecretAbsent(c, ing, s.Name)
			switch {
			case byRead:
				out = append(out, fail("Ingress %s names TLS secret %s in %s, which does not exist in namespace %s", ing.Name, s.Name, s.Field, ing.Namespace))
			case e != nil:
				out = append(out, fail("Ingress %s names TLS secret %s in %s, which its controller reports absent: %s", ing.Name, s.Name, s.Field, e.Message))
			case c.B.SecretSeen(ing.Namespace, s.Name):
				out = append(out, pass("TLS secret %s of Ingress %s exists (its metadata read; its data is never read)", s.Name, ing.Name))
			default:
				out = append(out, unchecked("Not checked: whether TLS secret %s of Ingress %s exists (its metadata could not be read and no controller event names it; kubectl get secret %s -n %s shows it)", s.Name, ing.Name, s.Name, ing.Namespace))
			}
		}
		if sp, ok := network.SplitTLSOf(ing); ok {
			out = append(out, fail("Ingress %s %s lists host %s without a secretName, and %s names secret %s for no host: the host gets the default certificate", ing.Name, sp.HostField, sp.Host, sp.SecretField, sp.Secret))
		}
		return out
	},
}

func hasStatus(rs []Result, ss ...Status) bool {
	for _, r := range rs {
		for _, s := range ss {
			if r.Status == s {
				return true
			}
		}
	}
	return false
}

// servicesRead: the namespace's Services were listed whole for the pod, so
// a Service not among them does not exist.
func servicesRead(c *rule.Pass, ns string) bool { return c.B.Cluster.ServicesListed == ns }

// podServices checks the pod against the Services meant for it. A Service
// is meant for a pod when its selector shares a label with the pod: one
// whose other labels then differ (another version, a typo) sends the
// pod's traffic elsewhere while the pod itself looks healthy.
var podServices = &Check{
	ID: "pod/services", Kinds: []string{"Pod", "Deployment"},
	Doc: "Each Service whose selector shares a label with the pod selects it, and forwards to a port the pod declares when its targetPort is a name.",
	Run: func(c *rule.Pass) []Result {
		if len(c.B.Pods) == 0 {
			return nil
		}
		ns := c.B.Pods[0].Namespace
		if !servicesRead(c, ns) {
			if kube.CollectionFailed(c, "services of") {
				return []Result{unchecked("Not checked: which Services select the pods (the namespace's Services could not be listed)")}
			}
			return nil
		}
		var out []Result
		var served []string
		for _, p := range c.B.Pods {
			if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
				continue
			}
			var selecting []*corev1.Service
			for _, svc := range c.B.Services {
				if network.Selects(svc, p) {
					selecting = append(selecting, svc)
				}
			}
			if len(selecting) == 0 {
				for _, svc := range c.B.Services {
					if diff := nearMiss(svc.Spec.Selector, p.Labels); diff != "" {
						out = append(out, fail("No Service selects pod %s, but Service %s is meant for it: its selector %s shares the pod's labels except %s", p.Name, svc.Name, kube.SelectorString(svc.Spec.Selector), diff))
					}
				}
				continue
			}
			for _, svc := range selecting {
				for _, sp := range svc.Spec.Ports {
					if _, named, ok := network.TargetContainerPort(p, sp); named && !ok {
						out = append(out, fail("Service %s selects pod %s, but its port %s forwards to targetPort %q, which no container of the pod declares", svc.Name, p.Name, network.PortLabel(sp), sp.TargetPort.StrVal))
					}
				}
				served = kube.AppendUnique(served, fmt.Sprintf("Service %s selects pod %s", svc.Name, p.Name))
			}
		}
		if !hasStatus(out, Fail) && len(served) > 0 {
			out = append(out, pass("%s, with targetPorts the pod declares", strings.Join(firstN(served, 3), "; ")))
		}
		return out
	},
}

// nearMiss says how a selector that shares at least one label with the
// pod's labels misses them ("" when it matches, or shares none).
func nearMiss(sel, lbls map[string]string) string {
	if len(sel) == 0 {
		return ""
	}
	shared := 0
	var diffs []string
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := lbls[k]
		switch {
		case ok && v == sel[k]:
			shared++
		case ok:
			diffs = append(diffs, fmt.Sprintf("%s (the pod has %s=%s)", k+"="+sel[k], k, v))
		default:
			diffs = append(diffs, fmt.Sprintf("%s (the pod has no %s label)", k+"="+sel[k], k))
		}
	}
	if shared == 0 || len(diffs) == 0 {
		return ""
	}
	return strings.Join(diffs, ", ")
}

// podPolicies checks that the NetworkPolicies selecting a pod let its
// traffic through: the ports its Services forward to, and DNS out. A pod
// isolated for ingress with no Service in front of it is not a fault
// (deny-all ingress is a sound default).
var podPolicies = &Check{
	ID: "pod/network-policies", Kinds: []string{"Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"},
	Doc: "The NetworkPolicies that select the pod admit ingress to every port a Service forwards to it, and egress to the cluster DNS.",
	Run: func(c *rule.Pass) []Result {
		if len(c.B.Pods) == 0 {
			return nil
		}
		if ns := c.B.Pods[0].Namespace; c.B.Cluster.NetworkPoliciesListed != ns {
			if kube.CollectionFailed(c, "network policies") {
				return []Result{unchecked("Not checked: the NetworkPolicies that select the pods (they could not be listed)")}
			}
			return nil
		}
		var out []Result
		isolated := 0
		for _, p := range c.B.Pods {
			if p.DeletionTimestamp != nil || p.Spec.HostNetwork {
				continue
			}
			ing := network.PoliciesSelecting(c.B.NetworkPolicies, p, networkingv1.PolicyTypeIngress)
			eg := network.PoliciesSelecting(c.B.NetworkPolicies, p, networkingv1.PolicyTypeEgress)
			if len(ing)+len(eg) > 0 {
				isolated++
			}
			if len(ing) > 0 {
				for _, svc := range c.B.Services {
					if !network.Selects(svc, p) {
						continue
					}
					for _, sp := range svc.Spec.Ports {
						cp, _, _ := network.TargetContainerPort(p, sp)
						if !network.IngressAdmits(ing, cp) {
							out = append(out, fail("NetworkPolicy %s selects pod %s and no ingress rule admits port %d/%s, which Service %s forwards to: connections through the Service are dropped",
								strings.Join(network.PolicyNames(ing), ", "), p.Name, cp.ContainerPort, orTCP(cp.Protocol), svc.Name))
						}
					}
				}
			}
			if len(eg) > 0 && dnsUser(p) && !network.EgressAdmitsDNS(eg, p.Namespace) {
				out = append(out, fail("NetworkPolicy %s selects pod %s for egress and no egress rule admits DNS (UDP 53) to the cluster resolver: the pod cannot resolve names",
					strings.Join(network.PolicyNames(eg), ", "), p.Name))
			}
		}
		if !hasStatus(out, Fail) {
			switch {
			case isolated == 0:
				out = append(out, pass("No NetworkPolicy isolates the pods (%d NetworkPolicies in the namespace)", len(c.B.NetworkPolicies)))
			case servicesRead(c, c.B.Pods[0].Namespace):
				out = append(out, pass("The NetworkPolicies that select the pods admit the ports their Services forward to, and DNS"))
			default:
				out = append(out, pass("The NetworkPolicies that select the pods admit DNS"))
			}
		}
		return out
	},
}

// dnsUser: the pod resolves names through the cluster DNS.
func dnsUser(p *corev1.Pod) bool {
	return p.Spec.DNSPolicy == "" || p.Spec.DNSPolicy == corev1.DNSClusterFirst || p.Spec.DNSPolicy == corev1.DNSClusterFirstWithHostNet
}

func orTCP(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

func firstN(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return append(l[:n:n], fmt.Sprintf("and %d more", len(l)-n))
}
