package bundle

import (
	"os"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// TestLoadReadsBackWrite: what Write stores, Load reads back, including
// the events' link to their object and every log instance's state.
func TestLoadReadsBackWrite(t *testing.T) {
	at := time.Date(2026, 11, 26, 7, 15, 0, 0, time.UTC)
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: ns, UID: "uid-orders"},
		Spec:       corev1.PodSpec{InitContainers: []corev1.Container{{Name: "migrate"}}, Containers: []corev1.Container{{Name: "app", Image: "local/busybox:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{Name: "migrate", RestartCount: 2,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}},
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "orders-7d9f", Namespace: ns, UID: "uid-rs"}}
	target := fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "orders", Namespace: ns}
	b := &Bundle{
		Target: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "orders", Namespace: ns, UID: "uid-orders"},
		Object: asTarget(t, pod, corev1.SchemeGroupVersion.WithKind("Pod")), Cluster: ClusterInfo{Context: "realnode", Namespace: ns},
		Pods: []*corev1.Pod{pod}, ReplicaSets: []*appsv1.ReplicaSet{rs},
		Candidates: []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: ns, Labels: map[string]string{"app": "check-out"}}}},
		Events: []corev1.Event{{
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "orders", Namespace: ns, UID: "uid-orders", FieldPath: "spec.initContainers{migrate}"},
			Type:           "Warning", Reason: "BackOff", Message: "Back-off restarting failed container migrate", Count: 3,
			FirstTimestamp: metav1.NewTime(at), LastTimestamp: metav1.NewTime(at.Add(time.Minute)), Source: corev1.EventSource{Component: "kubelet"},
		}},
		Logs: []ContainerLog{
			{Namespace: ns, Pod: "orders", Container: "migrate", Init: true, Previous: true, Text: "2026-11-26T07:15:14.9Z ERROR: migration 0042 failed\n# not a comment of ours\n"},
			{Namespace: ns, Pod: "orders", Container: "migrate", Init: true, Text: ""},
			{Namespace: ns, Pod: "orders", Container: "app", Previous: true, Error: "the kubelet could not read this log: failed to try resolving symlinks"},
			{Namespace: ns, Pod: "orders", Container: "app", Text: "2026-11-26T07:15:14.9Z line\n", Truncated: true},
		},
	}
	dir := t.TempDir()
	if err := b.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(os.DirFS(dir), target)
	if err != nil {
		t.Fatal(err)
	}
	if got.Target.UID != "uid-orders" || got.Object.GetName() != "orders" || got.Cluster.Context != "realnode" {
		t.Errorf("target %+v object %s cluster %+v", got.Target, got.Object.GetName(), got.Cluster)
	}
	if len(got.Pods) != 1 || got.Pods[0].Status.InitContainerStatuses[0].RestartCount != 2 || len(got.ReplicaSets) != 1 {
		t.Fatalf("objects not read back: %d pods, %d replicasets", len(got.Pods), len(got.ReplicaSets))
	}
	evs := got.EventsFor("uid-orders")
	if len(evs) != 1 || evs[0].Count != 3 || evs[0].InvolvedObject.FieldPath != "spec.initContainers{migrate}" || !EventTime(&evs[0]).Equal(at.Add(time.Minute)) {
		t.Errorf("events not linked back to their object: %+v", got.Events)
	}
	if len(got.Candidates) != 1 || got.Candidates[0].Labels["app"] != "check-out" {
		t.Errorf("service candidates not read back: %+v", got.Candidates)
	}
	if !reflect.DeepEqual(got.Logs, b.Logs) {
		t.Errorf("logs read back as\n%+v\nwant\n%+v", got.Logs, b.Logs)
	}
	if _, err := Load(os.DirFS(dir), fault.Resource{Kind: "Pod", Name: "other"}); err == nil {
		t.Error("Load found a target that is not in the bundle")
	}
}

func TestKubeletLogError(t *testing.T) {
	tests := []struct {
		body string
		err  bool
	}{
		// Exactly what a real kubelet answered (200) for the previous
		// instance of a container it had garbage-collected.
		{`failed to try resolving symlinks in path "/var/log/pods/rn-crashloop-envconfig_orders_2fe16987-6a8a-41f5-9f7a-b1e4a4c2abb7/app/2.log": lstat /var/log/pods/rn-crashloop-envconfig_orders_2fe16987-6a8a-41f5-9f7a-b1e4a4c2abb7/app/2.log: no such file or directory` + "\n", true},
		{"2026-11-26T07:15:14.827760917Z open /etc/app.yaml: no such file or directory\n", false},
		{"2026-11-26T07:15:14.8Z one\n2026-11-26T07:15:14.9Z two\n", false},
		{"", false},
	}
	for _, tt := range tests {
		if _, got := kubeletLogError(tt.body); got != tt.err {
			t.Errorf("kubeletLogError(%q) = %v, want %v", tt.body, got, tt.err)
		}
	}
}

// TestLoadKeepsCollectionOrder: the pods come back in the order they were
// collected (cluster-info.json's involvedResources), not file-name order,
// and the Missing list and a Node target's pods come back at all: a replay
// ranks and names exactly what the live run did.
func TestLoadKeepsCollectionOrder(t *testing.T) {
	node := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "uid-node"}}
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name)}}
	}
	b := &Bundle{
		Target: fault.Resource{APIVersion: "v1", Kind: "Node", Name: "worker-1", UID: "uid-node"},
		Object: asTarget(t, node, corev1.SchemeGroupVersion.WithKind("Node")),
		Nodes:  []*corev1.Node{node},
		// Collected newest first: z before a.
		Pods:     []*corev1.Pod{pod("web-z"), pod("web-a")},
		NodePods: []*corev1.Pod{pod("db-0")},
		Missing:  []MissingRef{{Kind: "ConfigMap", Namespace: ns, Name: "app-settings", ReferencedBy: "pod/web-z volume settings"}},
	}
	b.Cluster.Involved = []fault.Resource{b.Target, {Kind: "Pod", Name: "web-z", UID: "uid-web-z"}, {Kind: "Pod", Name: "web-a", UID: "uid-web-a"}}
	dir := t.TempDir()
	if err := b.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(os.DirFS(dir), fault.Resource{Kind: "Node", Name: "worker-1"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got.Pods {
		names = append(names, p.Name)
	}
	if !reflect.DeepEqual(names, []string{"web-z", "web-a"}) {
		t.Errorf("pods read back in order %v, want the collection's [web-z web-a]", names)
	}
	if !reflect.DeepEqual(got.Missing, b.Missing) {
		t.Errorf("missing references read back as %+v", got.Missing)
	}
	if len(got.NodePods) != 1 || got.NodePods[0].Name != "db-0" {
		t.Errorf("node pods read back as %+v", got.NodePods)
	}
}
