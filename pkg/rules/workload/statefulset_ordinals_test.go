package workload

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestStatefulSetOrdinals: with ordered pod management, an ordinal that is
// not Ready blocks the ones after it from being created; the finding names
// the blocking pod and the missing ones. Parallel management blocks nothing.
func TestStatefulSetOrdinals(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, three := true, int32(3)
	target := func(policy appsv1.PodManagementPolicyType) *bundle.Bundle {
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop", UID: "s1"},
			Spec:   appsv1.StatefulSetSpec{Replicas: &three, PodManagementPolicy: policy},
			Status: appsv1.StatefulSetStatus{Replicas: 1, ReadyReplicas: 0}}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "shop", UID: "p0",
			OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "db", UID: "s1", Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "db", Image: "shop/db:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "db",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "StatefulSet", Name: "db", Namespace: "shop", UID: "s1"},
			StatefulSets: []*appsv1.StatefulSet{s}, Pods: []*corev1.Pod{p}}
	}
	fs := ruletest.Run(StatefulSetOrdinals, target(appsv1.OrderedReadyPodManagement), now)
	if len(fs) != 1 {
		t.Fatalf("ordered: %+v", fs)
	}
	said := strings.Join(append(fs[0].Contributing, fs[0].Title, fs[0].Culprit), "\n")
	for _, want := range []string{"db-0", "db-1", "db-2"} {
		if !strings.Contains(said, want) {
			t.Errorf("the finding does not name %s:\n%s", want, said)
		}
	}
	if fs := ruletest.Run(StatefulSetOrdinals, target(appsv1.ParallelPodManagement), now); len(fs) != 0 {
		t.Errorf("parallel: %+v", fs)
	}
}

// TestStatefulSetPeerDeadlock: the blocking pod's log names the stable DNS
// name of an ordinal OrderedReady has not created (ZooKeeper's
// QuorumCnxManager "Cannot open channel to 2 at election address
// zk-1.zk-hs…"): a deadlock no fix of the pod ends, so Parallel pod
// management and publishNotReadyAddresses are the fix. A log that names no
// peer leaves the ordinary blocked-ordinal finding.
func TestStatefulSetPeerDeadlock(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, three := true, int32(3)
	for _, tt := range []struct {
		name, log, want string
	}{
		{"peer named", "WARN  [QuorumConnectionThreadManager-1:o.a.z.s.q.QuorumCnxManager@401] - Cannot open channel to 2 at election address zk-1.zk-hs.shop.svc.cluster.local/<unresolved>:3888\n", "StatefulSet/OrdinalBlocked/PeerDeadlock"},
		{"no peer named", "INFO  Reading configuration from: /conf/zoo.cfg\n", "StatefulSet/OrdinalBlocked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "zk", Namespace: "shop", UID: "s1"},
				Spec:   appsv1.StatefulSetSpec{Replicas: &three, ServiceName: "zk-hs"},
				Status: appsv1.StatefulSetStatus{Replicas: 1}}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "zk-0", Namespace: "shop", UID: "p0",
				OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "zk", UID: "s1", Controller: &yes}}},
				Spec: corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "zk", Image: "zookeeper:3.9"}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "zk",
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "StatefulSet", Name: "zk", Namespace: "shop", UID: "s1"},
				StatefulSets: []*appsv1.StatefulSet{s}, Pods: []*corev1.Pod{p},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "zk-0", Container: "zk", Text: tt.log}}}
			fs := ruletest.Run(StatefulSetOrdinals, b, now)
			if len(fs) != 1 || string(fs[0].Category) != tt.want {
				t.Fatalf("got %+v, want %s", fs, tt.want)
			}
			if tt.want != "StatefulSet/OrdinalBlocked/PeerDeadlock" {
				return
			}
			var cmds string
			for _, a := range fs[0].Actions {
				cmds += a.Description + strings.Join(a.Commands, " ")
			}
			if !strings.Contains(cmds, "Parallel") || !strings.Contains(cmds, "publishNotReadyAddresses") {
				t.Errorf("the fix does not start the pods in parallel and publish unready addresses: %s", cmds)
			}
		})
	}
}

// TestStatefulSetPeerDeadlockFromPod: the same deadlock triaged from the
// blocking pod, whose bundle holds its StatefulSet but not its siblings:
// which ordinals exist is read from the StatefulSet's status. RabbitMQ's
// "Waiting for Mnesia tables" naming its peer
// (https://github.com/bitnami/charts/issues/8056). A pod that is not the
// highest created ordinal, or a Parallel StatefulSet, is not said.
func TestStatefulSetPeerDeadlockFromPod(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, two := true, int32(2)
	log := "2021-11-03 10:01:02.123 [warning] <0.235.0> Waiting for Mnesia tables for 30000 ms, 8 retries left\n" +
		"2021-11-03 10:01:02.124 [info] <0.235.0> Error while waiting for Mnesia tables: {timeout_waiting_for_tables,['rabbit@rabbitmq-1.rabbitmq-headless.mq.svc.cluster.local'],[rabbit_durable_queue]}\n"
	for _, tt := range []struct {
		name     string
		created  int32
		policy   appsv1.PodManagementPolicyType
		wantSaid bool
	}{
		{"highest ordinal created waits for the next", 1, appsv1.OrderedReadyPodManagement, true},
		{"every ordinal created", 2, appsv1.OrderedReadyPodManagement, false},
		{"parallel", 1, appsv1.ParallelPodManagement, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "rabbitmq", Namespace: "mq", UID: "s1"},
				Spec:   appsv1.StatefulSetSpec{Replicas: &two, ServiceName: "rabbitmq-headless", PodManagementPolicy: tt.policy},
				Status: appsv1.StatefulSetStatus{Replicas: tt.created}}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "rabbitmq-0", Namespace: "mq", UID: "p0",
				OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "rabbitmq", UID: "s1", Controller: &yes}}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "rabbitmq", Image: "bitnami/rabbitmq:3.9.8"}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "rabbitmq",
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "rabbitmq-0", Namespace: "mq", UID: "p0"},
				StatefulSets: []*appsv1.StatefulSet{s}, Pods: []*corev1.Pod{p},
				Logs: []bundle.ContainerLog{{Namespace: "mq", Pod: "rabbitmq-0", Container: "rabbitmq", Text: log}}}
			fs := ruletest.Run(StatefulSetOrdinals, b, now)
			if !tt.wantSaid {
				if len(fs) != 0 {
					t.Fatalf("got %+v, want nothing", fs)
				}
				return
			}
			if len(fs) != 1 || string(fs[0].Category) != "StatefulSet/OrdinalBlocked/PeerDeadlock" || !strings.Contains(fs[0].Title, "rabbitmq-1") {
				t.Fatalf("got %+v, want the peer deadlock naming rabbitmq-1", fs)
			}
		})
	}
}

// TestStatefulSetPeerListIsNoWait: a log line listing the members, the pod
// itself among them (Cassandra's seeds), and a pod that crash-loops on its
// own cause, are no wait for a peer.
func TestStatefulSetPeerListIsNoWait(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, three := true, int32(3)
	seeds := "INFO  09:40:12 Node configuration:[cluster_name=Kong; seed_provider=org.apache.cassandra.locator.SimpleSeedProvider{seeds=cassandra-0.cassandra,cassandra-1.cassandra,cassandra-2.cassandra}]\n"
	for _, tt := range []struct {
		name  string
		state corev1.ContainerState
	}{
		{"running, seed list", corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
		{"crash-looping", corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			log := seeds
			if tt.state.Waiting != nil {
				log += "WARN  09:40:13 Cannot reach cassandra-1.cassandra.shop.svc.cluster.local\n"
			}
			s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "cassandra", Namespace: "shop", UID: "s1"},
				Spec: appsv1.StatefulSetSpec{Replicas: &three, ServiceName: "cassandra"}, Status: appsv1.StatefulSetStatus{Replicas: 1}}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "cassandra-0", Namespace: "shop", UID: "p0",
				OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "cassandra", UID: "s1", Controller: &yes}}},
				Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "cassandra", Image: "cassandra:2.2.8"}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "cassandra", State: tt.state}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "StatefulSet", Name: "cassandra", Namespace: "shop", UID: "s1"},
				StatefulSets: []*appsv1.StatefulSet{s}, Pods: []*corev1.Pod{p},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "cassandra-0", Container: "cassandra", Text: log}}}
			for _, f := range ruletest.Run(StatefulSetOrdinals, b, now) {
				if strings.HasSuffix(string(f.Category), "/PeerDeadlock") {
					t.Errorf("read as a peer deadlock: %s", f.Title)
				}
			}
		})
	}
}

// TestNamesHost: a peer's DNS name counts only as a whole name, not as
// the tail of another pod's.
func TestNamesHost(t *testing.T) {
	for _, tt := range []struct {
		line, host string
		want       bool
	}{
		{"dial tcp: lookup web-1.web on 10.96.0.10:53: no such host", "web-1.web", true},
		{"{timeout_waiting_for_tables,['rabbit@rabbitmq-1.rabbitmq-headless.mq.svc']}", "rabbitmq-1.rabbitmq-headless", true},
		{"web-1.web:7000 unreachable", "web-1.web", true},
		{"connecting to myweb-1.web:7000", "web-1.web", false},
		{"connecting to db.web-1.web:7000", "web-1.web", false},
		{"myweb-1.web and then web-1.web", "web-1.web", true},
	} {
		if got := namesHost(tt.line, tt.host); got != tt.want {
			t.Errorf("namesHost(%q, %q) = %v, want %v", tt.line, tt.host, got, tt.want)
		}
	}
}
