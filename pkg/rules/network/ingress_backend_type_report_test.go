package network_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
)

// TestIngressBackendType: an ingress controller's warning that a backend
// must be NodePort or LoadBalancer is matched to the backend Service that
// is neither — the one it names, or, for a wording that names none, each
// such backend — and the fix is the controller's: NodePort, or the
// load balancer sent to the pods (GCE's NEG, AWS's IP targets).
func TestIngressBackendType(t *testing.T) {
	ingEvent := func(reason, component, msg string) func(*bundle.Bundle) {
		e := bundletest.ObjEvent("Ingress", "shop", corev1.EventTypeWarning, reason, msg, 14, time.Minute)
		e.InvolvedObject.UID = "uid-ing-shop"
		e.Source.Component = component
		return bundletest.WithEvents(e)
	}
	apiPod := bundletest.Pod("api-1", bundletest.Labelled("app", "api"), bundletest.Healthy)
	webPod := bundletest.Pod("web-1", bundletest.Labelled("app", "web"), bundletest.Healthy)
	backend := func(name string, typ corev1.ServiceType, pod *corev1.Pod) func(*bundle.Bundle) {
		svc := bundletest.Service(name, map[string]string{"app": name}, func(s *corev1.Service) { s.Spec.Type = typ })
		return func(b *bundle.Bundle) {
			b.Services = append(b.Services, svc)
			b.EndpointSlices = append(b.EndpointSlices, bundletest.EndpointSlice(svc, true, false, pod))
		}
	}
	gce := func(i *networkingv1.Ingress) {
		i.Spec.IngressClassName = nil
		i.Annotations = map[string]string{"kubernetes.io/ingress.class": "gce"}
	}
	alb := func(i *networkingv1.Ingress) {
		c := "alb"
		i.Spec.IngressClassName = &c
	}
	// A second backend, web, beside api.
	twoBackends := func(i *networkingv1.Ingress) {
		p := i.Spec.Rules[0].HTTP.Paths[0]
		p.Path, p.Backend.Service = "/", &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}
		i.Spec.Rules[0].HTTP.Paths = append(i.Spec.Rules[0].HTTP.Paths, p)
	}
	withALBClass := func(b *bundle.Bundle) {
		b.IngressClasses = append(b.IngressClasses, &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "alb"}, Spec: networkingv1.IngressClassSpec{Controller: "ingress.k8s.aws/alb"}})
	}
	investigatetest.RunObjectCases(t, []investigatetest.ObjectCase{
		{
			// https://github.com/kubernetes/k8s.io/pull/1915
			Name: "GCE Translate names the ClusterIP service",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", gce), backend("api", corev1.ServiceTypeClusterIP, apiPod),
				ingEvent("Translate", "loadbalancer-controller", `Translation failed: invalid ingress spec: service "shop/api" is type "ClusterIP", expected "NodePort" or "LoadBalancer"`)),
			Category: "Ingress/Backend/ServiceType",
			Culprit:  []string{"service/api .spec.type ClusterIP", "GCE"},
			MinConf:  0.9,
		},
		{
			// https://github.com/rancher/server-chart/issues/23 (the older
			// Sync wording).
			Name: "GCE's older Sync wording",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", gce), backend("api", corev1.ServiceTypeClusterIP, apiPod),
				ingEvent("Sync", "loadbalancer-controller", `Error during sync: error while evaluating the ingress spec: service "shop/api" is type "ClusterIP", expected "NodePort" or "LoadBalancer"`)),
			Category: "Ingress/Backend/ServiceType",
			Culprit:  []string{"service/api .spec.type ClusterIP"},
		},
		{
			// The AWS Load Balancer Controller names no Service: of two
			// backends only the ClusterIP one is blamed.
			Name: "AWS instance targets blame the ClusterIP backend only",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", alb, twoBackends), withALBClass,
				backend("api", corev1.ServiceTypeNodePort, apiPod), backend("web", corev1.ServiceTypeClusterIP, webPod),
				ingEvent("FailedBuildModel", "ingress", "Failed build model due to ingress: shop/shop: TargetGroup port is empty. When using Instance targets, your service be must of type 'NodePort' or 'LoadBalancer'")),
			Category: "Ingress/Backend/ServiceType",
			Culprit:  []string{"service/web .spec.type ClusterIP", "AWS Load Balancer Controller"},
			Title:    []string{"web"},
		},
		{
			// https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/458
			Name: "ALB ingress controller v1 names the service",
			Bundle: bundletest.IngressBundle(bundletest.Ingress("shop", alb), withALBClass, backend("api", corev1.ServiceTypeClusterIP, apiPod),
				ingEvent("ERROR", "alb-ingress-controller", "Error instantiating load balancer: shop/api service is not of type NodePort")),
			Category: "Ingress/Backend/ServiceType",
			Culprit:  []string{"service/api .spec.type ClusterIP"},
		},
		{
			// ingress-nginx proxies to the endpoints: a ClusterIP backend
			// with no such warning is healthy.
			Name:        "ClusterIP backend without a refusal",
			Bundle:      bundletest.IngressBundle(bundletest.Ingress("shop"), backend("api", corev1.ServiceTypeClusterIP, apiPod)),
			WantFinding: map[string]report.Verdict{"Ingress/Backend/ServiceType": "", "Ingress/Backend": report.Refuted},
		},
	})

	// The Service was changed to NodePort since the warning: it is no
	// refusal of what the Service is now.
	b := bundletest.IngressBundle(bundletest.Ingress("shop", gce), backend("api", corev1.ServiceTypeNodePort, apiPod),
		ingEvent("Translate", "loadbalancer-controller", `Translation failed: invalid ingress spec: service "shop/api" is type "ClusterIP", expected "NodePort" or "LoadBalancer"`))
	if got := network.BackendTypeRefusals(investigatetest.Pass(b), b.Ingresses[0]); len(got) != 0 {
		t.Errorf("a NodePort Service is refused: %+v", got)
	}
}
