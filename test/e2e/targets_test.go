package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestCustomResourceTarget: a CRD's object is a target like any other (kind
// and kind.group forms); with a failing condition and a recent warning the
// report is degraded, never "healthy", and names what it saw.
func TestCustomResourceTarget(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": []any{"wd"}},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema":       map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := c.Dynamic.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "gizmo"}}}
	var created *unstructured.Unstructured
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		created, err = c.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, w, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("CRD never became usable: %v", err)
	}
	created.Object["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": "False", "reason": "BackendUnavailable", "message": "cannot reach the widget backend"}}}
	if _, err := c.Dynamic.Resource(gvr).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Event(t, testcluster.EventSpec{Object: created, Kind: "Widget", APIVersion: "example.com/v1", Reason: "SyncFailed",
		Component: "widget-controller", Message: "sync failed: backend returned 503"})

	for _, args := range [][]string{{"widget/gizmo"}, {"widgets.example.com", "gizmo"}, {"wd/gizmo"}} {
		r := triage(t, c, ns, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		if !strings.HasPrefix(r.stdout, "# Triage: Widget/gizmo ("+ns+")") {
			t.Errorf("%v: report title: %.120s", args, r.stdout)
		}
		for _, want := range []string{"Degraded: limited data", "BackendUnavailable", "SyncFailed"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: report lacks %q", args, want)
			}
		}
		if strings.Contains(r.stdout, "healthy: no fault found") {
			t.Errorf("%v: a failing custom resource reported healthy", args)
		}
	}
}

// TestBundleContents checks what the workspace holds for a Deployment: its
// owner chain and pods, their node, every pod's previous logs, events oldest
// first, cluster info — and that the request count stays small.
func TestBundleContents(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("deployment-crashloop").setup(t, c, ns)
	pods, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(pods.Items) != 2 {
		t.Fatalf("want 2 pods: %v", err)
	}
	older := time.Now().Add(-20 * time.Minute)
	c.Event(t, testcluster.EventSpec{Object: &pods.Items[0], Reason: "BackOff", Count: 9, First: older, Last: time.Now().Add(-10 * time.Minute), Message: "Back-off restarting failed container web"})
	c.Event(t, testcluster.EventSpec{Object: &pods.Items[1], Reason: "Unhealthy", Count: 2, First: time.Now().Add(-5 * time.Minute), Message: "Liveness probe failed"})
	// An unrelated pod's events must not be collected.
	other := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bystander", Namespace: ns}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "busybox"}}}})
	c.Event(t, testcluster.EventSpec{Object: other, Reason: "Failed", Message: "bystander event"})

	mark := c.AuditMark()
	r := triage(t, c, ns, "deploy/checkout")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	requests := assertReadOnly(t, c, mark)
	dir := onlyWorkspace(t, r.root)
	assertWorkspace(t, dir, incident.Resolved)

	res, _ := os.ReadDir(filepath.Join(dir, "context", "resources"))
	var names []string
	for _, e := range res {
		names = append(names, e.Name())
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	joined := strings.Join(names, " ")
	for _, want := range []string{"deployment-checkout.json", "replicaset-checkout-", "pod-checkout-", "node-fake-node.json"} {
		if !strings.Contains(joined, want) {
			t.Errorf("resources/ lacks %s: %v", want, names)
		}
	}
	logs, _ := os.ReadFile(filepath.Join(dir, "context", "logs.txt"))
	for _, p := range pods.Items {
		if !strings.Contains(string(logs), "==> pod/"+p.Name+" container web (previous) <==") {
			t.Errorf("logs.txt lacks the previous log of %s:\n%s", p.Name, logs)
		}
	}
	var events []bundle.EventRecord
	data, _ := os.ReadFile(filepath.Join(dir, "context", "events.json"))
	if err := json.Unmarshal(data, &events); err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("want the 2 events of the deployment's pods, got %d: %+v", len(events), events)
	}
	if !events[0].LastTimestamp.Before(events[1].LastTimestamp) || events[0].Reason != "BackOff" {
		t.Errorf("events not oldest first: %+v", events)
	}
	var info bundle.ClusterInfo
	data, _ = os.ReadFile(filepath.Join(dir, "context", "cluster-info.json"))
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if info.ServerVersion == "" || info.Namespace != ns || info.Context == "" || len(info.Involved) < 4 || strings.Contains(info.Server, "/") {
		t.Errorf("cluster-info.json incomplete: %+v", info)
	}
	// Resolve + discovery + deployment, its replicasets, pods, node, events
	// of 5 objects, 2 previous logs: bounded, whatever the namespace holds.
	if requests > 25 {
		t.Errorf("%d API requests for one deployment; collection is not bounded", requests)
	}
}

// TestRequestsDoNotGrowWithNamespace: triaging a pod costs the same number
// of API requests beside 200 other pods and their events as alone — no
// namespace-wide list of pods or events for a pod target.
func TestRequestsDoNotGrowWithNamespace(t *testing.T) {
	c := testcluster.Get(t)
	count := func(ns string) int {
		r := triage(t, c, ns, "pod/api") // warm discovery for this cache dir
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		mark := c.AuditMark()
		if r := triage(t, c, ns, "pod/api"); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		events := c.AuditSince(t, mark, c.UserName)
		n := 0
		for _, e := range events {
			if e.Resource != "" { // discovery differs per fresh cache dir; objects do not
				n++
			}
			if e.Verb == "list" && (e.Resource == "pods" || e.Resource == "events") && !strings.Contains(e.RequestURI, "Selector") {
				t.Errorf("unfiltered list for a pod target: %s", e.RequestURI)
			}
		}
		return n
	}
	alone := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, alone)
	crowdedNS := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, crowdedNS)
	for i := 0; i < 200; i++ {
		p := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("filler-%03d", i), Namespace: crowdedNS},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
		c.Event(t, testcluster.EventSpec{Object: p, Type: "Normal", Reason: "Pulled", Message: "Successfully pulled image"})
	}
	a, b := count(alone), count(crowdedNS)
	if a != b {
		t.Errorf("object requests grew with the namespace: %d alone, %d among 200 pods", a, b)
	}
	t.Logf("%d object requests either way", a)
}
