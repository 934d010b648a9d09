package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDependencyService: the host a crashing container's log fails to reach
// is checked against the namespace's Services. Log lines are the frameworks'
// own wording: nginx's "host not found in upstream", libpq's "Is the server
// running on host", Go's resolver "no such host".
func TestDependencyService(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	pod := func(env ...corev1.EnvVar) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "p1", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Env: env}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	}
	svc := func(name, ip string, ports ...int32) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Spec: corev1.ServiceSpec{ClusterIP: ip, Selector: map[string]string{"app": name}}}
		for _, p := range ports {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: p})
		}
		return s
	}
	slice := func(svc string, ready bool) *discoveryv1.EndpointSlice {
		port := int32(5432)
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: svc + "-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
			Ports:     []discoveryv1.EndpointPort{{Port: &port}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: svc + "-0"}}}}
	}
	const nginx = "nginx: [emerg] host not found in upstream \"netbox\" in /etc/netbox-nginx/nginx.conf:21\n"
	const libpq = "psycopg2.OperationalError: could not connect to server: Connection refused\n\tIs the server running on host \"postgres\" (10.96.40.12) and accepting\n\tTCP/IP connections on port 5432?\n"
	const goDNS = "panic: dial tcp: lookup orders-db on 10.96.0.10:53: no such host\n"
	// zap's production encoder, Go's dial timeout to the Service's cluster IP.
	const zapTimeout = `{"level":"fatal","msg":"failed to connect to redis","error":"dial tcp 10.96.112.4:6379: i/o timeout"}` + "\n"
	redis := svc("redis", "10.96.112.4", 6379)
	redisSlice := slice("redis", true)
	onlyFrom := func(app string) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "redis-ingress", Namespace: "shop"},
			Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "redis"}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}}}}}
	}
	for _, tt := range []struct {
		name     string
		log      string
		pod      *corev1.Pod
		services []*corev1.Service
		slices   []*discoveryv1.EndpointSlice
		policies []*networkingv1.NetworkPolicy
		want     string // category suffix; "" = no finding
		culprit  string
	}{
		{"near miss", nginx, pod(), []*corev1.Service{svc("netbox-app", "10.96.1.1", 8080), svc("redis", "10.96.1.2", 6379)}, nil, nil, "/DNS/ServiceNameMismatch", "netbox-app"},
		{"no such Service", goDNS, pod(), []*corev1.Service{svc("orders-api", "10.96.1.1", 80)}, nil, nil, "/DNS/ServiceMissing", "no Service orders-db"},
		{"pods not ready", libpq, pod(), []*corev1.Service{svc("postgres", "10.96.40.12", 5432)}, []*discoveryv1.EndpointSlice{slice("postgres", false)}, nil, "/ConnectionRefused/ServiceNotReady", "postgres-0"},
		{"port not exposed", libpq, pod(), []*corev1.Service{svc("postgres", "10.96.40.12", 5433)}, []*discoveryv1.EndpointSlice{slice("postgres", true)}, nil, "/ConnectionRefused/ServicePortMismatch", "port 5432"},
		{"ready and exposed: elsewhere", libpq, pod(), []*corev1.Service{svc("postgres", "10.96.40.12", 5432)}, []*discoveryv1.EndpointSlice{slice("postgres", true)}, nil, "", ""},
		{"refused, no Service: the name resolved elsewhere", libpq, pod(), nil, nil, nil, "", ""},
		{"a cluster-IP Service that does not resolve: DNS itself", goDNS, pod(), []*corev1.Service{svc("orders-db", "10.96.1.3", 5432)}, nil, nil, "", ""},
		{"policy admits another caller only", zapTimeout, pod(), []*corev1.Service{redis}, []*discoveryv1.EndpointSlice{redisSlice}, []*networkingv1.NetworkPolicy{onlyFrom("api")}, "/ConnectionRefused/NetworkPolicy", "redis-ingress"},
		{"policy admits the caller", zapTimeout, pod(), []*corev1.Service{redis}, []*discoveryv1.EndpointSlice{redisSlice}, []*networkingv1.NetworkPolicy{onlyFrom("web")}, "", ""},
		// Node's net module: "connect ECONNREFUSED 127.0.0.1:5432" (lib/net.js, errno exception with address:port).
		{"localhost in a pod", "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n", pod(), []*corev1.Service{svc("postgres", "10.96.40.12", 5432)}, nil, nil, "/ConnectionRefused/Localhost", "127.0.0.1:5432"},
		{"another namespace", "dial tcp: lookup kafka.messaging.svc.cluster.local on 10.96.0.10:53: no such host\n", pod(), nil, nil, nil, "", ""},
		{"no such Service, but the namespace's Services were not read whole", goDNS, pod(), nil, nil, nil, "", ""},
		{"host from env when the line names none", "kafka.errors.NoBrokersAvailable: NoBrokersAvailable\n", pod(corev1.EnvVar{Name: "KAFKA_BOOTSTRAP", Value: "kafka:9092"}), []*corev1.Service{svc("kafka-broker", "10.96.1.4", 9092)}, nil, nil, "/ServiceNameMismatch", "kafka-broker"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
				Services: tt.services, EndpointSlices: tt.slices, NetworkPolicies: tt.policies,
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: p.Name, Container: "app", Previous: true, Text: tt.log}}}
			if tt.services != nil {
				b.Cluster.ServicesListed = "shop"
			}
			fs := ruletest.Run(DependencyService, b, now)
			if tt.want == "" {
				if len(fs) > 0 {
					t.Fatalf("want no finding, got %s: %s", fs[0].Category, fs[0].Title)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), tt.want) || !strings.Contains(fs[0].Culprit+fs[0].Title, tt.culprit) {
				t.Fatalf("got %+v, want category …%s naming %q", fs, tt.want, tt.culprit)
			}
		})
	}
}

func TestSplitServiceHost(t *testing.T) {
	for host, want := range map[string][2]string{
		"db": {"db", ""}, "db.shop": {"db", "shop"}, "db.shop.svc": {"db", "shop"}, "db.shop.svc.cluster.local": {"db", "shop"},
		"api.example.com": {"", ""}, "example.com": {"", ""}, "10.96.0.1": {"10.96.0.1", ""},
	} {
		if n, ns := bundle.SplitServiceHost(host); n != want[0] || ns != want[1] {
			t.Errorf("%s: got (%s, %s), want %v", host, n, ns, want)
		}
	}
}

// TestDependencyServiceUnready: a container that runs but fails its
// readiness probe (its health check needs the database) and logs a refused
// connection to a Service whose only pod is not Ready: the probe finding is
// traced to that Service. The log is ActiveRecord's PG adapter wording
// (libpq 14+: connection to server at "host" (ip), port N failed).
func TestDependencyServiceUnready(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1", Labels: map[string]string{"app": "api"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1",
			Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 3000}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/up", Port: intstr.FromInt(3000)}}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: false,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-10 * time.Minute))}}}}}}
	unhealthy := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "api.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 40,
		Message:        "Readiness probe failed: HTTP probe failed with statuscode: 500",
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1", FieldPath: "spec.containers{app}"},
		LastTimestamp:  metav1.NewTime(now.Add(-10 * time.Second))}
	ready := false
	port := int32(5432)
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{unhealthy},
		Services: []*corev1.Service{{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.5.5", Selector: map[string]string{"app": "db"}, Ports: []corev1.ServicePort{{Port: 5432}}}}},
		EndpointSlices: []*discoveryv1.EndpointSlice{{ObjectMeta: metav1.ObjectMeta{Name: "db-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
			Ports:     []discoveryv1.EndpointPort{{Port: &port}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "db-0"}}}}},
		Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "api", Container: "app", Text: "" +
			"E, [2024-05-02T08:14:00.702 #1] ERROR -- : ActiveRecord::ConnectionNotEstablished (connection to server at \"db\" (10.96.5.5), port 5432 failed: Connection refused\n" +
			"E, [2024-05-02T08:14:10.702 #1] ERROR -- : ActiveRecord::ConnectionNotEstablished (connection to server at \"db\" (10.96.5.5), port 5432 failed: Connection refused\n" +
			"E, [2024-05-02T08:14:20.702 #1] ERROR -- : ActiveRecord::ConnectionNotEstablished (connection to server at \"db\" (10.96.5.5), port 5432 failed: Connection refused\n"}}}
	fs := ruletest.Run(DependencyService, b, now)
	if len(fs) != 1 || !strings.HasPrefix(string(fs[0].Category), "Probe/Readiness") || !strings.HasSuffix(string(fs[0].Category), "/ConnectionRefused/ServiceNotReady") || !strings.Contains(fs[0].Title, "db-0") {
		t.Fatalf("got %+v", fs)
	}
}

// TestDependencyLoopbackSidecar: a sidecar declaring the port dialled on
// localhost (a database proxy) is the pod's own listener: not reported here.
func TestDependencyLoopbackSidecar(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app"},
			{Name: "cloud-sql-proxy", Ports: []corev1.ContainerPort{{ContainerPort: 5432}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "web", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
		Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "web", Container: "app", Previous: true, Text: "Error: connect ECONNREFUSED 127.0.0.1:5432\n"}}}
	if fs := ruletest.Run(DependencyService, b, now); len(fs) != 0 {
		t.Fatalf("got %s: %s", fs[0].Category, fs[0].Title)
	}
}

// TestDependencyPodDown: a caller that cannot reach a Service with no ready
// endpoint is traced to why the Service's own pod is down, read from the
// pods the collector followed the Service to: crash-looping with its log
// (the mssql image's EULA refusal, from microsoft/mssql-docker), OOM-killed,
// not scheduled, or unable to pull its image.
func TestDependencyPodDown(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	caller := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "p1", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	const libpq = "psycopg2.OperationalError: could not connect to server: Connection refused\n\tIs the server running on host \"db\" (10.96.40.12) and accepting\n\tTCP/IP connections on port 5432?\n"
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.40.12", Selector: map[string]string{"app": "db"}, Ports: []corev1.ServicePort{{Port: 5432}}}}
	notReady := false
	port := int32(5432)
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "db-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
		Ports: []discoveryv1.EndpointPort{{Port: &port}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}}}}
	dep := func(st corev1.PodStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "shop", Labels: map[string]string{"app": "db"}}, Status: st}
	}
	crash := func(code int32, reason string) corev1.PodStatus {
		return corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "db", RestartCount: 7,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}}}
	}
	for _, tt := range []struct {
		name    string
		pod     *corev1.Pod
		log     string
		culprit []string
	}{
		{"crash loop with its reason", dep(crash(1, "Error")), "SQL Server 2019 will run as non-root by default.\nThe SQL Server End-User License Agreement (EULA) must be accepted before SQL\nServer can start. The license terms for this product can be downloaded from\n",
			[]string{"db-0", "CrashLoopBackOff", "EULA"}},
		{"OOM-killed", dep(crash(137, "OOMKilled")), "", []string{"db-0", "OOMKilled"}},
		{"not scheduled", dep(corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."}}}),
			"", []string{"db-0", "Insufficient memory"}},
		{"image not found", dep(corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "db",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "bitnami/redis:7.0.5-debian-11-r0"`}}}}}),
			"", []string{"db-0", "ImagePullBackOff"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "web", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{caller},
				Services: []*corev1.Service{svc}, EndpointSlices: []*discoveryv1.EndpointSlice{slice}, DependencyPods: []*corev1.Pod{tt.pod},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "web", Container: "app", Previous: true, Text: libpq}}}
			if tt.log != "" {
				b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: "db-0", Container: "db", Previous: true, Text: tt.log})
			}
			b.Cluster.ServicesListed = "shop"
			fs := ruletest.Run(DependencyService, b, now)
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/ServiceNotReady") {
				t.Fatalf("got %+v, want one ServiceNotReady finding", fs)
			}
			for _, want := range tt.culprit {
				if !strings.Contains(fs[0].Culprit, want) {
					t.Errorf("culprit %q does not name %q", fs[0].Culprit, want)
				}
			}
		})
	}
}

// TestDependencyNamedForIP: a refusal that names only an IP which is no
// Service's cluster IP (Node's "connect ECONNREFUSED 10.96.44.12:27017")
// is named by the container's env dialling the same port of a Service
// (MONGO_URL=mongodb://mongo:27017/catalog), and followed to that
// Service's pod.
func TestDependencyNamedForIP(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	caller := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "catalog", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{{Name: "MONGO_URL", Value: "mongodb://mongo:27017/catalog"}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "mongo", Namespace: "shop"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.7.7", Selector: map[string]string{"app": "mongo"}, Ports: []corev1.ServicePort{{Port: 27017}}}}
	no, port := false, int32(27017)
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "mongo-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "mongo"}},
		Ports: []discoveryv1.EndpointPort{{Port: &port}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.81"}, Conditions: discoveryv1.EndpointConditions{Ready: &no}}}}
	dep := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mongo-0", Namespace: "shop", Labels: map[string]string{"app": "mongo"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "mongo", RestartCount: 9,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}}}
	for _, tt := range []struct {
		name, ip string
		want     bool
	}{{"an IP that is no Service's", "10.96.44.12", true}, {"an IP outside any Service, and no env for its port", "10.96.44.12:5432", false}} {
		t.Run(tt.name, func(t *testing.T) {
			addr := tt.ip
			if !strings.Contains(addr, ":") {
				addr += ":27017"
			}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "catalog", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{caller},
				Services: []*corev1.Service{svc}, EndpointSlices: []*discoveryv1.EndpointSlice{slice}, DependencyPods: []*corev1.Pod{dep},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "catalog", Container: "app", Previous: true,
					Text: "MongooseServerSelectionError: connect ECONNREFUSED " + addr + "\n    at NativeConnection.Connection.openUri (/app/node_modules/mongoose/lib/connection.js:807:32)\n"}}}
			b.Cluster.ServicesListed = "shop"
			fs := ruletest.Run(DependencyService, b, now)
			got := len(fs) == 1 && strings.Contains(fs[0].Culprit, "mongo-0") && strings.Contains(fs[0].Culprit, "OOMKilled")
			if got != tt.want {
				t.Fatalf("traced to mongo-0 OOMKilled = %v, want %v: %+v", got, tt.want, fs)
			}
		})
	}
}
