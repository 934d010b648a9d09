package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceLoadBalancer: a LoadBalancer Service without an address is
// explained by the service controller's SyncLoadBalancerFailed (with what
// the cloud's words usually need), or by no controller acting on it; one
// with an address, one still within the grace period, or one being
// provisioned say nothing.
func TestServiceLoadBalancer(t *testing.T) {
	now := time.Date(2022, 5, 13, 12, 0, 0, 0, time.UTC)
	lbSvc := func(age time.Duration, addr string) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "istio-ingressgateway", Namespace: "istio-system", UID: "s1", CreationTimestamp: metav1.NewTime(now.Add(-age))},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "istio-ingressgateway"}}}
		if addr != "" {
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: addr}}
		}
		return s
	}
	event := func(reason, typ, msg string, count int32, first, last time.Duration) corev1.Event {
		return corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e-" + reason, Namespace: "istio-system"}, Reason: reason, Type: typ, Message: msg, Count: count,
			InvolvedObject: corev1.ObjectReference{Kind: "Service", Name: "istio-ingressgateway", Namespace: "istio-system", UID: "s1"},
			FirstTimestamp: metav1.NewTime(now.Add(-first)), LastTimestamp: metav1.NewTime(now.Add(-last))}
	}
	ensuring := event(reasonEnsuringLB, corev1.EventTypeNormal, "Ensuring load balancer", 9, 40*time.Minute, 2*time.Minute)
	// https://github.com/kserve/kserve/issues/2179 (AWS account quota).
	quota := event(reasonSyncLBFail, corev1.EventTypeWarning, "Error syncing load balancer: failed to ensure load balancer: TooManyLoadBalancers: Exceeded quota of account 809251082950\n\tstatus code: 400, request id: 5b9b9a1d-ddfb-424e-a406-4b276d2847a2", 9, 40*time.Minute, 2*time.Minute)
	// https://github.com/kubernetes-sigs/cloud-provider-azure/issues/792 (a throttled ARM call, no known hint).
	azure := event(reasonSyncLBFail, corev1.EventTypeWarning, "Error syncing load balancer: failed to ensure load balancer: Retriable: false, RetryAfter: 0s, HTTPStatusCode: 429, RawError: GatewayError", 3, 20*time.Minute, time.Minute)
	stale := event(reasonSyncLBFail, corev1.EventTypeWarning, quota.Message, 2, 5*time.Hour, 3*time.Hour)
	// MetalLB speaks with its own reasons: an exhausted pool
	// (https://github.com/metallb/metallb/pull/2891), an address held
	// under another sharing key (https://github.com/allenporter/k8s-gitops/pull/1658).
	pool := event("AllocationFailed", corev1.EventTypeWarning, `Failed to allocate IP for "istio-system/istio-ingressgateway": no available IPs in pool x`, 4, 30*time.Minute, time.Minute)
	sharing := event("AllocationFailed", corev1.EventTypeWarning, `Failed to allocate IP for "istio-system/istio-ingressgateway": can't change sharing key for "istio-system/istio-ingressgateway", address also in use by nginx/nginx-ingress-nginx-controller`, 4, 59*time.Minute, 59*time.Minute)
	allocated := event("IPAllocated", corev1.EventTypeNormal, `Assigned IP ["10.10.102.2"]`, 1, 41*time.Minute, 41*time.Minute)
	for _, tt := range []struct {
		name    string
		svc     *corev1.Service
		events  []corev1.Event
		want    rule.Category // "" = no finding
		culprit string
	}{
		// The Service is new to the API server, the controller's events an hour old: the wait is the events'.
		{"quota, with a hint", lbSvc(0, ""), []corev1.Event{ensuring, quota}, rule.Service.Sub("LoadBalancer", "SyncFailed"), "TooManyLoadBalancers"},
		{"a cloud error without a known hint", lbSvc(30*time.Minute, ""), []corev1.Event{ensuring, azure}, rule.Service.Sub("LoadBalancer", "SyncFailed"), "HTTPStatusCode: 429"},
		// https://github.com/kubernetes/kubernetes/issues/34541: EXTERNAL-IP <pending> for an hour, no controller event.
		{"no controller", lbSvc(time.Hour, ""), nil, rule.Service.Sub("LoadBalancer", "NoController"), "no load-balancer controller"},
		{"within the grace period", lbSvc(2*time.Minute, ""), nil, "", ""},
		{"provisioning, no failure", lbSvc(time.Hour, ""), []corev1.Event{ensuring}, "", ""},
		{"a failure hours old", lbSvc(6*time.Hour, ""), []corev1.Event{stale}, "", ""},
		{"MetalLB: pool exhausted", lbSvc(time.Hour, ""), []corev1.Event{pool}, rule.Service.Sub("LoadBalancer", "SyncFailed"), "no available IPs in pool x (AllocationFailed ×4)"},
		{"MetalLB: sharing key", lbSvc(time.Hour, ""), []corev1.Event{sharing}, rule.Service.Sub("LoadBalancer", "SyncFailed"), "can't change sharing key"},
		{"MetalLB: allocated, address not yet in status", lbSvc(time.Hour, ""), []corev1.Event{allocated}, "", ""},
		{"has its address", lbSvc(time.Hour, "a1b2.elb.amazonaws.com"), []corev1.Event{ensuring, quota}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: tt.svc.Name, Namespace: "istio-system", UID: "s1"}, Services: []*corev1.Service{tt.svc}, Events: tt.events}
			f := ruletest.Root(ruletest.Run(ServiceLoadBalancer, b, now))
			if (f != nil) != (tt.want != "") {
				t.Fatalf("finding %v, want %q: %+v", f != nil, tt.want, f)
			}
			if f == nil {
				return
			}
			if f.Category != tt.want || !strings.Contains(f.Culprit, tt.culprit) {
				t.Errorf("got %s %q, want %s naming %q", f.Category, f.Culprit, tt.want, tt.culprit)
			}
			if tt.name == "MetalLB: pool exhausted" && !strings.Contains(f.Actions[0].Description, "IPAddressPool") ||
				tt.name == "MetalLB: sharing key" && !strings.Contains(f.Actions[0].Description, "allow-shared-ip") {
				t.Errorf("no hint for the add-on's words: %q", f.Actions[0].Description)
			}
			if tt.name == "quota, with a hint" && (!strings.Contains(f.Actions[0].Description, "quota") || !strings.Contains(f.Summary, "40m")) {
				t.Errorf("hint or wait missing: %q / %q", f.Actions[0].Description, f.Summary)
			}
		})
	}
}
