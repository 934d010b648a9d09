package network

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// IngressLBUnhealthy is the rule network/ingress-lb-unhealthy.
var IngressLBUnhealthy = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/ingress-lb-unhealthy",
		Kinds: []string{"Ingress"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.EndpointSlices, rule.Dependencies},
		Doc:   "A backend the cloud load balancer of the Ingress reports UNHEALTHY (GKE's ingress.kubernetes.io/backends annotation), traced to its Service by NodePort or name and to the readiness probe of the pods behind it, from which the load balancer's health check is made: it needs HTTP 200 where the kubelet accepts any 2xx or 3xx.",
	},
	Check: checkIngressLBUnhealthy,
}

// LBBackend is one backend of the Ingress's load balancer and the health
// its controller recorded.
type LBBackend struct {
	Name    string // the load balancer's backend service name
	Health  string // HEALTHY, UNHEALTHY, Unknown
	Service *corev1.Service
}

var (
	// nodePortBackendRe: an instance-group backend names its NodePort.
	nodePortBackendRe = regexp.MustCompile(`^k8s-be-(\d+)--`)
)

// LBBackends reads the backends' health the controller wrote on the
// Ingress, each matched to the backend Service it serves: by NodePort for
// instance groups, by namespace and name for NEGs (k8s1-<hash>-<ns>-<svc>-<port>-<hash>).
func LBBackends(c *rule.Pass, ing *networkingv1.Ingress) []LBBackend {
	raw := ing.Annotations[bundle.LBBackendsAnnotation]
	if raw == "" {
		return nil
	}
	var health map[string]string
	if json.Unmarshal([]byte(raw), &health) != nil {
		return nil
	}
	names := make([]string, 0, len(health))
	for n := range health {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []LBBackend
	for _, n := range names {
		out = append(out, LBBackend{Name: n, Health: health[n], Service: lbBackendService(c, ing, n)})
	}
	return out
}

func lbBackendService(c *rule.Pass, ing *networkingv1.Ingress, name string) *corev1.Service {
	port := int32(0)
	if m := nodePortBackendRe.FindStringSubmatch(name); m != nil {
		if v, err := strconv.ParseInt(m[1], 10, 32); err == nil {
			port = int32(v)
		}
	}
	for _, be := range BackendsOf(ing) {
		svc := ServiceNamed(c, ing.Namespace, be.Service)
		if svc == nil {
			continue
		}
		for _, p := range svc.Spec.Ports {
			if port != 0 && p.NodePort == port {
				return svc
			}
		}
		if port == 0 && strings.HasPrefix(name, "k8s1-") && strings.Contains(name, "-"+svc.Namespace+"-"+svc.Name+"-") {
			return svc
		}
	}
	return nil
}

func checkIngressLBUnhealthy(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	var out []rule.Finding
	for _, be := range LBBackends(c, ing) {
		if be.Health != bundle.LBUnhealthy {
			continue
		}
		out = append(out, lbUnhealthyFinding(c, ing, be))
	}
	return out
}

func lbUnhealthyFinding(c *rule.Pass, ing *networkingv1.Ingress, be LBBackend) rule.Finding {
	evidence := []string{c.Evidence(fmt.Sprintf("Ingress %s: its load balancer reports backend %s %s", ing.Name, be.Name, be.Health),
		fmt.Sprintf("ingress/%s .metadata.annotations[%s]", ing.Name, bundle.LBBackendsAnnotation),
		fmt.Sprintf("kubectl get ingress %s -n %s -o jsonpath='{.metadata.annotations.ingress\\.kubernetes\\.io/backends}'", ing.Name, ing.Namespace))}
	f := rule.Finding{Category: rule.Ingress.Sub("BackendUnhealthy"), Verdict: report.Validated, Confidence: rule.Likely, Current: true, Strength: rule.Traced, Subject: ing.Name,
		Mechanism: "GKE's load balancer sends traffic only to backends that pass its own health check, which the ingress controller builds from the readiness probe of the pods serving the port (its path; / when the pods have none) and which succeeds on HTTP 200 alone. " +
			"The kubelet counts any status from 200 to 399 as ready, so a path that redirects (301, 302) keeps the pods Ready and the backend UNHEALTHY: the load balancer answers 502.",
	}
	if be.Service == nil {
		f.Confidence = rule.Moderate
		f.Title = fmt.Sprintf("Ingress %s: its load balancer reports backend %s UNHEALTHY", ing.Name, be.Name)
		f.Culprit = fmt.Sprintf("load balancer backend %s of Ingress %s, UNHEALTHY (no backend Service of the Ingress matched it)", be.Name, ing.Name)
		f.Hypothesis = f.Title
		f.Summary = f.Title + "; the Service behind it was not identified."
		f.Evidence = evidence
		return f
	}
	svc := be.Service
	probe, where := servingProbe(c, svc)
	probeText := "no readinessProbe (the health check then asks for /)"
	if probe != nil {
		probeText = "readinessProbe " + kube.ProbeText(probe, false)
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Pod %s behind Service %s has %s", where, svc.Name, probeText),
			fmt.Sprintf("pod/%s .spec.containers[].readinessProbe", where), fmt.Sprintf("kubectl get pod %s -n %s -o jsonpath='{.spec.containers[*].readinessProbe}'", where, svc.Namespace)))
	}
	f.Evidence = evidence
	f.Title = fmt.Sprintf("Ingress %s: its load balancer reports the backend of Service %s UNHEALTHY; its health check follows the pods' %s", ing.Name, svc.Name, probeText)
	f.Hypothesis = fmt.Sprintf("The load balancer's health check of Service %s, made from the pods' readinessProbe, does not get HTTP 200", svc.Name)
	f.Summary = fmt.Sprintf("The controller of Ingress %s records backend %s (Service %s) UNHEALTHY: the load balancer sends it no traffic. Its health check is built from the serving pods' %s and needs HTTP 200 on that path.", ing.Name, be.Name, svc.Name, probeText)
	f.Culprit = fmt.Sprintf("service %s behind Ingress %s: its load balancer backend %s is UNHEALTHY; the health check follows the pods' %s and needs HTTP 200", svc.Name, ing.Name, be.Name, probeText)
	f.Actions = []report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Give the pods behind Service %s a readinessProbe on a path that answers 200 without a redirect (a health or ping endpoint); the controller updates the load balancer's health check from it.", svc.Name),
		Commands:    []string{fmt.Sprintf("kubectl get pods -n %s -l %s -o jsonpath='{.items[0].spec.containers[*].readinessProbe}'", svc.Namespace, labels.SelectorFromSet(svc.Spec.Selector).String())}},
		{Kind: report.Check, Description: "See the health check the load balancer uses, and the status its path answers.",
			Commands: []string{"gcloud compute health-checks list", fmt.Sprintf("kubectl describe ingress %s -n %s", ing.Name, ing.Namespace)}}}
	return f
}

// servingProbe is the readiness probe of the first pod behind the
// Service (bundle.DependencyPods) and that pod's name.
func servingProbe(c *rule.Pass, svc *corev1.Service) (*corev1.Probe, string) {
	for _, p := range c.B.DependencyPods {
		if !Selects(svc, p) {
			continue
		}
		for i := range p.Spec.Containers {
			if pr := p.Spec.Containers[i].ReadinessProbe; pr != nil {
				return pr, p.Name
			}
		}
		return nil, p.Name
	}
	return nil, ""
}
