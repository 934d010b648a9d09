package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestIngressControllerDown: an Ingress whose class's controller
// crash-loops on a read its RBAC refuses
// (https://github.com/nginx/kubernetes-ingress/issues/2930) is not served;
// a ready controller whose log errs for the Ingress's host (nginx's
// "upstream sent too big header", https://github.com/bitnami/charts/issues/9043)
// is what its clients get; a ready controller logging nothing about it is
// no finding.
func TestIngressControllerDown(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	class := "nginx"
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "keycloak", Namespace: "iam", UID: "i1"}, Spec: networkingv1.IngressSpec{IngressClassName: &class,
		Rules: []networkingv1.IngressRule{{Host: "keycloak.example.com"}}}}
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	ready := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "controller", Ready: true}}}
	crashing := corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "controller",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}, LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 255}}}}}
	pod := func(st corev1.PodStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ingress-nginx-controller-854c4c8cc6-rht2v", Namespace: "ingress-nginx"},
			Spec: corev1.PodSpec{ServiceAccountName: "ingress-nginx", Containers: []corev1.Container{{Name: "controller", Image: "registry.k8s.io/ingress-nginx/controller:v1.1.1"}}}, Status: st}
	}
	bigHeader := `2026/12/03 11:55:00 [error] 2718#2718: *645594 upstream sent too big header while reading response header from upstream, client: 10.244.0.1, server: keycloak.example.com, request: "GET /auth HTTP/2.0", upstream: "http://10.244.0.64:8080/auth", host: "keycloak.example.com"` + "\n"
	forbidden := `F0813 15:02:34.988438       1 main.go:301] Error when getting IngressClass nginx: ingressclasses.networking.k8s.io "nginx" is forbidden: User "system:serviceaccount:ingress-nginx:ingress-nginx" cannot get resource "ingressclasses" in API group "networking.k8s.io" at the cluster scope` + "\n"
	other := `2026/12/03 11:55:00 [error] 31#31: *12 connect() failed (111: Connection refused) while connecting to upstream, client: 10.244.0.1, server: shop.example.com, request: "GET / HTTP/1.1", host: "shop.example.com"` + "\n"
	leases := `E1213 16:43:09.662046       7 leaderelection.go:330] error retrieving resource lock ingress-nginx/ingress-controller-leader: leases.coordination.k8s.io "ingress-controller-leader" is forbidden: User "system:serviceaccount:ingress-nginx:ingress-nginx" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "ingress-nginx"` + "\n" +
		`E1213 16:57:35.400322       7 reflector.go:140] k8s.io/client-go@v0.25.2/tools/cache/reflector.go:169: Failed to watch *v1.EndpointSlice: failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:ingress-nginx:ingress-nginx" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope` + "\n"
	for _, tt := range []struct {
		name     string
		status   corev1.PodStatus
		log      string
		previous bool
		category string
		culprit  []string
	}{
		{"crash-looping on its RBAC", crashing, forbidden, true, "Ingress/ControllerDown", []string{"CrashLoopBackOff", "ingressclasses.networking.k8s.io", "ServiceAccount ingress-nginx"}},
		{"ready, erring for the host", ready, bigHeader, false, "Ingress/ControllerError", []string{"upstream sent too big header", "nginx.ingress.kubernetes.io/proxy-buffer-size"}},
		{"ready, erring for another host", ready, other, false, "", nil},
		// https://github.com/rancher/rke2/issues/3702: ready, but refused
		// the leader Lease and EndpointSlices its release reads.
		{"ready, refused what its release reads", ready, leases, false, "Ingress/ControllerForbidden", []string{"ServiceAccount ingress-nginx may not read leases.coordination.k8s.io, endpointslices.discovery.k8s.io"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := pod(tt.status)
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: ing.Name, Namespace: "iam", UID: "i1"}, Ingresses: []*networkingv1.Ingress{ing},
				IngressClasses: []*networkingv1.IngressClass{ic}, DependencyPods: []*corev1.Pod{p},
				Logs: []bundle.ContainerLog{{Namespace: p.Namespace, Pod: p.Name, Container: "controller", Previous: tt.previous, Text: tt.log}},
				Cluster: bundle.ClusterInfo{Actors: []bundle.Actor{{Role: bundle.RoleIngressController, Name: "nginx", For: "ingress/keycloak", Complete: true,
					Workload: "Deployment ingress-nginx/ingress-nginx-controller", Container: "controller", Pods: []string{p.Namespace + "/" + p.Name}}}}}
			fs := ruletest.Run(IngressControllerDown, b, now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("findings %+v, want none", fs)
				}
				return
			}
			f := ruletest.Root(fs)
			if f == nil || string(f.Category) != tt.category {
				t.Fatalf("finding %+v, want %s", f, tt.category)
			}
			for _, w := range tt.culprit {
				if !strings.Contains(f.Culprit, w) {
					t.Errorf("culprit %q lacks %q", f.Culprit, w)
				}
			}
		})
	}
}
