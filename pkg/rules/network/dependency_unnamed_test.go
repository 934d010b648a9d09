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

// TestDependencyUnnamedHost: a refusal that names no host is traced to the
// Service the container is configured with, or that its earlier connection
// lines name, and on to that Service's failing pod. The log lines:
//   - Laravel's PDO error with the host only in DB_HOST=mysql
//     (https://github.com/alexjustesen/speedtest-tracker/issues/784,
//     https://github.com/antoniopapa/laravel-microservices-rabbitmq/issues/1);
//   - Microsoft.Data.SqlClient with the host in an ADO.NET connection
//     string (Server=host,port) (https://github.com/microsoft/mssql-docker/issues/217);
//   - a client that logs the endpoint it dials before a bare refusal.
//
// Negatives: the configured host is outside the cluster; the earlier line
// names a host that is no Service.
func TestDependencyUnnamedHost(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	caller := func(env ...corev1.EnvVar) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "p1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: env}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	}
	env := func(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }
	const pdo = "In Connector.php line 65:\n\n  SQLSTATE[HY000] [2002] Connection refused\n"
	const sqlclient = "Unhandled exception. Microsoft.Data.SqlClient.SqlException (0x80131904): A network-related or instance-specific error occurred while establishing a connection to SQL Server. (provider: TCP Provider, error: 40 - Could not open a connection to SQL Server)\n ---> System.Net.Sockets.SocketException (111): Connection refused\n"
	earlier := func(host string) string {
		return "2024-02-12 09:26:43.838  INFO 1 --- [main] c.e.queue.Client : Connecting to " + host + ":5672\n" +
			"2024-02-12 09:26:43.914 ERROR 1 --- [main] c.e.queue.Client : java.net.ConnectException: Connection refused\n"
	}
	for _, tt := range []struct {
		name, svc string
		pod       *corev1.Pod
		log       string
		want      bool
	}{
		{"bare DB_HOST", "mysql", caller(env("DB_HOST", "mysql"), env("DB_PORT", "3306")), pdo, true},
		{"ADO.NET connection string", "sql", caller(env("ConnectionStrings__Default", "Server=sql,1433;Database=app;User Id=sa")), sqlclient, true},
		{"an earlier connection line", "broker", caller(), earlier("broker"), true},
		{"configured host outside the cluster", "mysql", caller(env("DB_HOST", "db.example.com")), pdo, false},
		{"an earlier line names no Service", "broker", caller(), earlier("queue-legacy"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: tt.svc, Namespace: "shop"},
				Spec: corev1.ServiceSpec{ClusterIP: "10.96.3.3", Selector: map[string]string{"app": tt.svc}, Ports: []corev1.ServicePort{{Port: 5672}}}}
			no := false
			slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: tt.svc + "-x", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: tt.svc}},
				Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &no}}}}
			dep := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tt.svc + "-0", Namespace: "shop", Labels: map[string]string{"app": tt.svc}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "db", RestartCount: 9,
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "web", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{tt.pod},
				Services: []*corev1.Service{svc}, EndpointSlices: []*discoveryv1.EndpointSlice{slice}, DependencyPods: []*corev1.Pod{dep},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "web", Container: "app", Previous: true, Text: tt.log}}}
			b.Cluster.ServicesListed = "shop"
			// The collector follows the same host.
			hosts := bundle.FailingHosts(tt.log, tt.pod, "app")
			if got := strings.Contains(strings.Join(hosts, " "), tt.svc); got != tt.want {
				t.Errorf("FailingHosts = %v, names %s: %v, want %v", hosts, tt.svc, got, tt.want)
			}
			fs := ruletest.Run(DependencyService, b, now)
			got := len(fs) == 1 && strings.HasSuffix(string(fs[0].Category), "/ServiceNotReady") && strings.Contains(fs[0].Culprit, tt.svc+"-0") && strings.Contains(fs[0].Culprit, "CrashLoopBackOff")
			if got != tt.want {
				t.Fatalf("traced to %s-0 = %v, want %v: %+v", tt.svc, got, tt.want, fs)
			}
		})
	}
}
