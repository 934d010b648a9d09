package bundletest

import (
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
)

// RawObject is what the collector keeps of the target.
func RawObject(obj runtime.Object, apiVersion, kind string) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

func Service(name string, selector map[string]string, mutate ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-svc-" + name), CreationTimestamp: TS(-time.Hour)},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: selector,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func TargetPort(tp intstr.IntOrString) func(*corev1.Service) {
	return func(s *corev1.Service) { s.Spec.Ports[0].TargetPort = tp }
}

func Labelled(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func Ports(cps ...corev1.ContainerPort) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Ports = cps }
}

// EndpointSlice for svc with one endpoint per pod; ready as given, and the
// Service's port unless portless.
func EndpointSlice(svc *corev1.Service, ready bool, portless bool, pods ...*corev1.Pod) *discoveryv1.EndpointSlice {
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

// ServiceBundle is a Service target with the pods its selector matches and
// the namespace's candidates.
func ServiceBundle(svc *corev1.Service, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:   fault.Resource{APIVersion: "v1", Kind: "Service", Name: svc.Name, Namespace: svc.Namespace, UID: string(svc.UID)},
		Object:   RawObject(svc, "v1", "Service"),
		Services: []*corev1.Service{svc},
		Nodes:    []*corev1.Node{Node("node-1", "4")},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func WithPods(pods ...*corev1.Pod) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Pods = append(b.Pods, pods...) }
}

func WithCandidates(pods ...*corev1.Pod) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Candidates = append(b.Candidates, pods...) }
}

func WithSlices(s ...*discoveryv1.EndpointSlice) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.EndpointSlices = append(b.EndpointSlices, s...) }
}

func NotReadyRunning(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: false,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: TS(-29 * time.Minute)}}}}
}

func Ingress(name string, mutate ...func(*networkingv1.Ingress)) *networkingv1.Ingress {
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

func IngressClass(name string, isDefault bool) *networkingv1.IngressClass {
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	if isDefault {
		ic.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	}
	return ic
}

func IngressBundle(ing *networkingv1.Ingress, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:         fault.Resource{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: ing.Name, Namespace: ing.Namespace, UID: string(ing.UID)},
		Object:         RawObject(ing, "networking.k8s.io/v1", "Ingress"),
		Ingresses:      []*networkingv1.Ingress{ing},
		IngressClasses: []*networkingv1.IngressClass{IngressClass("nginx", false)},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}
