package network

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

const labelServiceName = discoveryv1.LabelServiceName // kubernetes.io/service-name on EndpointSlices

const annIngressClassDefault = networkingv1.AnnotationIsDefaultIngressClass

const annIngressClassLegacy = "kubernetes.io/ingress.class"

const ingressClassesCommand = "kubectl get ingressclass -o custom-columns=NAME:.metadata.name,CONTROLLER:.spec.controller,DEFAULT:.metadata.annotations.ingressclass\\.kubernetes\\.io/is-default-class"

const serviceEndpointsSelector = "kubectl get endpointslices -n %s -l kubernetes.io/service-name=%s -o wide"

// Endpoints is what a Service's EndpointSlices say.
type Endpoints struct {
	Slices   int
	Ready    []string // endpoint names (pod or address) ready to serve
	NotReady []string
	Portless int // endpoints in slices that carry no port: the controller could not resolve the targetPort
}

func EndpointsOf(c *rule.Pass, svc *corev1.Service) Endpoints {
	var out Endpoints
	for _, s := range c.B.EndpointSlices {
		if s.Namespace != svc.Namespace || s.Labels[labelServiceName] != svc.Name {
			continue
		}
		out.Slices++
		for _, e := range s.Endpoints {
			name := endpointName(e)
			// Ports only matter when the Service declares some: a slice
			// without ports for such a Service carries no traffic.
			if len(s.Ports) == 0 && len(svc.Spec.Ports) > 0 {
				out.Portless++
				continue
			}
			// A nil ready condition means unknown, which consumers treat as ready.
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				out.Ready = append(out.Ready, name)
			} else {
				out.NotReady = append(out.NotReady, name)
			}
		}
	}
	return out
}

// summary counts what the slices hold, naming a few unready endpoints.
func (e Endpoints) Summary() string {
	if e.Slices == 0 {
		return "no EndpointSlice lists it"
	}
	s := fmt.Sprintf("%d EndpointSlice(s), %d ready endpoint(s), %d not ready", e.Slices, len(e.Ready), len(e.NotReady))
	if len(e.NotReady) > 0 {
		s += " (" + strings.Join(firstNames(e.NotReady, 3), ", ") + ")"
	}
	if e.Portless > 0 {
		s += fmt.Sprintf(", %d without any port", e.Portless)
	}
	return s
}

func endpointName(e discoveryv1.Endpoint) string {
	if e.TargetRef != nil && e.TargetRef.Name != "" {
		return e.TargetRef.Name
	}
	if len(e.Addresses) > 0 {
		return e.Addresses[0]
	}
	return "?"
}

// selectedPods are the bundle's pods the Service's selector matches.
func selectedPods(c *rule.Pass, svc *corev1.Service) []*corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var out []*corev1.Pod
	for _, p := range c.B.Pods {
		if p.Namespace == svc.Namespace && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

func svcRef(svc *corev1.Service) string { return "service/" + svc.Name }

func svcNS(svc *corev1.Service) string { return "-n " + svc.Namespace }

// portProblem is a Service port whose targetPort the selected pods do not
// serve.
type portProblem struct {
	Index    int
	Port     corev1.ServicePort
	Lacking  []string // pods that do not declare it
	Declared []string // what their containers declare, name:port/proto
}

// namedPortProblems lists Service ports whose named targetPort is not
// declared by the pods: the EndpointSlice controller cannot resolve it.
func namedPortProblems(svc *corev1.Service, pods []*corev1.Pod) []portProblem {
	var out []portProblem
	for i, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type != intstr.String || sp.TargetPort.StrVal == "" {
			continue
		}
		pp := portProblem{Index: i, Port: sp}
		for _, p := range pods {
			if _, ok := findContainerPort(p, sp.TargetPort.StrVal, 0, sp.Protocol); !ok {
				pp.Lacking = append(pp.Lacking, p.Name)
			}
		}
		if len(pp.Lacking) > 0 {
			pp.Declared = declaredPorts(pods)
			out = append(out, pp)
		}
	}
	return out
}

// findContainerPort finds a container port by name (if name is set) or
// number, with the Service port's protocol (TCP when unset).
func findContainerPort(p *corev1.Pod, name string, number int32, proto corev1.Protocol) (string, bool) {
	ctr, _, ok := matchContainerPort(p, name, number, proto)
	return ctr, ok
}

// matchContainerPort is the container and the declared port that
// findContainerPort matches.
func matchContainerPort(p *corev1.Pod, name string, number int32, proto corev1.Protocol) (string, corev1.ContainerPort, bool) {
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, ctr := range p.Spec.Containers {
		for _, cp := range ctr.Ports {
			cpProto := cp.Protocol
			if cpProto == "" {
				cpProto = corev1.ProtocolTCP
			}
			if cpProto != proto {
				continue
			}
			if (name != "" && cp.Name == name) || (name == "" && cp.ContainerPort == number) {
				return ctr.Name, cp, true
			}
		}
	}
	return "", corev1.ContainerPort{}, false
}

func declaredPorts(pods []*corev1.Pod) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pods {
		for _, ctr := range p.Spec.Containers {
			for _, cp := range ctr.Ports {
				proto := cp.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				s := fmt.Sprintf("%d/%s", cp.ContainerPort, proto)
				if cp.Name != "" {
					s = fmt.Sprintf("%q %s", cp.Name, s)
				}
				s = fmt.Sprintf("container %s port %s", ctr.Name, s)
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func servicePortLabel(sp corev1.ServicePort) string {
	if sp.Name != "" {
		return fmt.Sprintf("%s (%d)", sp.Name, sp.Port)
	}
	return fmt.Sprint(sp.Port)
}

func firstNames(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("… (%d more)", len(s)-n))
}
