package network

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// IngressBackendType is the rule network/ingress-backend-type.
var IngressBackendType = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/ingress-backend-type",
		Kinds: []string{"Ingress"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.Events},
		Doc:   "An Ingress whose controller refuses a backend Service for its type: a cloud load balancer that sends traffic to node ports (GCE without container-native load balancing, the AWS Load Balancer Controller's instance targets) needs a NodePort or LoadBalancer Service, and the backend is ClusterIP.",
	},
	Check: checkIngressBackendType,
}

// lbController is an ingress controller whose load balancer reaches a
// backend through its node port unless told to reach the pods directly.
type lbController uint8

const (
	gceIngress lbController = iota + 1 // ingress-gce (GKE)
	awsIngress                         // AWS Load Balancer Controller, and the ALB ingress controller before it
)

func (k lbController) String() string {
	switch k {
	case gceIngress:
		return "the GCE ingress controller"
	case awsIngress:
		return "the AWS Load Balancer Controller"
	}
	return "the ingress controller"
}

// nodePortWording is how a controller says, in the events it records on
// the Ingress, that a backend must be NodePort (or LoadBalancer); the
// service group, when the wording names one, is "ns/name" or "name".
type nodePortWording struct {
	re         *regexp.Regexp
	controller lbController
}

var nodePortWordings = []nodePortWording{
	// ingress-gce's ErrBadSvcType (its wording since
	// https://github.com/kubernetes/ingress-gce/pull/335), as Warning
	// Translate "Translation failed: invalid ingress spec: …"
	// (https://github.com/kubernetes/k8s.io/pull/1915,
	// https://github.com/kyma-project/test-infra/pull/3787) and, in older
	// versions, Sync "Error during sync: error while evaluating the ingress
	// spec: …" (https://github.com/rancher/server-chart/issues/23,
	// https://github.com/istio/istio/issues/26038).
	{regexp.MustCompile(`service "(?P<service>[^"]+)" is type "(?P<type>[^"]+)", expected "NodePort" or "LoadBalancer"`), gceIngress},
	// Its wording before LoadBalancer Services were accepted (the same PR's diff).
	{regexp.MustCompile(`service "(?P<service>[^"]+)" is not type 'NodePort'`), gceIngress},
	// The ALB ingress controller v1: Warning ERROR "Error instantiating load
	// balancer: default/sa-api service is not of type NodePort"
	// (https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/458).
	{regexp.MustCompile(`(?P<service>[a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*) service is not of type NodePort`), awsIngress},
	// The AWS Load Balancer Controller names no Service: Warning
	// FailedBuildModel "Failed build model due to … TargetGroup port is
	// empty. When using Instance targets, your service be must of type
	// 'NodePort' or 'LoadBalancer'" (kubernetes-sigs/aws-load-balancer-controller
	// pkg/ingress/model_build_target_group.go, PR
	// https://github.com/kubernetes-sigs/aws-load-balancer-controller/pull/4243);
	// before that PR, the target group's port 0 refused by the AWS API
	// (https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/1695).
	{regexp.MustCompile(`When using Instance targets, your service (?:be must|must be) of type 'NodePort' or 'LoadBalancer'`), awsIngress},
	{regexp.MustCompile(`minimum field value of 1, CreateTargetGroupInput\.Port`), awsIngress},
}

// Annotations that make the load balancer reach the pods themselves, so a
// ClusterIP Service is enough.
const (
	annGCENEG       = "cloud.google.com/neg"                  // {"ingress": true}: container-native load balancing
	annAWSTargetTyp = "alb.ingress.kubernetes.io/target-type" // ip
)

// BackendTypeRefusal is a backend Service the Ingress's controller refuses
// for its type, with the event that says so.
type BackendTypeRefusal struct {
	Backend    ingressBackend
	Service    *corev1.Service
	Event      corev1.Event
	Controller lbController
}

// BackendTypeRefusals reads the controllers' events on ing for a refusal
// of a backend's Service type and matches each to the backends whose
// Service is, now, neither NodePort nor LoadBalancer: the one the event
// names, or, when it names none, every such backend. A Service changed
// since to NodePort makes the event history.
func BackendTypeRefusals(c *rule.Pass, ing *networkingv1.Ingress) []BackendTypeRefusal {
	var latest *corev1.Event
	var named string
	var ctrl lbController
	for _, e := range c.B.EventsFor(string(ing.UID)) {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		for _, w := range nodePortWordings {
			if m, ok := submatch.Find(w.re, e.Message); ok {
				e := e
				latest, named, ctrl = &e, "", w.controller
				if w.re.SubexpIndex("service") >= 0 {
					named = m.Get("service")
				}
				break
			}
		}
	}
	if latest == nil {
		return nil
	}
	if ns, name, ok := strings.Cut(named, "/"); ok {
		if ns != ing.Namespace {
			return nil
		}
		named = name
	}
	var out []BackendTypeRefusal
	seen := map[string]bool{}
	for _, be := range BackendsOf(ing) {
		if seen[be.Service] || (named != "" && be.Service != named) {
			continue
		}
		svc := ServiceNamed(c, ing.Namespace, be.Service)
		if svc == nil || svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
			continue
		}
		seen[be.Service] = true
		out = append(out, BackendTypeRefusal{Backend: be, Service: svc, Event: *latest, Controller: ctrl})
	}
	return out
}

// ServiceTypeOf is the Service's type, ClusterIP when unset.
func ServiceTypeOf(svc *corev1.Service) corev1.ServiceType {
	if svc.Spec.Type == "" {
		return corev1.ServiceTypeClusterIP
	}
	return svc.Spec.Type
}

func checkIngressBackendType(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	var out []rule.Finding
	for _, r := range BackendTypeRefusals(c, ing) {
		out = append(out, backendTypeFinding(c, ing, r))
	}
	return out
}

func backendTypeFinding(c *rule.Pass, ing *networkingv1.Ingress, r BackendTypeRefusal) rule.Finding {
	svc, be := r.Service, r.Backend
	ns := "-n " + ing.Namespace
	typ := ServiceTypeOf(svc)
	f := rule.Finding{
		Category: rule.Ingress.Sub("Backend", "ServiceType"), Verdict: report.Validated, Confidence: rule.Definitive,
		Current: true, Strength: rule.Explained, Subject: ing.Name + "/" + svc.Name,
		Evidence: []string{
			kube.EventEvidence(c, r.Event),
			c.Evidence(fmt.Sprintf("Ingress %s %s routes to service %s %s", ing.Name, be.Where, svc.Name, PortText(be.Port)), "ingress/"+ing.Name+" "+be.Field,
				fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{%s}'", ing.Name, ns, be.Field)),
			c.Evidence(fmt.Sprintf("Service %s is type %s", svc.Name, typ), svcRef(svc)+" .spec.type",
				fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.type}'", svc.Name, ns)),
		},
		Hypothesis: fmt.Sprintf("%s refuses backend service %s of Ingress %s because it is type %s, not NodePort or LoadBalancer", r.Controller, svc.Name, ing.Name, typ),
		Title:      fmt.Sprintf("ingress %s: backend service %s is type %s; %s needs NodePort or LoadBalancer", ing.Name, svc.Name, typ, r.Controller),
		Culprit:    fmt.Sprintf("%s .spec.type %s (backend of ingress/%s %s; %s needs NodePort or LoadBalancer)", svcRef(svc), typ, ing.Name, be.Where, r.Controller),
	}
	patch := fmt.Sprintf(`kubectl patch service %s %s -p '{"spec":{"type":"NodePort"}}'`, svc.Name, ns)
	switch r.Controller {
	case gceIngress:
		f.Summary = fmt.Sprintf("The GCE ingress controller cannot build the load balancer for Ingress %s: its backend service %s is type %s, and without container-native load balancing (NEG) Google's load balancer reaches a backend through its node port, which a %s Service does not have (%s ×%d).", ing.Name, svc.Name, typ, typ, r.Event.Reason, max(r.Event.Count, 1))
		f.Mechanism = "ingress-gce translates each backend into an instance group on the Service's node port; a ClusterIP Service has none, so translation fails and the load balancer is not programmed for it. With the Service annotated cloud.google.com/neg '{\"ingress\": true}' (container-native load balancing, VPC-native clusters) the load balancer targets the pods' IPs and ClusterIP is enough."
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Make service %s type NodePort (the controller retries and programs the backend).", svc.Name),
				Commands: []string{patch}, Risk: "opens a node port on every node for the Service"},
			{Kind: report.LongTerm, Description: fmt.Sprintf("Or keep it ClusterIP and enable container-native load balancing on service %s (NEG; the cluster must be VPC-native).", svc.Name),
				Commands: []string{fmt.Sprintf(`kubectl annotate service %s %s %s='{"ingress": true}'`, svc.Name, ns, annGCENEG)}},
		}
		if v, ok := svc.Annotations[annGCENEG]; ok {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Service %s carries %s=%s, yet the controller refuses it: check that the annotation enables ingress and that the cluster is VPC-native.", svc.Name, annGCENEG, v))
		}
		if ing.Spec.IngressClassName == nil && ing.Annotations[annIngressClassLegacy] == "" {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Ingress %s names no class, so GKE's own controller took it: if it is meant for another controller (ingress-nginx, Kong), set that controller's class instead.", ing.Name))
		}
	case awsIngress:
		f.Summary = fmt.Sprintf("The AWS Load Balancer Controller cannot build the target group for Ingress %s: with instance targets (the default) the ALB sends traffic to the backend's node port, and service %s is type %s, which has none (%s ×%d).", ing.Name, svc.Name, typ, r.Event.Reason, max(r.Event.Count, 1))
		f.Mechanism = "In instance mode the controller registers the nodes on the Service's node port; a ClusterIP Service has no node port, so the target group's port is empty and the model is not built. With alb.ingress.kubernetes.io/target-type: ip the ALB targets the pods' IPs and ClusterIP is enough."
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Use IP targets: annotate Ingress %s with %s: ip (the pods' IPs are registered; ClusterIP is enough).", ing.Name, annAWSTargetTyp),
				Commands: []string{fmt.Sprintf("kubectl annotate ingress %s %s %s=ip --overwrite", ing.Name, ns, annAWSTargetTyp)},
				Risk:     "changes how the ALB reaches the pods: security groups must admit the ALB to the pods' ports"},
			{Kind: report.LongTerm, Description: fmt.Sprintf("Or keep instance targets and make service %s type NodePort.", svc.Name),
				Commands: []string{patch}, Risk: "opens a node port on every node for the Service"},
		}
		if v := kube.ValueOr(ing.Annotations[annAWSTargetTyp], svc.Annotations[annAWSTargetTyp]); v != "" {
			f.Contributing = append(f.Contributing, fmt.Sprintf("The target type is set to %s (%s).", v, annAWSTargetTyp))
		}
	}
	return f
}
