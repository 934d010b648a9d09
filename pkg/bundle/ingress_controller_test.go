package bundle

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// TestServesIngressClass: the controller of a class is the container
// whose flag names it (ingress-nginx's and NGINX Inc's -ingress-class,
// Traefik's provider flag, --controller-class against the IngressClass's
// controller) or that runs the image of the controller the class names.
func TestServesIngressClass(t *testing.T) {
	for _, tt := range []struct {
		name              string
		ctr               corev1.Container
		class, controller string
		want              bool
	}{
		{"nginx inc flag", corev1.Container{Image: "nginx/nginx-ingress:1.11.0", Args: []string{"-nginx-configmaps=$(POD_NAMESPACE)/nginx-config", "-ingress-class=nginx"}}, "nginx", "nginx.org/ingress-controller", true},
		{"traefik provider flag", corev1.Container{Image: "traefik:v2.10", Args: []string{"--providers.kubernetesingress.ingressclass", "traefik-internal"}}, "traefik-internal", "traefik.io/ingress-controller", true},
		{"controller class", corev1.Container{Image: "example/proxy", Args: []string{"--controller-class=k8s.io/ingress-nginx"}}, "public", "k8s.io/ingress-nginx", true},
		{"by image", corev1.Container{Image: "registry.k8s.io/ingress-nginx/controller:v1.11.2"}, "nginx", "k8s.io/ingress-nginx", true},
		{"another class", corev1.Container{Image: "nginx/nginx-ingress:1.11.0", Args: []string{"-ingress-class=internal"}}, "nginx", "", false},
		{"not a controller", corev1.Container{Image: "nginx:1.25"}, "nginx", "k8s.io/ingress-nginx", false},
		// ingress-nginx also defaults to class nginx; it is not the
		// NGINX Inc controller the class names.
		{"another controller's class flag", corev1.Container{Image: "registry.k8s.io/ingress-nginx/controller:v1.11.2", Args: []string{"--ingress-class=nginx", "--controller-class=k8s.io/ingress-nginx"}}, "nginx", "nginx.org/ingress-controller", false},
		// https://github.com/rancher/rke2/issues/3702: RKE2 ships
		// ingress-nginx as rancher/nginx-ingress-controller, which is not
		// NGINX Inc's nginx-ingress; its --controller-class says so.
		{"a redistribution named like another controller", corev1.Container{Image: "rancher/nginx-ingress-controller:nginx-1.5.1-hardened1", Args: []string{"/nginx-ingress-controller", "--controller-class=k8s.io/ingress-nginx", "--ingress-class=nginx"}}, "nginx", "k8s.io/ingress-nginx", true},
		{"another controller's image", corev1.Container{Image: "registry.k8s.io/ingress-nginx/controller:v1.11.2", Args: []string{"--ingress-class=nginx"}}, "nginx", "nginx.org/ingress-controller", false},
	} {
		if got := servesIngressClass(&tt.ctr, tt.class, tt.controller); got != tt.want {
			t.Errorf("%s: servesIngressClass = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestIngressControllerSearch: an Ingress target is followed to the
// workload serving its class and that workload's pods.
func TestIngressControllerSearch(t *testing.T) {
	class := "nginx"
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "cafe-ingress", Namespace: "web"}, Spec: networkingv1.IngressSpec{IngressClassName: &class}}
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "nginx.org/ingress-controller"}}
	labels := map[string]string{"app": "nginx-ingress"}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nginx-ingress", Namespace: "nginx-ingress"}, Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx-ingress", Image: "nginx/nginx-ingress:1.11.0", Args: []string{"-ingress-class=nginx"}}}}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nginx-ingress-6f8d9c7b5c-w2x7k", Namespace: "nginx-ingress", Labels: labels}, Spec: dep.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "nginx-ingress", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 255}}}}}}
	cs := fake.NewClientset(dep, pod)
	c := &collector{cs: cs, opts: DefaultOptions(), seen: map[types.UID]bool{}, b: &Bundle{Target: fault.Resource{Kind: "Ingress", Name: ing.Name, Namespace: "web"},
		Ingresses: []*networkingv1.Ingress{ing}, IngressClasses: []*networkingv1.IngressClass{ic}}}
	c.actors(context.Background())
	a := c.b.Actor(RoleIngressController, "ingress/cafe-ingress")
	if a == nil || a.Name != "nginx" || a.Workload != "Deployment nginx-ingress/nginx-ingress" || len(c.b.ActorPods(a)) != 1 {
		t.Fatalf("actor %+v", a)
	}
	if len(c.b.Logs) != 1 || !c.b.Logs[0].Previous {
		t.Errorf("want the crash-looping controller's previous log read, got %+v", c.b.Logs)
	}
}
