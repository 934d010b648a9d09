package network_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
)

func TestServiceRules(t *testing.T) {
	checkout := map[string]string{"app": "checkout"}
	svc := bundletest.Service("checkout", checkout)
	ready := bundletest.Pod("checkout-1", bundletest.Labelled("app", "checkout"), bundletest.Healthy, bundletest.Ports(corev1.ContainerPort{Name: "http", ContainerPort: 8080}))
	crash := bundletest.Pod("checkout-1", bundletest.Labelled("app", "checkout"), bundletest.Crashing(1, "Error"))
	probing := bundletest.Pod("checkout-1", bundletest.Labelled("app", "checkout"), bundletest.NotReadyRunning)
	creating := bundletest.Pod("checkout-1", bundletest.Labelled("app", "checkout"), bundletest.Waiting("ContainerCreating", ""))
	investigatetest.RunObjectCases(t, []investigatetest.ObjectCase{
		{
			Name: "selector typo names the closest label",
			Bundle: bundletest.ServiceBundle(svc, bundletest.WithCandidates(
				bundletest.Pod("checkout-7d9f-a", bundletest.Labelled("app", "check-out", "pod-template-hash", "7d9f")),
				bundletest.Pod("checkout-7d9f-b", bundletest.Labelled("app", "check-out", "pod-template-hash", "7d9f")),
				bundletest.Pod("cart-1", bundletest.Labelled("app", "cart")))),
			Category: "Service/NoEndpoints/SelectorMismatch",
			Culprit:  []string{"app=checkout (pods have app=check-out)"},
			Title:    []string{"app=checkout", "app=check-out"},
			MinConf:  0.9,
		},
		{
			Name: "selector version mismatch",
			Bundle: bundletest.ServiceBundle(bundletest.Service("checkout", map[string]string{"app": "checkout", "version": "v2"}), bundletest.WithCandidates(
				bundletest.Pod("checkout-v1-a", bundletest.Labelled("app", "checkout", "version", "v1")),
				bundletest.Pod("db-0", bundletest.Labelled("app", "postgres")))),
			Category: "Service/NoEndpoints/SelectorMismatch",
			Culprit:  []string{"version=v2 (pods have version=v1)"},
			MinConf:  0.9,
		},
		{
			Name: "selector key spelled differently on the pods",
			Bundle: bundletest.ServiceBundle(bundletest.Service("checkout", map[string]string{"app.kubernetes.io/name": "checkout"}), bundletest.WithCandidates(
				bundletest.Pod("checkout-a", bundletest.Labelled("app", "checkout")))),
			Category: "Service/NoEndpoints/SelectorMismatch",
			Culprit:  []string{"app.kubernetes.io/name=checkout (pods have app=checkout)"},
			MinConf:  0.9,
		},
		{
			Name: "selector unlike any pod is a weaker claim",
			Bundle: bundletest.ServiceBundle(svc, bundletest.WithCandidates(
				bundletest.Pod("db-0", bundletest.Labelled("app", "postgres-primary")))),
			Category: "Service/NoEndpoints/SelectorMismatch",
			Culprit:  []string{"app=checkout (pods have app=postgres-primary)"},
			MaxConf:  0.75,
			// Patching the selector to app=postgres-primary would send
			// checkout's traffic to the database: the policy withholds it.
			Withheld: "pods of db-0",
		},
		{
			Name:     "selector with a missing label",
			Bundle:   bundletest.ServiceBundle(bundletest.Service("checkout", map[string]string{"app": "checkout", "tier": "web"}), bundletest.WithCandidates(bundletest.Pod("checkout-a", bundletest.Labelled("app", "checkout")))),
			Category: "Service/NoEndpoints/SelectorMismatch",
			Culprit:  []string{"tier=web (pods have no label tier)"},
		},
		{
			// No endpoint is a fact; why is unknown: degraded, not healthy.
			Name: "namespace pods unreadable: no claim about them",
			Bundle: bundletest.ServiceBundle(svc, func(b *bundle.Bundle) {
				b.Problems = append(b.Problems, bundle.Problem{What: "pods of namespace shop", Error: "forbidden", Forbidden: true})
			}),
			WantFinding: map[string]report.Verdict{"Service/NoEndpoints/SelectorMismatch": report.Inconclusive, "Service/NoEndpoints/NoPods": ""},
			Degraded:    true,
		},
		{
			Name:     "empty namespace",
			Bundle:   bundletest.ServiceBundle(svc),
			Category: "Service/NoEndpoints/NoPods",
			Culprit:  []string{"app=checkout", "no pod in namespace shop"},
		},
		{
			Name:        "crashing pods: the pods' cause wins",
			Bundle:      bundletest.ServiceBundle(svc, bundletest.WithPods(crash), bundletest.WithSlices(bundletest.EndpointSlice(svc, false, false, crash))),
			Category:    "CrashLoop",
			WantFinding: map[string]report.Verdict{"Service/NoEndpoints/PodsNotReady": report.Validated},
		},
		{
			Name: "readiness probe failing",
			Bundle: bundletest.ServiceBundle(svc, bundletest.WithPods(probing), bundletest.WithSlices(bundletest.EndpointSlice(svc, false, false, probing)),
				bundletest.WithEvents(bundletest.Event(probing, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40))),
			Category: "Service/NoEndpoints/ReadinessProbe",
			Culprit:  []string{"Readiness probe failed", "checkout-1"},
		},
		{
			Name:     "pods not ready without an explanation",
			Bundle:   bundletest.ServiceBundle(svc, bundletest.WithPods(creating), bundletest.WithSlices(bundletest.EndpointSlice(svc, false, false, creating))),
			Category: "Service/NoEndpoints/PodsNotReady",
			Culprit:  []string{"checkout-1", "ContainerCreating"},
		},
		{
			Name: "named targetPort the containers do not declare",
			Bundle: bundletest.ServiceBundle(bundletest.Service("checkout", checkout, bundletest.TargetPort(intstr.FromString("http"))),
				bundletest.WithPods(bundletest.Pod("checkout-1", bundletest.Labelled("app", "checkout"), bundletest.Healthy, bundletest.Ports(corev1.ContainerPort{Name: "web", ContainerPort: 8080}))),
				bundletest.WithSlices(bundletest.EndpointSlice(svc, true, true, ready))),
			Category: "Service/TargetPort/NamedPortMissing",
			Culprit:  []string{`targetPort "http"`, `"web"`},
			MinConf:  0.9,
		},
		{
			Name: "named targetPort missing on some pods only (a rollout renamed it)",
			Bundle: bundletest.ServiceBundle(bundletest.Service("checkout", checkout, bundletest.TargetPort(intstr.FromString("http"))),
				bundletest.WithPods(bundletest.Pod("checkout-new", bundletest.Labelled("app", "checkout"), bundletest.Healthy, bundletest.Ports(corev1.ContainerPort{Name: "web", ContainerPort: 8080})),
					bundletest.Pod("checkout-old", bundletest.Labelled("app", "checkout"), bundletest.NotReadyRunning, bundletest.Ports(corev1.ContainerPort{Name: "http", ContainerPort: 8080}))),
				bundletest.WithSlices(bundletest.EndpointSlice(svc, false, false, bundletest.Pod("checkout-old")))),
			Category: "Service/TargetPort/NamedPortMissing",
			Culprit:  []string{`targetPort "http"`},
			MaxConf:  0.85,
		},
		{
			Name:     "service known only from the raw object",
			Bundle:   bundletest.ServiceBundle(bundletest.Service("legacy-db", nil), func(b *bundle.Bundle) { b.Services = nil }),
			Category: "Service/NoEndpoints/NoSelector",
		},
		{
			Name: "numeric targetPort not declared is only probable",
			Bundle: bundletest.ServiceBundle(bundletest.Service("checkout", checkout, bundletest.TargetPort(intstr.FromInt32(80))),
				bundletest.WithPods(bundletest.Pod("checkout-1", bundletest.Labelled("app", "checkout"), bundletest.Healthy, bundletest.Ports(corev1.ContainerPort{ContainerPort: 8080}))),
				bundletest.WithSlices(bundletest.EndpointSlice(svc, true, false, ready))),
			Category: "Service/TargetPort/NotDeclared",
			Culprit:  []string{"targetPort 80", "8080"},
			MaxConf:  0.6,
		},
		{
			Name: "numeric targetPort with nothing declared says nothing",
			Bundle: bundletest.ServiceBundle(svc, bundletest.WithPods(bundletest.Pod("checkout-1", bundletest.Labelled("app", "checkout"), bundletest.Healthy)),
				bundletest.WithSlices(bundletest.EndpointSlice(svc, true, false, ready))),
		},
		{
			Name:     "ready pods not published",
			Bundle:   bundletest.ServiceBundle(svc, bundletest.WithPods(ready)),
			Category: "Service/NoEndpoints/NotPublished",
			MaxConf:  0.5,
		},
		{
			Name:     "no selector and no manual EndpointSlice",
			Bundle:   bundletest.ServiceBundle(bundletest.Service("legacy-db", nil)),
			Category: "Service/NoEndpoints/NoSelector",
			Culprit:  []string{"spec.selector (empty)"},
		},
		{
			Name:   "no selector with a manual EndpointSlice",
			Bundle: bundletest.ServiceBundle(bundletest.Service("legacy-db", nil), bundletest.WithSlices(bundletest.EndpointSlice(bundletest.Service("legacy-db", nil), true, false, ready))),
		},
		{
			Name: "ExternalName is not applicable",
			Bundle: bundletest.ServiceBundle(bundletest.Service("payments", nil, func(s *corev1.Service) {
				s.Spec.Type, s.Spec.ExternalName, s.Spec.Ports = corev1.ServiceTypeExternalName, "payments.example.com", nil
			})),
			WantFinding: map[string]report.Verdict{"Service/ExternalName": report.Refuted},
		},
		{
			Name:        "healthy service",
			Bundle:      bundletest.ServiceBundle(svc, bundletest.WithPods(ready), bundletest.WithSlices(bundletest.EndpointSlice(svc, true, false, ready))),
			WantFinding: map[string]report.Verdict{"Service/NoEndpoints": report.Refuted, "Service/TargetPort": report.Refuted},
		},
	})
}

func TestClosestPods(t *testing.T) {
	sel := map[string]string{"app": "checkout", "tier": "web"}
	pods, diffs := network.ClosestPods(sel, []*corev1.Pod{
		bundletest.Pod("a", bundletest.Labelled("app", "cart", "tier", "web")),
		bundletest.Pod("b", bundletest.Labelled("app", "checkout", "tier", "frontend")),
		bundletest.Pod("c", bundletest.Labelled("app", "checkout", "tier", "wbe")),
		bundletest.Pod("d", bundletest.Labelled("app", "checkout", "tier", "web")), // a match, not a candidate
	})
	if len(pods) != 1 || pods[0].Name != "c" || len(diffs) != 1 || diffs[0].Have != "wbe" {
		t.Fatalf("closest = %v %+v, want pod c with tier=wbe", network.NamesOfPods(pods), diffs)
	}
	if got := kube.EditDistance("checkout", "check-out"); got != 1 {
		t.Errorf("editDistance = %d, want 1", got)
	}
}

func TestIngressRules(t *testing.T) {
	api := bundletest.Service("api", map[string]string{"app": "api"})
	apiPod := bundletest.Pod("api-1", bundletest.Labelled("app", "api"), bundletest.Healthy)
	healthyAPI := func(b *bundle.Bundle) {
		b.Services = append(b.Services, api)
		b.EndpointSlices = append(b.EndpointSlices, bundletest.EndpointSlice(api, true, false, apiPod))
	}
	noClass := func(i *networkingv1.Ingress) { i.Spec.IngressClassName = nil }
	investigatetest.RunObjectCases(t, []investigatetest.ObjectCase{
		{
			Name: "backend service missing",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop"), func(b *bundle.Bundle) {
				b.Missing = append(b.Missing, bundle.MissingRef{Kind: "Service", Namespace: "shop", Name: "api", ReferencedBy: "ingress/shop"})
			}),
			Category: "Ingress/Backend/ServiceMissing",
			Culprit:  []string{`service.name "api"`, "not found"},
			Title:    []string{"shop.example.com/api"},
			MinConf:  0.9,
		},
		{
			Name:     "backend port number not exposed",
			Bundle:   bundletest.IngressBundle(bundletest.Ingress("shop", func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port.Number = 8080 }), healthyAPI),
			Category: "Ingress/Backend/PortMissing",
			Culprit:  []string{"port 8080", "http (80)"},
		},
		{
			Name: "backend port name not exposed",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", func(i *networkingv1.Ingress) {
				i.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = networkingv1.ServiceBackendPort{Name: "web"}
			}), healthyAPI),
			Category: "Ingress/Backend/PortMissing",
			Culprit:  []string{`port name "web"`},
		},
		{
			Name: "backend without ready endpoints",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop"), func(b *bundle.Bundle) {
				b.Services = append(b.Services, api)
				b.EndpointSlices = append(b.EndpointSlices, bundletest.EndpointSlice(api, false, false, apiPod))
			}),
			Category: "Ingress/Backend/NoEndpoints",
			Culprit:  []string{"service/api"},
		},
		{
			Name: "default backend without a selector",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", func(i *networkingv1.Ingress) {
				i.Spec.Rules = nil
				i.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "legacy", Port: networkingv1.ServiceBackendPort{Number: 80}}}
			}), func(b *bundle.Bundle) { b.Services = append(b.Services, bundletest.Service("legacy", nil)) }),
			Category: "Ingress/Backend/NoEndpoints",
			Title:    []string{"no selector"},
		},
		{
			Name: "class does not exist",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", func(i *networkingv1.Ingress) {
				c := "nginx-internal"
				i.Spec.IngressClassName = &c
			}), healthyAPI),
			Category: "Ingress/Class/Missing",
			Culprit:  []string{`"nginx-internal"`, "nginx (k8s.io/ingress-nginx)"},
		},
		{
			Name:     "no class and no default",
			Bundle:   bundletest.IngressBundle(bundletest.Ingress("shop", noClass), healthyAPI),
			Category: "Ingress/Class/NoDefault",
			Culprit:  []string{"no default IngressClass"},
		},
		{
			Name: "no class with a default is fine",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", noClass), healthyAPI, func(b *bundle.Bundle) {
				b.IngressClasses = []*networkingv1.IngressClass{bundletest.IngressClass("nginx", true)}
			}),
			WantFinding: map[string]report.Verdict{"Ingress/Class": report.Refuted, "Ingress/Backend": report.Refuted},
		},
		{
			Name: "legacy class annotation is left to the controllers",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", noClass, func(i *networkingv1.Ingress) {
				i.Annotations = map[string]string{"kubernetes.io/ingress.class": "nginx"}
			}), healthyAPI),
		},
		{
			Name: "classes unreadable: no verdict",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", noClass), healthyAPI, func(b *bundle.Bundle) {
				b.IngressClasses = nil
				b.Problems = append(b.Problems, bundle.Problem{What: "ingress classes", Error: "forbidden", Forbidden: true})
			}),
			// Not knowing the classes, the rule stays silent rather than guess.
			WantFinding: map[string]report.Verdict{"Ingress/Class/NoDefault": ""},
		},
		{
			Name:        "healthy ingress",
			Bundle:      bundletest.IngressBundle(bundletest.Ingress("shop"), healthyAPI),
			WantFinding: map[string]report.Verdict{"Ingress/Class": report.Refuted, "Ingress/Backend": report.Refuted},
		},
	})
}
