package bundle

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

var (
	crashingStatus = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}}
	runningStatus = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
)

// TestNamespaceListsWanted: a pod's or workload's namespace Services and
// NetworkPolicies are called for by a pod that does not fail on its own, or
// by a log that fails to reach a host; not by pods that crash, cannot
// start or cannot be placed for reasons of their own.
func TestNamespaceListsWanted(t *testing.T) {
	pod := func(name string, st corev1.PodStatus, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.PodSpec{NodeName: node}, Status: st}
	}
	waiting := func(reason string) corev1.PodStatus {
		return corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}}}
	}
	log := func(text string) ContainerLog {
		return ContainerLog{Namespace: ns, Pod: "api", Container: "app", Previous: true, Text: text}
	}
	for _, tt := range []struct {
		name string
		pods []*corev1.Pod
		logs []ContainerLog
		want bool
	}{
		{"crash loop, config error in the log", []*corev1.Pod{pod("api", crashingStatus, "n1")},
			[]ContainerLog{log("2026-01-01T00:00:00Z FATAL config: required env DATABASE_URL is empty\n")}, false},
		{"crash loop, host does not resolve", []*corev1.Pod{pod("api", crashingStatus, "n1")},
			[]ContainerLog{log(`2026-01-01T00:00:00Z psycopg2.OperationalError: could not translate host name "postgres" to address: Name or service not known` + "\n")}, true},
		{"crash loop, connection refused", []*corev1.Pod{pod("api", crashingStatus, "n1")},
			[]ContainerLog{log("2026-01-01T00:00:00Z Error: connect ECONNREFUSED 10.96.0.12:6379\n")}, true},
		// A host or port setting rejected: a Service-link variable
		// (vouch-proxy's VOUCH_PORT from a Service named vouch,
		// https://github.com/vouch/vouch-proxy/issues/482) is read off the
		// Services; not when the pod takes no links.
		{"crash loop, port setting rejected", []*corev1.Pod{pod("api", crashingStatus, "n1")},
			[]ContainerLog{log("2026-01-01T00:00:00Z {\"level\":\"fatal\",\"msg\":\"strconv.Atoi: parsing \\\"tcp://10.96.4.7:9090\\\": invalid syntax\"}\n")}, true},
		{"crash loop, port setting rejected, no service links", []*corev1.Pod{noLinks(pod("api", crashingStatus, "n1"))},
			[]ContainerLog{log("2026-01-01T00:00:00Z invalid port: tcp://10.96.4.7:9090\n")}, false},
		{"a log that could not be read", []*corev1.Pod{pod("api", crashingStatus, "n1")},
			[]ContainerLog{{Pod: "api", Container: "app", Error: "dial tcp: i/o timeout"}}, false},
		{"image pull", []*corev1.Pod{pod("api", waiting("ImagePullBackOff"), "n1")}, nil, false},
		{"config error", []*corev1.Pod{pod("api", waiting("CreateContainerConfigError"), "n1")}, nil, false},
		{"unscheduled", []*corev1.Pod{pod("api", corev1.PodStatus{Phase: corev1.PodPending}, "")}, nil, false},
		{"failed", []*corev1.Pod{pod("api", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}, "n1")}, nil, false},
		{"creating", []*corev1.Pod{pod("api", waiting("ContainerCreating"), "n1")}, nil, true},
		{"running and ready", []*corev1.Pod{pod("api", runningStatus, "n1")}, nil, true},
		{"one of a workload's pods runs", []*corev1.Pod{pod("api-1", crashingStatus, "n1"), pod("api-2", runningStatus, "n1")}, nil, true},
		{"no pod", nil, nil, false},
	} {
		b := &Bundle{Pods: tt.pods, Logs: tt.logs}
		if got := NamespaceListsWanted(b); got != tt.want {
			t.Errorf("%s: NamespaceListsWanted = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func noLinks(p *corev1.Pod) *corev1.Pod {
	off := false
	p.Spec.EnableServiceLinks = &off
	return p
}

// A crash-looping pod target costs no namespace-wide list; a running one
// gets its Services and NetworkPolicies listed once each. Either way its
// events are read once, by UID.
func TestPodTargetNamespaceLists(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status corev1.PodStatus
		lists  int
	}{
		{"crash loop", crashingStatus, 0},
		{"running", runningStatus, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns, UID: "pod-uid"},
				Spec: corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "app", Image: "x"}}}, Status: tt.status}
			cs := fake.NewClientset(pod, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}},
				&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "node-uid"}})
			opts := DefaultOptions()
			opts.Needs = []Need{NeedEvents, NeedLogs, NeedNodes, NeedServiceAccounts, NeedNetworkPolicies, NeedNamespaceServices, NeedDependencies}
			b, err := Collect(context.Background(), cs, asTarget(t, pod, gvkPod), ClusterInfo{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(cs.Actions()); b.Requests != got {
				t.Errorf("Requests = %d, but %d requests were made", b.Requests, got)
			}
			services, policies := len(listed(cs, "services")), len(listed(cs, "networkpolicies"))
			if services != tt.lists || policies != tt.lists {
				t.Errorf("%d services and %d networkpolicies lists, want %d each: %v", services, policies, tt.lists, describe(cs.Actions()))
			}
			if listedWhole := b.Cluster.ServicesListed == ns && b.Cluster.NetworkPoliciesListed == ns; listedWhole != (tt.lists == 1) {
				t.Errorf("servicesListed %q, networkPoliciesListed %q", b.Cluster.ServicesListed, b.Cluster.NetworkPoliciesListed)
			}
			podEvents := 0
			for _, l := range listed(cs, "events") {
				if strings.Contains(l.GetListRestrictions().Fields.String(), "pod-uid") {
					podEvents++
				}
			}
			if podEvents != 1 || b.Node("worker-1") == nil {
				t.Errorf("%d events lists of the pod (want 1), node collected: %v", podEvents, b.Node("worker-1") != nil)
			}
		})
	}
}
