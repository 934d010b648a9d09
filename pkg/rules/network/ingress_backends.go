package network

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// IngressBackends is the rule network/ingress-backends.
var IngressBackends = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/ingress-backends",
		Kinds: []string{"Ingress"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.EndpointSlices, rule.Events},
		Doc:   "An Ingress routing to a Service or port that does not exist, or has no ready endpoint.",
	},
	Check: checkIngressBackends,
}

// ingressBackend is one Service an Ingress routes to, and where.
type ingressBackend struct {
	Where   string // "default backend" or "rule shop.example.com/api"
	Field   string // JSON path of the backend
	Service string
	Port    networkingv1.ServiceBackendPort
}

func BackendsOf(ing *networkingv1.Ingress) []ingressBackend {
	var out []ingressBackend
	if b := ing.Spec.DefaultBackend; b != nil && b.Service != nil {
		out = append(out, ingressBackend{Where: "default backend", Field: ".spec.defaultBackend", Service: b.Service.Name, Port: b.Service.Port})
	}
	for i, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for j, p := range r.HTTP.Paths {
			if p.Backend.Service == nil {
				continue
			}
			host := r.Host
			if host == "" {
				host = "*"
			}
			out = append(out, ingressBackend{
				Where: fmt.Sprintf("rule %s%s", host, kube.ValueOr(p.Path, "/")),
				Field: fmt.Sprintf(".spec.rules[%d].http.paths[%d].backend", i, j), Service: p.Backend.Service.Name, Port: p.Backend.Service.Port,
			})
		}
	}
	return out
}

func PortText(p networkingv1.ServiceBackendPort) string {
	if p.Name != "" {
		return fmt.Sprintf("port name %q", p.Name)
	}
	return fmt.Sprintf("port %d", p.Number)
}

func ServiceNamed(c *rule.Pass, ns, name string) *corev1.Service {
	for _, s := range c.B.Services {
		if s.Namespace == ns && s.Name == name {
			return s
		}
	}
	return nil
}

func ServicePortsText(svc *corev1.Service) string {
	var ports []string
	for _, sp := range svc.Spec.Ports {
		ports = append(ports, servicePortLabel(sp))
	}
	if len(ports) == 0 {
		return "no port"
	}
	return strings.Join(ports, ", ")
}

// checkIngressBackends: each Service an Ingress routes to must exist, expose
// the port the Ingress names and have ready endpoints.
func checkIngressBackends(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	ns := "-n " + ing.Namespace
	ingRef := "ingress/" + ing.Name
	var out []rule.Finding
	checked := 0
	for _, be := range BackendsOf(ing) {
		beEv := c.Evidence(fmt.Sprintf("Ingress %s %s routes to service %s %s", ing.Name, be.Where, be.Service, PortText(be.Port)),
			ingRef+" "+be.Field,
			fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{%s}'", ing.Name, ns, be.Field))
		svc := ServiceNamed(c, ing.Namespace, be.Service)
		switch {
		case c.B.IsMissing("Service", ing.Namespace, be.Service):
			out = append(out, rule.Finding{
				Category: rule.Ingress.Sub("Backend", "ServiceMissing"), Verdict: report.Validated, Confidence: rule.Definitive,
				Hypothesis: fmt.Sprintf("Ingress %s routes %s to service %s, which does not exist", ing.Name, be.Where, be.Service),
				Evidence: []string{beEv, c.Evidence(fmt.Sprintf("Service %s/%s does not exist (404)", ing.Namespace, be.Service), "service/"+be.Service,
					fmt.Sprintf("kubectl get service %s %s", be.Service, ns))},
				Current: true, Strength: rule.Explained, Subject: ing.Name + "/" + be.Service,
				Title:     fmt.Sprintf("ingress %s routes %s to service %s, which does not exist", ing.Name, be.Where, be.Service),
				Summary:   fmt.Sprintf("Ingress %s sends %s to service %s in namespace %s, but no such Service exists: the ingress controller answers those requests with 503 (or its default backend).", ing.Name, be.Where, be.Service, ing.Namespace),
				Mechanism: "The ingress controller resolves each backend to the Service's endpoints; a missing Service has none, so requests for that host/path fail.",
				Culprit:   fmt.Sprintf("%s %s service.name %q (service not found)", ingRef, be.Field, be.Service),
				Actions: []report.Action{
					{Kind: report.Immediate, Description: "Point the backend at the Service that exists (a typo or a rename), or create the missing Service.",
						Commands: []string{fmt.Sprintf("kubectl get services %s", ns), fmt.Sprintf("kubectl edit ingress %s %s", ing.Name, ns)},
						Risk:     "changes routing for that host/path as soon as the controller reloads"},
				},
			})
		case svc == nil:
			continue // not collected: nothing to say
		case !ServiceHasPort(svc, be.Port):
			out = append(out, rule.Finding{
				Category: rule.Ingress.Sub("Backend", "PortMissing"), Verdict: report.Validated, Confidence: rule.Strong,
				Hypothesis: fmt.Sprintf("Ingress %s routes %s to service %s %s, which the Service does not expose", ing.Name, be.Where, be.Service, PortText(be.Port)),
				Evidence: []string{beEv, c.Evidence(fmt.Sprintf("Service %s exposes %s", svc.Name, ServicePortsText(svc)), svcRef(svc)+" .spec.ports",
					fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.ports}'", svc.Name, ns))},
				Current: true, Strength: rule.Explained, Subject: ing.Name + "/" + be.Service,
				Title:     fmt.Sprintf("ingress %s routes %s to service %s %s, which it does not expose (it has %s)", ing.Name, be.Where, be.Service, PortText(be.Port), ServicePortsText(svc)),
				Summary:   fmt.Sprintf("Ingress %s sends %s to %s of service %s, but the Service exposes %s: the controller finds no endpoint for that port and answers 503.", ing.Name, be.Where, PortText(be.Port), be.Service, ServicePortsText(svc)),
				Mechanism: "An Ingress backend names a Service port (the Service's port, not the container's targetPort) by number or name; a port the Service does not list resolves to no endpoint.",
				Culprit:   fmt.Sprintf("%s %s service.port (%s; service %s exposes %s)", ingRef, be.Field, PortText(be.Port), be.Service, ServicePortsText(svc)),
				Actions: []report.Action{{Kind: report.Immediate, Description: "Set the backend port to one the Service exposes (the Service port, not the container port).",
					Commands: []string{fmt.Sprintf("kubectl edit ingress %s %s", ing.Name, ns)},
					Risk:     "changes routing for that host/path as soon as the controller reloads"}},
			})
		default:
			checked++
			if svc.Spec.Type == corev1.ServiceTypeExternalName || kube.CollectionFailed(c, "endpointslices") {
				continue
			}
			eps := EndpointsOf(c, svc)
			if len(eps.Ready) > 0 {
				continue
			}
			why := "no EndpointSlice lists a ready endpoint"
			if len(eps.NotReady) > 0 {
				why = fmt.Sprintf("its %d endpoint(s) are not ready (%s)", len(eps.NotReady), strings.Join(firstNames(eps.NotReady, 3), ", "))
			} else if len(svc.Spec.Selector) == 0 {
				why = "it has no selector and no manual EndpointSlice"
			}
			out = append(out, rule.Finding{
				Category: rule.Ingress.Sub("Backend", "NoEndpoints"), Verdict: report.Validated, Confidence: rule.Likely,
				Hypothesis: fmt.Sprintf("Ingress %s routes %s to service %s, which has no ready endpoints", ing.Name, be.Where, be.Service),
				Evidence: []string{beEv, c.Evidence(fmt.Sprintf("Service %s: %s", svc.Name, eps.Summary()),
					"EndpointSlices labelled kubernetes.io/service-name="+svc.Name, fmt.Sprintf(serviceEndpointsSelector, svc.Namespace, svc.Name))},
				Current: true, Strength: rule.Observed, Subject: ing.Name + "/" + be.Service,
				Title:     fmt.Sprintf("ingress %s backend service %s has no ready endpoints: %s", ing.Name, be.Service, why),
				Summary:   fmt.Sprintf("Ingress %s sends %s to service %s, which exists and exposes the port, but %s: the controller answers 503.", ing.Name, be.Where, be.Service, why),
				Mechanism: "The Ingress is correct; the Service behind it has no ready pod to send requests to. Why is a question about that Service and its pods.",
				Culprit:   fmt.Sprintf("service/%s behind %s %s (no ready endpoints)", be.Service, ingRef, be.Where),
				Actions: []report.Action{{Kind: report.Check, Description: fmt.Sprintf("Triage the Service %s to find why it has no ready endpoints.", be.Service),
					Commands: []string{fmt.Sprintf("kubectl triage service/%s %s", be.Service, ns), fmt.Sprintf(serviceEndpointsSelector, ing.Namespace, be.Service)}}},
			})
		}
	}
	if len(out) == 0 && checked > 0 {
		out = append(out, rule.Finding{
			Category: rule.Ingress.Sub("Backend"), Verdict: report.Refuted, Confidence: rule.High, Subject: ing.Name,
			Hypothesis: fmt.Sprintf("A backend Service of ingress %s is missing, lacks the port or has no ready endpoints", ing.Name),
		})
	}
	return out
}

func ServiceHasPort(svc *corev1.Service, p networkingv1.ServiceBackendPort) bool {
	for _, sp := range svc.Spec.Ports {
		if (p.Name != "" && sp.Name == p.Name) || (p.Name == "" && sp.Port == p.Number) {
			return true
		}
	}
	return false
}
