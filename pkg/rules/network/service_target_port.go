package network

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ServiceTargetPort is the rule network/service-target-port.
var ServiceTargetPort = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-target-port",
		Kinds: []string{"Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.EndpointSlices, rule.Pods},
		Doc:   "A Service whose targetPort no container of its pods listens on.",
	},
	Check: checkServiceTargetPort,
}

// checkServiceTargetPort: the Service sends traffic to a port the pods do
// not serve. A named targetPort must be declared by the containers (else no
// endpoint gets that port); a numeric one need not be declared, so a
// mismatch there is only probable.
func checkServiceTargetPort(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		return nil
	}
	pods := selectedPods(c, svc)
	if len(pods) == 0 {
		return nil
	}
	var out []rule.Finding
	for _, pp := range namedPortProblems(svc, pods) {
		out = append(out, namedPortFinding(c, svc, pods, pp))
	}
	declared := declaredPorts(pods)
	for i, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "" {
			continue
		}
		target := sp.TargetPort.IntVal
		if target == 0 {
			target = sp.Port // targetPort defaults to port
		}
		var lacking []string
		for _, p := range pods {
			if _, ok := findContainerPort(p, "", target, sp.Protocol); !ok {
				lacking = append(lacking, p.Name)
			}
		}
		if len(lacking) == 0 || len(declared) == 0 {
			// Declared, or nothing declared to compare with: containers need
			// not declare the ports they listen on.
			continue
		}
		out = append(out, numericPortFinding(c, svc, i, sp, target, lacking, declared))
	}
	if len(out) == 0 && len(svc.Spec.Ports) > 0 && len(declared) > 0 {
		out = append(out, rule.Finding{
			Category: rule.Service.Sub("TargetPort"), Verdict: report.Refuted, Confidence: rule.Likely, Subject: svc.Name,
			Hypothesis: fmt.Sprintf("Service %s sends traffic to a port its pods do not declare", svc.Name),
			Evidence: []string{c.Evidence(fmt.Sprintf("Selected pods declare %s", strings.Join(declared, ", ")),
				kube.PodRef(pods[0])+" .spec.containers[*].ports",
				fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].ports}'`, pods[0].Name, kube.NSFlag(pods[0])))},
		})
	}
	return out
}

func namedPortFinding(c *rule.Pass, svc *corev1.Service, pods []*corev1.Pod, pp portProblem) rule.Finding {
	name := pp.Port.TargetPort.StrVal
	declared := "no port at all"
	if len(pp.Declared) > 0 {
		declared = strings.Join(pp.Declared, ", ")
	}
	ev := []string{
		c.Evidence(fmt.Sprintf("Service %s port %s has targetPort %q (a container port name)", svc.Name, servicePortLabel(pp.Port), name),
			fmt.Sprintf("%s .spec.ports[%d].targetPort", svcRef(svc), pp.Index),
			fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.ports}'", svc.Name, svcNS(svc))),
		c.Evidence(fmt.Sprintf("The selected pods declare %s; none is named %q", declared, name),
			kube.PodRef(pods[0])+" .spec.containers[*].ports",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].ports}'`, pods[0].Name, kube.NSFlag(pods[0]))),
	}
	f := rule.Finding{
		Category: rule.Service.Sub("TargetPort", "NamedPortMissing"), Verdict: report.Validated, Confidence: rule.Strong,
		Hypothesis: fmt.Sprintf("Service %s targets port name %q, which its pods do not declare", svc.Name, name),
		Evidence:   ev, Current: true, Strength: rule.Explained, Subject: svc.Name,
		Title: fmt.Sprintf("service %s targetPort %q is not a port name of its pods (they declare %s)", svc.Name, name, declared),
		Summary: fmt.Sprintf("Service %s port %s sends traffic to the container port named %q, but the pods it selects (%s) declare %s. No endpoint gets that port, so the Service forwards nothing on it.",
			svc.Name, servicePortLabel(pp.Port), name, strings.Join(firstNames(pp.Lacking, 3), ", "), declared),
		Mechanism: "A named targetPort is resolved per pod against the names in spec.containers[*].ports; the EndpointSlice controller leaves out a pod that has no port of that name, so the Service has no endpoint for that port.",
		Culprit:   fmt.Sprintf("%s .spec.ports[%d].targetPort %q (containers declare %s)", svcRef(svc), pp.Index, name, declared),
	}
	if len(pp.Lacking) < len(pods) {
		f.Confidence = rule.Likely
		f.Contributing = append(f.Contributing, fmt.Sprintf("Only some pods lack the port name (%s): a rollout may have renamed it.", strings.Join(pp.Lacking, ", ")))
	}
	fix := report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Point targetPort at a port the containers declare (or name the container port %q in the pod template).", name),
		Risk: "traffic starts flowing to the new port at once"}
	if suggestion := suggestPort(pods, pp.Port.Protocol); suggestion != "" {
		fix.Commands = []string{fmt.Sprintf(`kubectl patch service %s %s --type=json -p '[{"op":"replace","path":"/spec/ports/%d/targetPort","value":%s}]'`, svc.Name, svcNS(svc), pp.Index, suggestion)}
	} else {
		fix.Commands = []string{fmt.Sprintf("kubectl get service %s %s -o yaml", svc.Name, svcNS(svc))}
	}
	f.Actions = []report.Action{fix}
	return f
}

// suggestPort proposes the JSON value of a targetPort the pods declare: the
// only port of the protocol, by name when it has one.
func suggestPort(pods []*corev1.Pod, proto corev1.Protocol) string {
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	var found []corev1.ContainerPort
	for _, ctr := range pods[0].Spec.Containers {
		for _, cp := range ctr.Ports {
			if cp.Protocol == proto || (cp.Protocol == "" && proto == corev1.ProtocolTCP) {
				found = append(found, cp)
			}
		}
	}
	if len(found) != 1 {
		return ""
	}
	if found[0].Name != "" {
		return fmt.Sprintf("%q", found[0].Name)
	}
	return fmt.Sprint(found[0].ContainerPort)
}

func numericPortFinding(c *rule.Pass, svc *corev1.Service, index int, sp corev1.ServicePort, target int32, lacking, declared []string) rule.Finding {
	pods := selectedPods(c, svc)
	ev := []string{
		c.Evidence(fmt.Sprintf("Service %s port %s forwards to targetPort %d", svc.Name, servicePortLabel(sp), target),
			fmt.Sprintf("%s .spec.ports[%d].targetPort", svcRef(svc), index),
			fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.ports}'", svc.Name, svcNS(svc))),
		c.Evidence(fmt.Sprintf("The selected pods declare %s, not %d", strings.Join(declared, ", "), target),
			kube.PodRef(pods[0])+" .spec.containers[*].ports",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].ports}'`, pods[0].Name, kube.NSFlag(pods[0]))),
	}
	f := rule.Finding{
		Category: rule.Service.Sub("TargetPort", "NotDeclared"), Verdict: report.Validated, Confidence: rule.Even,
		Hypothesis: fmt.Sprintf("Service %s forwards to port %d, which its pods do not declare (%s)", svc.Name, target, strings.Join(declared, ", ")),
		Evidence:   ev, Current: true, Strength: rule.Observed, Subject: svc.Name,
		Title: fmt.Sprintf("service %s forwards to targetPort %d but its pods declare %s", svc.Name, target, strings.Join(declared, ", ")),
		Summary: fmt.Sprintf("Service %s port %s forwards to port %d of its pods, but their containers declare %s. If the application listens only on a declared port, connections through the Service are refused.",
			svc.Name, servicePortLabel(sp), target, strings.Join(declared, ", ")),
		Mechanism: "kube-proxy forwards to the numeric targetPort whether or not a container declares it; declaring ports is optional, so this is probable rather than certain: the application may listen on the undeclared port.",
		Culprit:   fmt.Sprintf("%s .spec.ports[%d].targetPort %d (pods declare %s)", svcRef(svc), index, target, strings.Join(declared, ", ")),
		Contributing: []string{fmt.Sprintf("Pods without a container port %d: %s.", target, strings.Join(firstNames(lacking, 5), ", ")),
			"Containers need not declare the ports they listen on: confirm the listening port from inside a pod before changing the Service."},
		Actions: []report.Action{
			{Kind: report.Check, Description: "Confirm which port the application listens on.",
				Commands: []string{fmt.Sprintf("kubectl exec %s %s -- sh -c 'netstat -tln 2>/dev/null || ss -tln'", pods[0].Name, kube.NSFlag(pods[0]))}},
		},
	}
	if s := suggestPort(pods, sp.Protocol); s != "" {
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Point targetPort at the port the containers declare.",
			Commands: []string{fmt.Sprintf(`kubectl patch service %s %s --type=json -p '[{"op":"replace","path":"/spec/ports/%d/targetPort","value":%s}]'`, svc.Name, svcNS(svc), index, s)},
			Risk:     "traffic moves to the new port at once; wrong if the application really listens on the undeclared port"}}, f.Actions...)
	}
	return f
}
