package network

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// PolicyBlocks is the rule network/policy-blocks.
var PolicyBlocks = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/policy-blocks",
		Kinds: []string{"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Pods, rule.Logs, rule.Services, rule.NetworkPolicies},
		Doc:   "A NetworkPolicy selecting the pods blocks the port their callers use, or their egress (DNS to kube-system, a dependency the logs show timing out).",
	},
	Check: checkPolicyBlocks,
}

// checkPolicyBlocks looks past the target at the namespace's policies: the
// pod itself may be healthy while its callers cannot reach it, or it may
// fail because what it calls is unreachable from it.
func checkPolicyBlocks(c *rule.Pass) []rule.Finding {
	if len(c.B.NetworkPolicies) == 0 {
		return nil
	}
	var svc *corev1.Service
	pods := c.B.Pods
	if c.B.Target.Kind == "Service" {
		if svc = kube.TargetOf(c, "Service", c.B.Services); svc == nil {
			return nil
		}
		pods = selectedPods(c, svc)
	}
	var out []rule.Finding
	seen := map[string]bool{} // one finding per policy and blocked thing
	add := func(key string, f *rule.Finding) {
		if f != nil && !seen[key] {
			seen[key] = true
			out = append(out, *f)
		}
	}
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue // its containers do not run: their own fault comes first
		}
		if f, key := egressFinding(c, p); f != nil {
			add(key, f)
		}
		if f, key := ingressFinding(c, p, svc); f != nil {
			add(key, f)
		}
	}
	return out
}

// blockedPort is a port callers use that no ingress rule admits.
type blockedPort struct {
	number int32
	name   string
	proto  corev1.Protocol
	why    string // "Service web targetPort", "containerPort"
}

// ingressFinding: the pod is isolated for ingress and the port its callers
// use (the Service's targetPort, else its declared containerPorts) is open
// to nobody. Probes are not the question: the kubelet's traffic from the
// node is always allowed.
func ingressFinding(c *rule.Pass, p *corev1.Pod, svc *corev1.Service) (*rule.Finding, string) {
	pols := selectingPolicies(c.B.NetworkPolicies, p, networkingv1.PolicyTypeIngress)
	if len(pols) == 0 {
		return nil, ""
	}
	var candidates []blockedPort
	if svc != nil {
		for _, sp := range svc.Spec.Ports {
			bp := blockedPort{number: sp.TargetPort.IntVal, proto: sp.Protocol, why: "Service " + svc.Name + " targetPort"}
			if sp.TargetPort.Type == intstr.String {
				bp.name = sp.TargetPort.StrVal
			} else if bp.number == 0 {
				bp.number = sp.Port
			}
			// A policy may name the port or number it: know both.
			bp.number, bp.name = resolvePort(p, bp.number, bp.name, sp.Protocol)
			if bp.number == 0 {
				continue // a named port the pod lacks: service-target-port says so
			}
			candidates = append(candidates, bp)
		}
	} else {
		for _, ctr := range p.Spec.Containers {
			for _, cp := range ctr.Ports {
				candidates = append(candidates, blockedPort{number: cp.ContainerPort, name: cp.Name, proto: cp.Protocol, why: "containerPort of " + ctr.Name})
			}
		}
	}
	var blocked []blockedPort
	for _, bp := range candidates {
		if !ingressAllows(pols, bp.number, bp.name, bp.proto) {
			blocked = append(blocked, bp)
		}
	}
	if len(blocked) == 0 {
		return nil, ""
	}
	bp := blocked[0]
	np := pols[0]
	allows := describeRules(pols, networkingv1.PolicyTypeIngress)
	port := portLabel(bp)
	ev := []string{
		c.Evidence(fmt.Sprintf("NetworkPolicy %s selects pod %s (podSelector %s) and isolates its ingress: %s", np.Name, p.Name, selectorText(np), allows),
			"networkpolicy/"+np.Name+" .spec", fmt.Sprintf("kubectl get networkpolicy -n %s -o yaml", p.Namespace)),
		c.Evidence(fmt.Sprintf("Callers reach pod %s on %s (%s), which no ingress rule of %s admits", p.Name, port, bp.why, strings.Join(policyNames(pols), ", ")),
			kube.PodRef(p)+" .spec.containers[*].ports", fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].ports}'`, p.Name, kube.NSFlag(p))),
	}
	f := &rule.Finding{
		Category: rule.NetworkPolicy.Sub("Ingress"), Verdict: report.Validated, Confidence: rule.Probable,
		Hypothesis: fmt.Sprintf("NetworkPolicy %s blocks ingress to pod %s on %s", np.Name, p.Name, port),
		Evidence:   ev, Current: true, Strength: rule.Observed, Subject: p.Name,
		Title: fmt.Sprintf("networkpolicy %s blocks ingress to %s on %s", np.Name, p.Name, port),
		Summary: fmt.Sprintf("Pod %s is selected by NetworkPolicy %s, so only the ingress its rules list is allowed (%s). Nothing admits %s (%s): connections from its callers are dropped and time out, while the pod itself looks healthy.",
			p.Name, np.Name, allows, port, bp.why),
		Mechanism: "Once a NetworkPolicy with policyType Ingress selects a pod, the network plugin drops every incoming connection no ingress rule of the selecting policies admits; probes from the node still pass, so the pod stays Ready.",
		Culprit:   fmt.Sprintf("networkpolicy/%s .spec.ingress (%s not admitted)", np.Name, port),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Add an ingress rule to NetworkPolicy %s admitting %s from the pods that call it (narrow the rule with a from: podSelector or namespaceSelector).", np.Name, port),
			Commands:    []string{fmt.Sprintf(`kubectl patch networkpolicy %s -n %s --type=json -p '%s'`, np.Name, np.Namespace, appendRulePatch("ingress", len(np.Spec.Ingress), portJSON(bp)))},
			Risk:        "the patch admits that port from every source until a from: clause narrows it"}},
	}
	if svc != nil {
		f.Strength, f.Confidence = rule.Explained, rule.Likely
	}
	return f, "ingress/" + np.Name + "/" + port
}

// egressFinding: the pod is isolated for egress, its logs show DNS
// failures and no egress rule admits DNS to kube-system, or they show a
// dependency timing out on a port no egress rule admits.
func egressFinding(c *rule.Pass, p *corev1.Pod) (*rule.Finding, string) {
	pols := selectingPolicies(c.B.NetworkPolicies, p, networkingv1.PolicyTypeEgress)
	if len(pols) == 0 {
		return nil, ""
	}
	dnsLine, dnsCtr, toLine, toCtr, host, port := scanLogs(c, p)
	np := pols[0]
	allows := describeRules(pols, networkingv1.PolicyTypeEgress)
	polEv := c.Evidence(fmt.Sprintf("NetworkPolicy %s selects pod %s (podSelector %s) and isolates its egress: %s", np.Name, p.Name, selectorText(np), allows),
		"networkpolicy/"+np.Name+" .spec", fmt.Sprintf("kubectl get networkpolicy -n %s -o yaml", p.Namespace))
	if dnsLine != "" && !egressAllowsDNS(pols, p.Namespace) {
		f := &rule.Finding{
			Category: rule.NetworkPolicy.Sub("Egress", "DNS"), Verdict: report.Validated, Confidence: rule.Strong,
			Hypothesis: fmt.Sprintf("NetworkPolicy %s blocks DNS from pod %s", np.Name, p.Name),
			Evidence: []string{polEv,
				c.Evidence(fmt.Sprintf("No egress rule of %s admits UDP/TCP 53 to kube-system (the cluster DNS)", strings.Join(policyNames(pols), ", ")),
					"networkpolicy/"+np.Name+" .spec.egress", fmt.Sprintf("kubectl get networkpolicy %s -n %s -o jsonpath='{.spec.egress}'", np.Name, np.Namespace)),
				c.Evidence(fmt.Sprintf("Container %s logs a name lookup failure: %s", dnsCtr, kube.FirstLine(dnsLine)),
					kube.PodRef(p)+" logs "+dnsCtr, kube.LogsCmd(p, dnsCtr, false))},
			Current: true, Strength: rule.Traced, Subject: p.Name,
			Title: fmt.Sprintf("networkpolicy %s blocks DNS egress from %s", np.Name, p.Name),
			Summary: fmt.Sprintf("Pod %s is selected by NetworkPolicy %s, which isolates its egress (%s) and admits no DNS (UDP/TCP 53) to kube-system. Every name lookup times out, so container %s cannot resolve the hosts it needs: %q.",
				p.Name, np.Name, allows, dnsCtr, kube.FirstLine(dnsLine)),
			Mechanism: "Once a NetworkPolicy with policyType Egress selects a pod, every outgoing packet no egress rule admits is dropped — including the DNS queries to the cluster DNS in kube-system, so name resolution fails before any connection is tried.",
			Culprit:   fmt.Sprintf("networkpolicy/%s .spec.egress (no rule for port 53 to kube-system)", np.Name),
			Actions: []report.Action{{Kind: report.Immediate,
				Description: fmt.Sprintf("Add an egress rule to NetworkPolicy %s admitting UDP and TCP 53 to the kube-system namespace.", np.Name),
				Commands:    []string{fmt.Sprintf(`kubectl patch networkpolicy %s -n %s --type=json -p '%s'`, np.Name, np.Namespace, appendRulePatch("egress", len(np.Spec.Egress), dnsRuleJSON))},
				Risk:        "admits DNS queries to every pod of kube-system on port 53"}},
		}
		return f, "egress-dns/" + np.Name
	}
	if toLine == "" {
		return nil, ""
	}
	n, _ := strconv.Atoi(port)
	if n <= 0 || n > 65535 || egressAllowsPort(pols, int32(n), corev1.ProtocolTCP) {
		return nil, ""
	}
	bp := blockedPort{number: int32(n), proto: corev1.ProtocolTCP}
	f := &rule.Finding{
		Category: rule.NetworkPolicy.Sub("Egress", "Port"), Verdict: report.Validated, Confidence: rule.Likely,
		Hypothesis: fmt.Sprintf("NetworkPolicy %s blocks egress from pod %s to %s:%s", np.Name, p.Name, host, port),
		Evidence: []string{polEv,
			c.Evidence(fmt.Sprintf("Container %s logs a timeout to %s:%s: %s", toCtr, host, port, kube.FirstLine(toLine)),
				kube.PodRef(p)+" logs "+toCtr, kube.LogsCmd(p, toCtr, false))},
		Current: true, Strength: rule.Traced, Subject: p.Name,
		Title: fmt.Sprintf("networkpolicy %s blocks egress from %s to %s:%s", np.Name, p.Name, host, port),
		Summary: fmt.Sprintf("Pod %s is selected by NetworkPolicy %s, which isolates its egress (%s); no egress rule admits TCP %s, so the connection to %s:%s is dropped and times out.",
			p.Name, np.Name, allows, port, host, port),
		Mechanism: "Once a NetworkPolicy with policyType Egress selects a pod, the network plugin drops every outgoing connection no egress rule admits; the client sees a timeout, not a refusal.",
		Culprit:   fmt.Sprintf("networkpolicy/%s .spec.egress (TCP %s not admitted)", np.Name, port),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Add an egress rule to NetworkPolicy %s admitting TCP %s to %s (narrow it with a to: podSelector or ipBlock).", np.Name, port, host),
			Commands:    []string{fmt.Sprintf(`kubectl patch networkpolicy %s -n %s --type=json -p '%s'`, np.Name, np.Namespace, appendRulePatch("egress", len(np.Spec.Egress), portJSON(bp)))},
			Risk:        "the patch admits that port to every destination until a to: clause narrows it"}},
	}
	return f, "egress-port/" + np.Name + "/" + port
}

// scanLogs finds the last DNS failure and the last timeout naming a
// host:port in the pod's logs (current, then previous instance).
func scanLogs(c *rule.Pass, p *corev1.Pod) (dnsLine, dnsCtr, toLine, toCtr, host, port string) {
	for _, l := range c.B.Logs {
		if l.Pod != p.Name || l.Namespace != p.Namespace && l.Namespace != "" {
			continue
		}
		for _, line := range strings.Split(l.Text, "\n") {
			switch {
			case dnsFailureRe.MatchString(line):
				dnsLine, dnsCtr = strings.TrimSpace(line), l.Container
			case timeoutRe.MatchString(line):
				if h, pt := dialTarget(line); h != "" {
					toLine, toCtr, host, port = strings.TrimSpace(line), l.Container, h, pt
				}
			}
		}
	}
	return
}

const dnsRuleJSON = `{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}}}],"ports":[{"protocol":"UDP","port":53},{"protocol":"TCP","port":53}]}`

// appendRulePatch is a JSON patch adding one rule to the policy's ingress or
// egress list (creating the list when the policy has none).
func appendRulePatch(field string, existing int, ruleJSON string) string {
	if existing == 0 {
		return fmt.Sprintf(`[{"op":"add","path":"/spec/%s","value":[%s]}]`, field, ruleJSON)
	}
	return fmt.Sprintf(`[{"op":"add","path":"/spec/%s/-","value":%s}]`, field, ruleJSON)
}

func portJSON(bp blockedPort) string {
	proto := bp.proto
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	return fmt.Sprintf(`{"ports":[{"protocol":"%s","port":%d}]}`, proto, bp.number)
}

func portLabel(bp blockedPort) string {
	proto := bp.proto
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	if bp.name != "" {
		return fmt.Sprintf("%s %d (%s)", proto, bp.number, bp.name)
	}
	return fmt.Sprintf("%s %d", proto, bp.number)
}

func selectorText(np *networkingv1.NetworkPolicy) string {
	s := kube.SelectorString(np.Spec.PodSelector.MatchLabels)
	if len(np.Spec.PodSelector.MatchExpressions) > 0 {
		s += fmt.Sprintf(" +%d expression(s)", len(np.Spec.PodSelector.MatchExpressions))
	}
	if s == "" {
		return "{} (every pod of the namespace)"
	}
	return s
}

// resolvePort completes a port known by number or name from the pod's
// declared container ports.
func resolvePort(p *corev1.Pod, number int32, name string, proto corev1.Protocol) (int32, string) {
	if _, cp, ok := matchContainerPort(p, name, number, proto); ok {
		return cp.ContainerPort, cp.Name
	}
	return number, name
}
