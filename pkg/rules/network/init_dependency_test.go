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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestInitDependency: the host a running init container's wait loop waits
// for, checked against the namespace's Services. Commands from the
// Kubernetes docs' init-containers page (until nslookup mydb) and public
// charts' wait loops (nc -z, pg_isready); it speaks only on a fault the
// cluster shows.
func TestInitDependency(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	waiting := func(cmd, log string) (*corev1.Pod, bundle.ContainerLog) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "myapp-pod", Namespace: "shop", UID: "p1"},
			Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "wait", Command: []string{"sh", "-c", cmd}}}, Containers: []corev1.Container{{Name: "app"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending,
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "wait", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-12 * time.Minute))}}}},
				ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}}}
		return p, bundle.ContainerLog{Namespace: "shop", Pod: p.Name, Container: "wait", Text: log}
	}
	svc := func(name string, port int32) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
			Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.9", Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Port: port}}}}
	}
	slice := func(name string, ready bool) *discoveryv1.EndpointSlice {
		port := int32(5432)
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name + "-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: name}},
			Ports:     []discoveryv1.EndpointPort{{Port: &port}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	}
	for _, tt := range []struct {
		name     string
		cmd, log string
		services []*corev1.Service
		slices   []*discoveryv1.EndpointSlice
		listed   bool
		want     string // the category's last part; "" for no finding
		culprit  string
	}{
		{"no such Service", "until nslookup mydb.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for mydb; sleep 2; done", "waiting for mydb\n",
			nil, nil, true, "ServiceMissing", "no Service mydb in namespace shop"},
		{"a near miss", "until nc -z postgress 5432; do echo waiting; sleep 1; done", "", []*corev1.Service{svc("postgres", 5432)}, nil, true, "ServiceNameMismatch", "Service postgres exists"},
		{"no ready endpoint", "until pg_isready -h postgres -p 5432; do echo waiting for database; sleep 2; done", "postgres:5432 - no response\n",
			[]*corev1.Service{svc("postgres", 5432)}, []*discoveryv1.EndpointSlice{slice("postgres", false)}, true, "ServiceNotReady", "0 ready endpoints"},
		{"port not exposed", "/wait-for-it.sh db:5433 --timeout=0", "", []*corev1.Service{svc("db", 5432)}, []*discoveryv1.EndpointSlice{slice("db", true)}, true, "ServicePortMismatch", "port 5433 not among its ports 5432"},
		{"the Service serves: the wait is on something else", "until nc -z db 5432; do sleep 1; done", "", []*corev1.Service{svc("db", 5432)}, []*discoveryv1.EndpointSlice{slice("db", true)}, true, "", ""},
		{"Services not listed whole", "until nslookup mydb; do sleep 2; done", "", nil, nil, false, "", ""},
		{"host from the log's bad address", "until nc -z $DB_HOST $DB_PORT; do echo waiting for db; sleep 1; done", "nc: bad address 'superset-postgresql'\nwaiting for db\n",
			nil, nil, true, "ServiceMissing", "no Service superset-postgresql"},
		{"refused: the name resolved", "until nc -z mydb 5432; do sleep 1; done", "mydb (10.96.3.3:5432) open failed: Connection refused\n", nil, nil, true, "", ""},
		{"an outside name", "until curl -sf https://api.example.com/ready; do sleep 2; done", "", nil, nil, true, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, l := waiting(tt.cmd, tt.log)
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
				Services: tt.services, EndpointSlices: tt.slices, Logs: []bundle.ContainerLog{l}}
			if tt.listed {
				b.Cluster.ServicesListed = "shop"
			}
			fs := ruletest.Run(InitDependency, b, now)
			if tt.want == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/"+tt.want) || !strings.Contains(fs[0].Culprit, tt.culprit) {
				t.Fatalf("want one %s finding naming %q, got %+v", tt.want, tt.culprit, fs)
			}
		})
	}
}
