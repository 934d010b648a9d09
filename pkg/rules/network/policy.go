package network

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// What NetworkPolicy semantics the policy rule relies on (the API reference
// of networking.k8s.io/v1): a pod is isolated for a direction once any
// policy selecting it has that direction in policyTypes; what is allowed is
// the union of the rules of every such policy; an empty rule list allows
// nothing; a rule with no ports allows every port and one with no peers
// every peer. policyTypes left empty means Ingress, plus Egress when the
// policy has egress rules.

// selectingPolicies are the namespace's policies whose podSelector matches
// the pod and that isolate it for the direction.
func selectingPolicies(pols []*networkingv1.NetworkPolicy, p *corev1.Pod, dir networkingv1.PolicyType) []*networkingv1.NetworkPolicy {
	var out []*networkingv1.NetworkPolicy
	for _, np := range pols {
		if np.Namespace != p.Namespace || !hasType(np, dir) {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		out = append(out, np)
	}
	return out
}

func hasType(np *networkingv1.NetworkPolicy, dir networkingv1.PolicyType) bool {
	if len(np.Spec.PolicyTypes) == 0 {
		return dir == networkingv1.PolicyTypeIngress || (dir == networkingv1.PolicyTypeEgress && len(np.Spec.Egress) > 0)
	}
	for _, t := range np.Spec.PolicyTypes {
		if t == dir {
			return true
		}
	}
	return false
}

// portAllowed: whether a rule's ports admit the port (number, and the
// container port's name for a named policy port).
func portAllowed(ports []networkingv1.NetworkPolicyPort, number int32, name string, proto corev1.Protocol) bool {
	if len(ports) == 0 {
		return true
	}
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, pp := range ports {
		pr := corev1.ProtocolTCP
		if pp.Protocol != nil {
			pr = *pp.Protocol
		}
		if pr != proto {
			continue
		}
		switch {
		case pp.Port == nil:
			return true
		case pp.Port.Type == intstr.String:
			if name != "" && pp.Port.StrVal == name {
				return true
			}
		case pp.EndPort != nil:
			if number >= pp.Port.IntVal && number <= *pp.EndPort {
				return true
			}
		case pp.Port.IntVal == number:
			return true
		}
	}
	return false
}

// ingressAllows: whether any ingress rule of the policies admits the port
// from some source (which sources is the policy's business; a port no rule
// admits is closed to every caller).
func ingressAllows(pols []*networkingv1.NetworkPolicy, number int32, name string, proto corev1.Protocol) bool {
	for _, np := range pols {
		for _, r := range np.Spec.Ingress {
			if portAllowed(r.Ports, number, name, proto) {
				return true
			}
		}
	}
	return false
}

// egressAllowsPort: whether any egress rule admits the port to some peer.
func egressAllowsPort(pols []*networkingv1.NetworkPolicy, number int32, proto corev1.Protocol) bool {
	for _, np := range pols {
		for _, r := range np.Spec.Egress {
			if portAllowed(r.Ports, number, "", proto) {
				return true
			}
		}
	}
	return false
}

const nsNameLabel = "kubernetes.io/metadata.name" // set by the API server on every namespace

// egressAllowsDNS: whether some egress rule admits UDP 53 to the cluster
// DNS in kube-system: a rule with no peers, an ipBlock (the DNS Service's
// address may be in it: given the benefit of the doubt) or a
// namespaceSelector matching kube-system. A podSelector alone means the
// pod's own namespace.
func egressAllowsDNS(pols []*networkingv1.NetworkPolicy, podNS string) bool {
	kubeSystem := labels.Set{nsNameLabel: "kube-system"}
	for _, np := range pols {
		for _, r := range np.Spec.Egress {
			if !portAllowed(r.Ports, 53, "", corev1.ProtocolUDP) {
				continue
			}
			if len(r.To) == 0 {
				return true
			}
			for _, peer := range r.To {
				switch {
				case peer.IPBlock != nil:
					return true
				case peer.NamespaceSelector != nil:
					sel, err := metav1.LabelSelectorAsSelector(peer.NamespaceSelector)
					if err == nil && sel.Matches(kubeSystem) {
						return true
					}
				case podNS == "kube-system":
					return true
				}
			}
		}
	}
	return false
}

// describeRules says what the policies allow in one direction, briefly.
func describeRules(pols []*networkingv1.NetworkPolicy, dir networkingv1.PolicyType) string {
	var parts []string
	for _, np := range pols {
		n := len(np.Spec.Ingress)
		if dir == networkingv1.PolicyTypeEgress {
			n = len(np.Spec.Egress)
		}
		if n == 0 {
			parts = append(parts, fmt.Sprintf("%s allows no %s traffic at all", np.Name, strings.ToLower(string(dir))))
			continue
		}
		var ports []string
		each := func(pp []networkingv1.NetworkPolicyPort) {
			if len(pp) == 0 {
				ports = append(ports, "any port")
			}
			for _, p := range pp {
				ports = append(ports, policyPortLabel(p))
			}
		}
		if dir == networkingv1.PolicyTypeEgress {
			for _, r := range np.Spec.Egress {
				each(r.Ports)
			}
		} else {
			for _, r := range np.Spec.Ingress {
				each(r.Ports)
			}
		}
		parts = append(parts, fmt.Sprintf("%s allows %s only to %s", np.Name, strings.ToLower(string(dir)), strings.Join(ports, ", ")))
	}
	return strings.Join(parts, "; ")
}

func policyPortLabel(p networkingv1.NetworkPolicyPort) string {
	proto := "TCP"
	if p.Protocol != nil {
		proto = string(*p.Protocol)
	}
	switch {
	case p.Port == nil:
		return proto + " (any port)"
	case p.EndPort != nil:
		return fmt.Sprintf("%s %s-%d", proto, p.Port.String(), *p.EndPort)
	}
	return proto + " " + p.Port.String()
}

func policyNames(pols []*networkingv1.NetworkPolicy) []string {
	var out []string
	for _, np := range pols {
		out = append(out, np.Name)
	}
	return out
}

// What applications print when a name does not resolve (DNS egress
// blocked: the resolver times out): glibc getaddrinfo, Go's resolver,
// Node's dns module, Java, libpq.
var dnsFailureRe = regexp.MustCompile(`(?i)no such host|temporary failure in name resolution|EAI_AGAIN|getaddrinfo ENOTFOUND|lookup \S+ on \S+:53: .*(i/o timeout|server misbehaving)|dial udp \S+:53: .*i/o timeout|UnknownHostException|could not translate host name|name resolution failed|Could not resolve host`)

// What a connection to a dependency that never answers looks like: the
// packets are dropped, so it times out (refused would mean something
// answered).
var timeoutRe = regexp.MustCompile(`(?i)i/o timeout|timed? ?out|ETIMEDOUT|deadline exceeded`)

// dialRe is the destination a Go dial error names ("dial tcp
// 10.96.0.1:443: i/o timeout"): the line's own target, preferred over any
// other host:port it quotes (a URL, a listen address).
var dialRe = regexp.MustCompile(`\bdial (?:tcp|udp)[46]? \[?(?P<host>[\w.:-]+?)\]?:(?P<port>\d{1,5})\b`)

// dialTarget is the host and port a timeout line fails to reach: the Go
// dial target, else the first endpoint applog reads in it. The kubelet's
// RFC 3339 prefix is cut first and applog skips clock times, so a
// timestamp (2026-12-01T16:59, 16:58:54) is never read as host:port.
func dialTarget(line string) (host, port string) {
	_, line = applog.SplitTimestamp(line)
	// klog's header names the source line that logged ("reflector.go:205]"):
	// a file, not a destination.
	line = klogHeaderRe.ReplaceAllString(line, "")
	if m, ok := submatch.Find(dialRe, line); ok {
		return m.Get("host"), m.Get("port")
	}
	for _, ep := range applog.Extract(line).Endpoints {
		i := strings.LastIndexByte(ep, ':')
		if i <= 0 {
			continue
		}
		if h := ep[:i]; !strings.Contains(h, "..") && !sourceFileRe.MatchString(h) {
			return h, ep[i+1:]
		}
	}
	return "", ""
}

// klogHeaderRe is klog's record header: severity, date, time, thread and
// the source file:line.
var klogHeaderRe = regexp.MustCompile(`^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w./-]+:\d+\] `)

// sourceFileRe is a "host" that is a source file (a stack frame or a
// logger's caller= field: controller.go:355, app.py:12).
var sourceFileRe = regexp.MustCompile(`\.(?:go|py|java|js|mjs|ts|rb|rs|c|cc|cpp|h|cs|kt|scala|php|ex|exs)$`)
