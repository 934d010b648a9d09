package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceLBNodes: a LoadBalancer Service with its address whose every
// node is excluded from load balancers (kubeadm's control-plane label, as
// in https://github.com/metallb/metallb/issues/2274, or the autoscaler's
// deletion taint) has no node behind the address; one eligible node, an
// endpoint's eligible node under externalTrafficPolicy Local, a Service
// still without an address or nodes not read say nothing.
func TestServiceLBNodes(t *testing.T) {
	now := time.Date(2024, 9, 20, 12, 0, 0, 0, time.UTC)
	port80 := int32(80)
	svc := func(local bool, addr string) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "web", UID: "s1", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "nginx"}}}
		if local {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}
		if addr != "" {
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: addr}}
		}
		return s
	}
	node := func(name string, excluded, deleting bool) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
		if excluded {
			n.Labels[corev1.LabelNodeExcludeBalancers] = ""
		}
		if deleting {
			n.Spec.Taints = []corev1.Taint{{Key: taintToBeDeleted, Value: "1726833600", Effect: corev1.TaintEffectNoSchedule}}
		}
		return n
	}
	slice := func(nodeName string) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "nginx-x", Namespace: "web", Labels: map[string]string{labelServiceName: "nginx"}},
			Ports:     []discoveryv1.EndpointPort{{Port: &port80}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.5"}, NodeName: &nodeName, Conditions: discoveryv1.EndpointConditions{Ready: ptrTrue()}}}}
	}
	cp := []*corev1.Node{node("cp-1", true, false), node("cp-2", true, false), node("cp-3", true, false)}
	for _, tt := range []struct {
		name     string
		svc      *corev1.Service
		nodes    []*corev1.Node
		problems []bundle.Problem
		partial  bool // the node list was cut at its bound
		want     bool
		culprit  string
	}{
		{"every node a control plane excluded by its label", svc(false, "192.168.99.220"), cp, nil, false, true, "nodes cp-1, cp-2, cp-3: label " + corev1.LabelNodeExcludeBalancers},
		{"the only worker being deleted by the autoscaler", svc(false, "192.168.99.220"), append(cp[:1:1], node("w-1", false, true)), nil, false, true, "taint " + taintToBeDeleted},
		{"one worker may carry it", svc(false, "192.168.99.220"), append(cp[:2:2], node("w-1", false, false)), nil, false, false, ""},
		{"Local: the endpoint's node is excluded", svc(true, "192.168.99.220"), append(cp[:2:2], node("w-1", false, false)), nil, false, true, "cp-2"},
		{"no address yet: service-load-balancer's to say", svc(false, ""), cp, nil, false, false, ""},
		{"nodes not listed", svc(false, "192.168.99.220"), nil, []bundle.Problem{{What: "nodes", Error: "forbidden"}}, false, false, ""},
		// The first page all excluded says nothing of the nodes after it.
		{"node list cut at its bound", svc(false, "192.168.99.220"), cp, nil, true, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: "nginx", Namespace: "web", UID: "s1"}, Services: []*corev1.Service{tt.svc},
				Nodes: tt.nodes, EndpointSlices: []*discoveryv1.EndpointSlice{slice("cp-2")}, Problems: tt.problems}
			b.Cluster.NodesListed = len(tt.nodes) > 0 && !tt.partial
			f := ruletest.Root(ruletest.Run(ServiceLBNodes, b, now))
			if (f != nil) != tt.want {
				t.Fatalf("finding %v, want %v: %+v", f != nil, tt.want, f)
			}
			if f == nil {
				return
			}
			if f.Category != rule.Service.Sub("LoadBalancer", "NoEligibleNode") || !strings.Contains(f.Culprit, tt.culprit) {
				t.Errorf("got %s %q, want NoEligibleNode naming %q", f.Category, f.Culprit, tt.culprit)
			}
		})
	}
}
