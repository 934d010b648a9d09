package bundle

import "testing"

// TestLogDenials: the API server's RBAC denial is found in the wrappings of
// the clients that print it: client-go's reflector (klog), the Python
// client's ApiException body (JSON, quotes escaped; kubernetes-client/
// python#1187-style), fabric8's KubernetesClientException (Java), each
// account/verb/resource/namespace once.
func TestLogDenials(t *testing.T) {
	logs := []ContainerLog{{Pod: "op", Container: "app", Text: "" +
		`E0815 13:42:36.847815 1 reflector.go:199] pkg/mod/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.Service: services is forbidden: User "system:serviceaccount:monitoring:kube-state-metrics" cannot list resource "services" in API group "" at the cluster scope` + "\n" +
		`E0815 13:42:37.847815 1 reflector.go:199] pkg/mod/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.Service: services is forbidden: User "system:serviceaccount:monitoring:kube-state-metrics" cannot list resource "services" in API group "" at the cluster scope` + "\n" +
		`HTTP response body: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps is forbidden: User \"system:serviceaccount:jobs:runner\" cannot patch resource \"deployments\" in API group \"apps\" in the namespace \"shop\"","reason":"Forbidden","details":{"name":"web","group":"apps","kind":"deployments"},"code":403}` + "\n" +
		`io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: GET at: https://10.96.0.1/api/v1/namespaces/ci/pods. Message: Forbidden!Configured service account doesn't have access. Service account may have been revoked. pods is forbidden: User "system:serviceaccount:ci:jenkins" cannot list resource "pods" in API group "" in the namespace "ci".` + "\n" +
		`ERROR: logging before flag.Parse: E0418 04:56:17.489683       1 reflector.go:201] github.com/skippbox/kubewatch/pkg/controller/controller.go:147: Failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:default:default" cannot list pods at the cluster scope` + "\n"}}
	got := LogDenials(&Bundle{Logs: logs})
	want := []string{"monitoring/kube-state-metrics list services  ", "jobs/runner patch deployments apps shop", "ci/jenkins list pods  ci", "default/default list pods  "}
	if len(got) != len(want) {
		t.Fatalf("got %d denials: %+v", len(got), got)
	}
	for i, d := range got {
		if s := d.ServiceAccount + " " + d.Verb + " " + d.Resource + " " + d.Group + " " + d.Namespace; s != want[i] {
			t.Errorf("denial %d = %q, want %q", i, s, want[i])
		}
	}
}
