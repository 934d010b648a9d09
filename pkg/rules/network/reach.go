package network

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// What the health model (package health) asks of a pod's reachability, in
// the same terms the rules of this package use.

// Selects reports whether the Service's selector matches the pod.
func Selects(svc *corev1.Service, p *corev1.Pod) bool {
	return len(svc.Spec.Selector) > 0 && svc.Namespace == p.Namespace &&
		labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(p.Labels))
}

// PoliciesSelecting are the policies that select the pod and isolate it
// for the direction.
func PoliciesSelecting(pols []*networkingv1.NetworkPolicy, p *corev1.Pod, dir networkingv1.PolicyType) []*networkingv1.NetworkPolicy {
	return selectingPolicies(pols, p, dir)
}

// IngressAdmits: whether some ingress rule of the policies admits the
// container port from some source.
func IngressAdmits(pols []*networkingv1.NetworkPolicy, cp corev1.ContainerPort) bool {
	return ingressAllows(pols, cp.ContainerPort, cp.Name, cp.Protocol)
}

// EgressAdmitsDNS: whether some egress rule of the policies admits DNS to
// the cluster's resolver.
func EgressAdmitsDNS(pols []*networkingv1.NetworkPolicy, podNS string) bool {
	return egressAllowsDNS(pols, podNS)
}

// PolicyNames names the policies, for a line.
func PolicyNames(pols []*networkingv1.NetworkPolicy) []string { return policyNames(pols) }

// TargetContainerPort is the container port of the pod a Service port
// forwards to: by name for a named targetPort, else by number (the
// Service port's own number when targetPort is unset). ok is false when
// the pod declares no such port; a numeric targetPort may still be served
// by a port the container listens on without declaring it.
func TargetContainerPort(p *corev1.Pod, sp corev1.ServicePort) (cp corev1.ContainerPort, named, ok bool) {
	tp := sp.TargetPort
	switch {
	case tp.Type == intstr.String && tp.StrVal != "":
		_, cp, ok = matchContainerPort(p, tp.StrVal, 0, sp.Protocol)
		return cp, true, ok
	case tp.IntVal != 0:
		_, cp, ok = matchContainerPort(p, "", tp.IntVal, sp.Protocol)
		if !ok {
			cp = corev1.ContainerPort{ContainerPort: tp.IntVal, Protocol: sp.Protocol}
		}
		return cp, false, ok
	}
	_, cp, ok = matchContainerPort(p, "", sp.Port, sp.Protocol)
	if !ok {
		cp = corev1.ContainerPort{ContainerPort: sp.Port, Protocol: sp.Protocol}
	}
	return cp, false, ok
}

// PortLabel is how a Service port is named in a line.
func PortLabel(sp corev1.ServicePort) string { return servicePortLabel(sp) }
