package e2e

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func init() { register(networkScenarios...) }

// nsReadyPodStatus is what the kubelet reports for a pod whose containers
// run and pass their probes.
func nsReadyPodStatus(container, image string) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.21", StartTime: ptr(minutesAgo(40)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(40)},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(40)},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(39)},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(39)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:01", ContainerID: "containerd://r1",
			Ready: true, Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(40)}}}},
	}
}

// nsTemplate is a pod template with one container declaring ports.
func nsTemplate(labels map[string]string, container, image string, ports ...corev1.ContainerPort) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: container, Image: image, Ports: ports}}},
	}
}

// nsService creates a ClusterIP Service with one TCP port.
func nsService(t *testing.T, c *testcluster.Cluster, ns, name string, selector map[string]string, port int32, target intstr.IntOrString) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: selector,
			Ports: []corev1.ServicePort{{Name: "http", Port: port, Protocol: corev1.ProtocolTCP, TargetPort: target}}},
	}
	c.Create(t, svc)
	return svc
}

// nsSlice writes the EndpointSlice the EndpointSlice controller would
// publish for svc: one endpoint per pod, with the given readiness, and the
// resolved port unless portless (a named targetPort no pod declares).
func nsSlice(t *testing.T, c *testcluster.Cluster, svc *corev1.Service, ready, portless bool, pods ...*corev1.Pod) {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: svc.Name + "-x7k2p", Namespace: svc.Namespace, Labels: map[string]string{
			discoveryv1.LabelServiceName: svc.Name, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	if !portless {
		port, proto := svc.Spec.Ports[0].TargetPort.IntVal, corev1.ProtocolTCP
		s.Ports = []discoveryv1.EndpointPort{{Name: ptr(svc.Spec.Ports[0].Name), Port: &port, Protocol: &proto}}
	}
	for i, p := range pods {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{fmt.Sprintf("10.244.0.%d", 30+i)},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(ready), Serving: ptr(ready), Terminating: ptr(false)},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: p.Name, Namespace: p.Namespace, UID: p.UID},
			NodeName:   ptr(p.Spec.NodeName),
		})
	}
	c.Create(t, s)
}

// nsIngress routes host/path to service:port, in class (nil: no class).
func nsIngress(t *testing.T, c *testcluster.Cluster, ns, name string, class *string, service string, port networkingv1.ServiceBackendPort) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: networkingv1.IngressSpec{IngressClassName: class, Rules: []networkingv1.IngressRule{{Host: "shop.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/api", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: service, Port: port}},
			}}}}}}},
	}
	c.Create(t, ing)
	return ing
}

// nsIngressClass creates a (never default) IngressClass named after the
// test namespace: classes are cluster-scoped and the cluster is shared.
func nsIngressClass(t *testing.T, c *testcluster.Cluster, ns string) string {
	name := "nginx-" + ns
	c.Create(t, &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}})
	return name
}

// nsBackend is a healthy Deployment "api" behind Service "api" port 80.
func nsBackend(t *testing.T, c *testcluster.Cluster, ns string, ready bool) *corev1.Service {
	labels := map[string]string{"app": "api"}
	status := nsReadyPodStatus("api", "shop/api:3.2.0")
	if !ready {
		status = crashStatus("api", 1, "Error", 6)
	}
	_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "api", Replicas: 2,
		Template: nsTemplate(labels, "api", "shop/api:3.2.0", corev1.ContainerPort{Name: "http", ContainerPort: 8080}), PodStatus: status})
	svc := nsService(t, c, ns, "api", labels, 80, intstr.FromString("http"))
	svc.Spec.Ports[0].TargetPort = intstr.FromInt32(8080) // as resolved in the slice
	nsSlice(t, c, svc, ready, false, pods...)
	return svc
}

var networkScenarios = []scenario{
	{
		name: "net-service-selector-typo",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			labels := map[string]string{"app": "check-out"}
			c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "checkout", Replicas: 2,
				Template:  nsTemplate(labels, "web", "shop/checkout:2.1.0", corev1.ContainerPort{Name: "http", ContainerPort: 8080}),
				PodStatus: nsReadyPodStatus("web", "shop/checkout:2.1.0")})
			c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "cart", Replicas: 1, PodStatus: nsReadyPodStatus("cart", "nginx:1.27")})
			svc := nsService(t, c, ns, "checkout", map[string]string{"app": "checkout"}, 80, intstr.FromString("http"))
			nsSlice(t, c, svc, true, true) // the controller's empty placeholder
			return []string{"service/checkout"}
		},
		category: "Service/NoEndpoints/SelectorMismatch",
		culprit:  []string{"app=checkout", "app=check-out"},
	},
	{
		name: "net-service-selector-version",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			labels := map[string]string{"app": "payments", "version": "v1"}
			c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "payments-v1", Replicas: 2,
				Template:  nsTemplate(labels, "payments", "shop/payments:1.9.3", corev1.ContainerPort{ContainerPort: 8443}),
				PodStatus: nsReadyPodStatus("payments", "shop/payments:1.9.3")})
			nsService(t, c, ns, "payments", map[string]string{"app": "payments", "version": "v2"}, 443, intstr.FromInt32(8443))
			return []string{"svc/payments"}
		},
		category: "Service/NoEndpoints/SelectorMismatch",
		culprit:  []string{"version=v2", "version=v1"},
	},
	{
		name: "net-service-no-pods-in-namespace",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsService(t, c, ns, "search", map[string]string{"app": "search"}, 80, intstr.FromInt32(9200))
			return []string{"service/search"}
		},
		category: "Service/NoEndpoints/NoPods",
		culprit:  []string{"app=search"},
	},
	{
		// The Service is fine; its pods crash. The pods' cause is the root cause.
		name: "net-service-pods-crashloop",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			labels := map[string]string{"app": "orders"}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "orders", Replicas: 2,
				Template:  nsTemplate(labels, "orders", "shop/orders:4.0.1", corev1.ContainerPort{Name: "http", ContainerPort: 8080}),
				PodStatus: crashStatus("orders", 1, "Error", 7)})
			for _, p := range pods {
				c.SetLogs(ns, p.Name, "orders", true, "orders starting\nFATAL config: required env DATABASE_URL is empty\n")
			}
			svc := nsService(t, c, ns, "orders", labels, 80, intstr.FromInt32(8080))
			nsSlice(t, c, svc, false, false, pods...)
			return []string{"service/orders"}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"DATABASE_URL"},
	},
	{
		name: "net-service-named-targetport-missing",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			labels := map[string]string{"app": "catalog"}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "catalog", Replicas: 2,
				Template:  nsTemplate(labels, "catalog", "shop/catalog:1.0.4", corev1.ContainerPort{Name: "web", ContainerPort: 8080}),
				PodStatus: nsReadyPodStatus("catalog", "shop/catalog:1.0.4")})
			svc := nsService(t, c, ns, "catalog", labels, 80, intstr.FromString("http"))
			nsSlice(t, c, svc, true, true, pods...) // no pod resolves "http": endpoints without ports
			return []string{"service/catalog"}
		},
		category: "Service/TargetPort/NamedPortMissing",
		culprit:  []string{`targetPort "http"`, `"web"`},
	},
	{
		name: "net-service-no-selector",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsService(t, c, ns, "legacy-db", nil, 5432, intstr.FromInt32(5432))
			return []string{"service/legacy-db"}
		},
		category: "Service/NoEndpoints/NoSelector",
		culprit:  []string{"spec.selector (empty)"},
	},
	{
		name: "net-service-externalname-healthy",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.Create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "stripe", Namespace: ns},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "api.stripe.com"}})
			return []string{"service/stripe"}
		},
		healthy: true,
	},
	{
		name: "net-service-healthy",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsBackend(t, c, ns, true)
			return []string{"service/api"}
		},
		healthy: true,
	},
	{
		name: "net-ingress-missing-service",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := nsIngressClass(t, c, ns)
			nsBackend(t, c, ns, true)
			nsIngress(t, c, ns, "shop", &class, "api-svc", networkingv1.ServiceBackendPort{Number: 80})
			return []string{"ingress/shop"}
		},
		category: "Ingress/Backend/ServiceMissing",
		culprit:  []string{`"api-svc"`, "not found"},
	},
	{
		name: "net-ingress-wrong-port",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := nsIngressClass(t, c, ns)
			nsBackend(t, c, ns, true)
			nsIngress(t, c, ns, "shop", &class, "api", networkingv1.ServiceBackendPort{Number: 8080})
			return []string{"ingress/shop"}
		},
		category: "Ingress/Backend/PortMissing",
		culprit:  []string{"port 8080", "http (80)"},
	},
	{
		name: "net-ingress-class-missing",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsIngressClass(t, c, ns)
			nsBackend(t, c, ns, true)
			nsIngress(t, c, ns, "shop", ptr("nginx-internal"), "api", networkingv1.ServiceBackendPort{Number: 80})
			return []string{"ingress/shop"}
		},
		category: "Ingress/Class/Missing",
		culprit:  []string{`"nginx-internal"`},
	},
	{
		// Relies on no scenario ever marking an IngressClass default: the
		// cluster is shared.
		name: "net-ingress-no-class-no-default",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			nsBackend(t, c, ns, true)
			nsIngress(t, c, ns, "shop", nil, "api", networkingv1.ServiceBackendPort{Name: "http"})
			return []string{"ingress/shop"}
		},
		category: "Ingress/Class/NoDefault",
		culprit:  []string{"no default IngressClass"},
	},
	{
		name: "net-ingress-backend-no-endpoints",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := nsIngressClass(t, c, ns)
			nsBackend(t, c, ns, false)
			ing := nsIngress(t, c, ns, "shop", &class, "api", networkingv1.ServiceBackendPort{Number: 80})
			c.Event(t, testcluster.EventSpec{Object: ing, Type: corev1.EventTypeNormal, Reason: "Sync", Component: "nginx-ingress-controller",
				Message: "Scheduled for sync", First: time.Now().Add(-30 * time.Minute)})
			return []string{"ingress/shop"}
		},
		category: "Ingress/Backend/NoEndpoints",
		culprit:  []string{"service/api"},
	},
	{
		// Served by its controller: a class that exists, a backend with
		// ready endpoints, and the address the controller published.
		name: "net-ingress-healthy",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := nsIngressClass(t, c, ns)
			nsBackend(t, c, ns, true)
			ing := nsIngress(t, c, ns, "shop", &class, "api", networkingv1.ServiceBackendPort{Number: 80})
			ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}
			c.SetObjectStatus(t, ing)
			return []string{"ingress/shop"}
		},
		healthy: true,
	},
}
