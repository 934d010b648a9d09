package investigate

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
)

// nsCase is one synthetic bundle for the network and storage rules, with
// the root cause the report must give.
type nsCase struct {
	name     string
	bundle   *bundle.Bundle
	category string // prefix of the root-cause category; "" for a healthy report
	culprit  []string
	title    []string
	minConf  float64
	maxConf  float64 // 0: no upper bound
	withheld string  // part of the safe-fix policy's reason for a withheld action
	degraded bool
	// hypotheses that must appear with their verdict, e.g. {"Service/NoEndpoints", Refuted}
	wantFinding map[string]report.Verdict
}

func runNSCases(t *testing.T, cases []nsCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := Investigate(tt.bundle, Options{IncidentID: "test", Agent: "builtin", Now: now})
			if err := report.Validate(r.Markdown()); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			if len(tt.wantFinding) > 0 {
				c := testPass(tt.bundle)
				got := map[string]report.Verdict{}
				for _, rule := range Rules {
					for _, f := range rule.Check(c.For(rule)) {
						got[string(f.Category)] = f.Verdict
					}
				}
				for cat, v := range tt.wantFinding {
					if got[cat] != v {
						t.Errorf("finding %s: verdict %q, want %q (all: %v)", cat, got[cat], v, got)
					}
				}
			}
			switch {
			case tt.degraded:
				if !r.Degraded || r.Healthy {
					t.Fatalf("want a degraded report, got degraded=%v healthy=%v %q (%s)", r.Degraded, r.Healthy, r.Title, r.RootCause.Category)
				}
				return
			case tt.category == "":
				if !r.Healthy {
					t.Fatalf("want healthy, got %q (%s)", r.Title, r.RootCause.Category)
				}
				return
			}
			if r.Healthy {
				t.Fatalf("report is healthy, want %s", tt.category)
			}
			checkRootCause(t, r, rootCauseWant{tt.category, tt.culprit, tt.title, tt.minConf}, "")
			if tt.maxConf > 0 && r.Confidence > tt.maxConf {
				t.Errorf("confidence %.2f > %.2f: the evidence does not support it", r.Confidence, tt.maxConf)
			}
			hasCommand := false
			for _, a := range r.Actions {
				hasCommand = hasCommand || len(a.Commands) > 0
			}
			if !hasCommand {
				t.Errorf("no action with a command")
			}
			withheld := ""
			for _, w := range r.Withheld {
				withheld += w.Reason + "\n"
			}
			if !strings.Contains(withheld, tt.withheld) || tt.withheld == "" && withheld != "" {
				t.Errorf("withheld %q, want %q", withheld, tt.withheld)
			}
		})
	}
}

// rawObject is what the collector keeps of the target.
func rawObject(obj runtime.Object, apiVersion, kind string) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

func service(name string, selector map[string]string, mutate ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-svc-" + name), CreationTimestamp: ts(-time.Hour)},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: selector,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func targetPort(tp intstr.IntOrString) func(*corev1.Service) {
	return func(s *corev1.Service) { s.Spec.Ports[0].TargetPort = tp }
}

func labelled(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func ports(cps ...corev1.ContainerPort) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Ports = cps }
}

// endpointSlice for svc with one endpoint per pod; ready as given, and the
// Service's port unless portless.
func endpointSlice(svc *corev1.Service, ready bool, portless bool, pods ...*corev1.Pod) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: svc.Name + "-abcde", Namespace: svc.Namespace, Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	if !portless {
		s.Ports = []discoveryv1.EndpointPort{{Name: &svc.Spec.Ports[0].Name, Port: &svc.Spec.Ports[0].TargetPort.IntVal}}
	}
	for _, p := range pods {
		r := ready
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.244.0.7"}, Conditions: discoveryv1.EndpointConditions{Ready: &r},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: p.Name, Namespace: p.Namespace}})
	}
	return s
}

// serviceBundle is a Service target with the pods its selector matches and
// the namespace's candidates.
func serviceBundle(svc *corev1.Service, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:   fault.Resource{APIVersion: "v1", Kind: "Service", Name: svc.Name, Namespace: svc.Namespace, UID: string(svc.UID)},
		Object:   rawObject(svc, "v1", "Service"),
		Services: []*corev1.Service{svc},
		Nodes:    []*corev1.Node{node("node-1", "4")},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func withPods(pods ...*corev1.Pod) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Pods = append(b.Pods, pods...) }
}

func withCandidates(pods ...*corev1.Pod) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Candidates = append(b.Candidates, pods...) }
}

func withSlices(s ...*discoveryv1.EndpointSlice) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.EndpointSlices = append(b.EndpointSlices, s...) }
}

func notReadyRunning(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: false,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-29 * time.Minute)}}}}
}

func TestServiceRules(t *testing.T) {
	checkout := map[string]string{"app": "checkout"}
	svc := service("checkout", checkout)
	ready := pod("checkout-1", labelled("app", "checkout"), healthy, ports(corev1.ContainerPort{Name: "http", ContainerPort: 8080}))
	crash := pod("checkout-1", labelled("app", "checkout"), crashing(1, "Error"))
	probing := pod("checkout-1", labelled("app", "checkout"), notReadyRunning)
	creating := pod("checkout-1", labelled("app", "checkout"), waiting("ContainerCreating", ""))
	runNSCases(t, []nsCase{
		{
			name: "selector typo names the closest label",
			bundle: serviceBundle(svc, withCandidates(
				pod("checkout-7d9f-a", labelled("app", "check-out", "pod-template-hash", "7d9f")),
				pod("checkout-7d9f-b", labelled("app", "check-out", "pod-template-hash", "7d9f")),
				pod("cart-1", labelled("app", "cart")))),
			category: "Service/NoEndpoints/SelectorMismatch",
			culprit:  []string{"app=checkout (pods have app=check-out)"},
			title:    []string{"app=checkout", "app=check-out"},
			minConf:  0.9,
		},
		{
			name: "selector version mismatch",
			bundle: serviceBundle(service("checkout", map[string]string{"app": "checkout", "version": "v2"}), withCandidates(
				pod("checkout-v1-a", labelled("app", "checkout", "version", "v1")),
				pod("db-0", labelled("app", "postgres")))),
			category: "Service/NoEndpoints/SelectorMismatch",
			culprit:  []string{"version=v2 (pods have version=v1)"},
			minConf:  0.9,
		},
		{
			name: "selector key spelled differently on the pods",
			bundle: serviceBundle(service("checkout", map[string]string{"app.kubernetes.io/name": "checkout"}), withCandidates(
				pod("checkout-a", labelled("app", "checkout")))),
			category: "Service/NoEndpoints/SelectorMismatch",
			culprit:  []string{"app.kubernetes.io/name=checkout (pods have app=checkout)"},
			minConf:  0.9,
		},
		{
			name: "selector unlike any pod is a weaker claim",
			bundle: serviceBundle(svc, withCandidates(
				pod("db-0", labelled("app", "postgres-primary")))),
			category: "Service/NoEndpoints/SelectorMismatch",
			culprit:  []string{"app=checkout (pods have app=postgres-primary)"},
			maxConf:  0.75,
			// Patching the selector to app=postgres-primary would send
			// checkout's traffic to the database (issue 16).
			withheld: "pods of db-0",
		},
		{
			name:     "selector with a missing label",
			bundle:   serviceBundle(service("checkout", map[string]string{"app": "checkout", "tier": "web"}), withCandidates(pod("checkout-a", labelled("app", "checkout")))),
			category: "Service/NoEndpoints/SelectorMismatch",
			culprit:  []string{"tier=web (pods have no label tier)"},
		},
		{
			// No endpoint is a fact; why is unknown: degraded, not healthy.
			name: "namespace pods unreadable: no claim about them",
			bundle: serviceBundle(svc, func(b *bundle.Bundle) {
				b.Problems = append(b.Problems, bundle.Problem{What: "pods of namespace shop", Error: "forbidden", Forbidden: true})
			}),
			wantFinding: map[string]report.Verdict{"Service/NoEndpoints/SelectorMismatch": report.Inconclusive, "Service/NoEndpoints/NoPods": ""},
			degraded:    true,
		},
		{
			name:     "empty namespace",
			bundle:   serviceBundle(svc),
			category: "Service/NoEndpoints/NoPods",
			culprit:  []string{"app=checkout", "no pod in namespace shop"},
		},
		{
			name:        "crashing pods: the pods' cause wins",
			bundle:      serviceBundle(svc, withPods(crash), withSlices(endpointSlice(svc, false, false, crash))),
			category:    "CrashLoop",
			wantFinding: map[string]report.Verdict{"Service/NoEndpoints/PodsNotReady": report.Validated},
		},
		{
			name: "readiness probe failing",
			bundle: serviceBundle(svc, withPods(probing), withSlices(endpointSlice(svc, false, false, probing)),
				withEvents(event(probing, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40))),
			category: "Service/NoEndpoints/ReadinessProbe",
			culprit:  []string{"Readiness probe failed", "checkout-1"},
		},
		{
			name:     "pods not ready without an explanation",
			bundle:   serviceBundle(svc, withPods(creating), withSlices(endpointSlice(svc, false, false, creating))),
			category: "Service/NoEndpoints/PodsNotReady",
			culprit:  []string{"checkout-1", "ContainerCreating"},
		},
		{
			name: "named targetPort the containers do not declare",
			bundle: serviceBundle(service("checkout", checkout, targetPort(intstr.FromString("http"))),
				withPods(pod("checkout-1", labelled("app", "checkout"), healthy, ports(corev1.ContainerPort{Name: "web", ContainerPort: 8080}))),
				withSlices(endpointSlice(svc, true, true, ready))),
			category: "Service/TargetPort/NamedPortMissing",
			culprit:  []string{`targetPort "http"`, `"web"`},
			minConf:  0.9,
		},
		{
			name: "named targetPort missing on some pods only (a rollout renamed it)",
			bundle: serviceBundle(service("checkout", checkout, targetPort(intstr.FromString("http"))),
				withPods(pod("checkout-new", labelled("app", "checkout"), healthy, ports(corev1.ContainerPort{Name: "web", ContainerPort: 8080})),
					pod("checkout-old", labelled("app", "checkout"), notReadyRunning, ports(corev1.ContainerPort{Name: "http", ContainerPort: 8080}))),
				withSlices(endpointSlice(svc, false, false, pod("checkout-old")))),
			category: "Service/TargetPort/NamedPortMissing",
			culprit:  []string{`targetPort "http"`},
			maxConf:  0.85,
		},
		{
			name:     "service known only from the raw object",
			bundle:   serviceBundle(service("legacy-db", nil), func(b *bundle.Bundle) { b.Services = nil }),
			category: "Service/NoEndpoints/NoSelector",
		},
		{
			name: "numeric targetPort not declared is only probable",
			bundle: serviceBundle(service("checkout", checkout, targetPort(intstr.FromInt32(80))),
				withPods(pod("checkout-1", labelled("app", "checkout"), healthy, ports(corev1.ContainerPort{ContainerPort: 8080}))),
				withSlices(endpointSlice(svc, true, false, ready))),
			category: "Service/TargetPort/NotDeclared",
			culprit:  []string{"targetPort 80", "8080"},
			maxConf:  0.6,
		},
		{
			name: "numeric targetPort with nothing declared says nothing",
			bundle: serviceBundle(svc, withPods(pod("checkout-1", labelled("app", "checkout"), healthy)),
				withSlices(endpointSlice(svc, true, false, ready))),
		},
		{
			name:     "ready pods not published",
			bundle:   serviceBundle(svc, withPods(ready)),
			category: "Service/NoEndpoints/NotPublished",
			maxConf:  0.5,
		},
		{
			name:     "no selector and no manual EndpointSlice",
			bundle:   serviceBundle(service("legacy-db", nil)),
			category: "Service/NoEndpoints/NoSelector",
			culprit:  []string{"spec.selector (empty)"},
		},
		{
			name:   "no selector with a manual EndpointSlice",
			bundle: serviceBundle(service("legacy-db", nil), withSlices(endpointSlice(service("legacy-db", nil), true, false, ready))),
		},
		{
			name: "ExternalName is not applicable",
			bundle: serviceBundle(service("payments", nil, func(s *corev1.Service) {
				s.Spec.Type, s.Spec.ExternalName, s.Spec.Ports = corev1.ServiceTypeExternalName, "payments.example.com", nil
			})),
			wantFinding: map[string]report.Verdict{"Service/ExternalName": report.Refuted},
		},
		{
			name:        "healthy service",
			bundle:      serviceBundle(svc, withPods(ready), withSlices(endpointSlice(svc, true, false, ready))),
			wantFinding: map[string]report.Verdict{"Service/NoEndpoints": report.Refuted, "Service/TargetPort": report.Refuted},
		},
	})
}

func TestClosestPods(t *testing.T) {
	sel := map[string]string{"app": "checkout", "tier": "web"}
	pods, diffs := network.ClosestPods(sel, []*corev1.Pod{
		pod("a", labelled("app", "cart", "tier", "web")),
		pod("b", labelled("app", "checkout", "tier", "frontend")),
		pod("c", labelled("app", "checkout", "tier", "wbe")),
		pod("d", labelled("app", "checkout", "tier", "web")), // a match, not a candidate
	})
	if len(pods) != 1 || pods[0].Name != "c" || len(diffs) != 1 || diffs[0].Have != "wbe" {
		t.Fatalf("closest = %v %+v, want pod c with tier=wbe", network.NamesOfPods(pods), diffs)
	}
	if got := kube.EditDistance("checkout", "check-out"); got != 1 {
		t.Errorf("editDistance = %d, want 1", got)
	}
}

func ingress(name string, mutate ...func(*networkingv1.Ingress)) *networkingv1.Ingress {
	class := "nginx"
	prefix := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-ing-" + name)},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{Host: "shop.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/api", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "api", Port: networkingv1.ServiceBackendPort{Number: 80}}},
			}}}}}}},
	}
	for _, m := range mutate {
		m(ing)
	}
	return ing
}

func ingressClass(name string, isDefault bool) *networkingv1.IngressClass {
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	if isDefault {
		ic.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	}
	return ic
}

func ingressBundle(ing *networkingv1.Ingress, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:         fault.Resource{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: ing.Name, Namespace: ing.Namespace, UID: string(ing.UID)},
		Object:         rawObject(ing, "networking.k8s.io/v1", "Ingress"),
		Ingresses:      []*networkingv1.Ingress{ing},
		IngressClasses: []*networkingv1.IngressClass{ingressClass("nginx", false)},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func TestIngressRules(t *testing.T) {
	api := service("api", map[string]string{"app": "api"})
	apiPod := pod("api-1", labelled("app", "api"), healthy)
	healthyAPI := func(b *bundle.Bundle) {
		b.Services = append(b.Services, api)
		b.EndpointSlices = append(b.EndpointSlices, endpointSlice(api, true, false, apiPod))
	}
	noClass := func(i *networkingv1.Ingress) { i.Spec.IngressClassName = nil }
	runNSCases(t, []nsCase{
		{
			name: "backend service missing",
			bundle: ingressBundle(ingress("shop"), func(b *bundle.Bundle) {
				b.Missing = append(b.Missing, bundle.MissingRef{Kind: "Service", Namespace: "shop", Name: "api", ReferencedBy: "ingress/shop"})
			}),
			category: "Ingress/Backend/ServiceMissing",
			culprit:  []string{`service.name "api"`, "not found"},
			title:    []string{"shop.example.com/api"},
			minConf:  0.9,
		},
		{
			name:     "backend port number not exposed",
			bundle:   ingressBundle(ingress("shop", func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port.Number = 8080 }), healthyAPI),
			category: "Ingress/Backend/PortMissing",
			culprit:  []string{"port 8080", "http (80)"},
		},
		{
			name: "backend port name not exposed",
			bundle: ingressBundle(ingress("shop", func(i *networkingv1.Ingress) {
				i.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = networkingv1.ServiceBackendPort{Name: "web"}
			}), healthyAPI),
			category: "Ingress/Backend/PortMissing",
			culprit:  []string{`port name "web"`},
		},
		{
			name: "backend without ready endpoints",
			bundle: ingressBundle(ingress("shop"), func(b *bundle.Bundle) {
				b.Services = append(b.Services, api)
				b.EndpointSlices = append(b.EndpointSlices, endpointSlice(api, false, false, apiPod))
			}),
			category: "Ingress/Backend/NoEndpoints",
			culprit:  []string{"service/api"},
		},
		{
			name: "default backend without a selector",
			bundle: ingressBundle(ingress("shop", func(i *networkingv1.Ingress) {
				i.Spec.Rules = nil
				i.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "legacy", Port: networkingv1.ServiceBackendPort{Number: 80}}}
			}), func(b *bundle.Bundle) { b.Services = append(b.Services, service("legacy", nil)) }),
			category: "Ingress/Backend/NoEndpoints",
			title:    []string{"no selector"},
		},
		{
			name: "class does not exist",
			bundle: ingressBundle(ingress("shop", func(i *networkingv1.Ingress) {
				c := "nginx-internal"
				i.Spec.IngressClassName = &c
			}), healthyAPI),
			category: "Ingress/Class/Missing",
			culprit:  []string{`"nginx-internal"`, "nginx (k8s.io/ingress-nginx)"},
		},
		{
			name:     "no class and no default",
			bundle:   ingressBundle(ingress("shop", noClass), healthyAPI),
			category: "Ingress/Class/NoDefault",
			culprit:  []string{"no default IngressClass"},
		},
		{
			name: "no class with a default is fine",
			bundle: ingressBundle(ingress("shop", noClass), healthyAPI, func(b *bundle.Bundle) {
				b.IngressClasses = []*networkingv1.IngressClass{ingressClass("nginx", true)}
			}),
			wantFinding: map[string]report.Verdict{"Ingress/Class": report.Refuted, "Ingress/Backend": report.Refuted},
		},
		{
			name: "legacy class annotation is left to the controllers",
			bundle: ingressBundle(ingress("shop", noClass, func(i *networkingv1.Ingress) {
				i.Annotations = map[string]string{"kubernetes.io/ingress.class": "nginx"}
			}), healthyAPI),
		},
		{
			name: "classes unreadable: no verdict",
			bundle: ingressBundle(ingress("shop", noClass), healthyAPI, func(b *bundle.Bundle) {
				b.IngressClasses = nil
				b.Problems = append(b.Problems, bundle.Problem{What: "ingress classes", Error: "forbidden", Forbidden: true})
			}),
			// Not knowing the classes, the rule stays silent rather than guess.
			wantFinding: map[string]report.Verdict{"Ingress/Class/NoDefault": ""},
		},
		{
			name:        "healthy ingress",
			bundle:      ingressBundle(ingress("shop"), healthyAPI),
			wantFinding: map[string]report.Verdict{"Ingress/Class": report.Refuted, "Ingress/Backend": report.Refuted},
		},
	})
}
