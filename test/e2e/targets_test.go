package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	"github.com/kubectl-triage/kubectl-triage/pkg/target"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestCustomResourceTarget: a CRD's object is a target like any other (kind
// and kind.group forms); with a failing condition and a recent warning the
// report is degraded, never "healthy", and names what it saw.
func TestCustomResourceTarget(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	ensureWidgetCRD(t, c)
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

// ensureWidgetCRD defines example.com's Widget (widgets, widget, wd),
// namespaced; the API server serves it shortly after.
func ensureWidgetCRD(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
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
	if _, err := c.Dynamic.Resource(crdGVR).Create(context.Background(), crd, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
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
// namespace-wide list of pods or events for a pod target — and stays within
// its budget: fewer than 10 object requests for a crash-looping pod, whose
// own evidence needs no namespace-wide list, and at most 15 for a healthy
// one, whose Services and NetworkPolicies are listed to call it healthy.
// Discovery (/api, /apis) is cached on disk and not counted; /version is.
func TestRequestsDoNotGrowWithNamespace(t *testing.T) {
	c := testcluster.Get(t)
	for _, tt := range []struct {
		scenario, target string
		budget           int // object requests, at most
		lists            bool
	}{
		{"crashloop-missing-env", "pod/api", 9, false},
		{"healthy-pod", "pod/fine", 15, true},
		// An init container waiting for a Service: the lists, its
		// EndpointSlices and the pods behind it (docs/DESIGN.md §7).
		{"real-init-pg-isready-waiting-for-postgres", "pod/clair-6b7d9f8c4-q8w2n", 15, true},
	} {
		t.Run(tt.scenario, func(t *testing.T) {
			count := func(ns string) int {
				r := triage(t, c, ns, tt.target) // warm discovery for this cache dir
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				mark := c.AuditMark()
				if r := triage(t, c, ns, tt.target); r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				n, lists := 0, 0
				var uris []string
				for _, e := range c.AuditSince(t, mark, c.UserName) {
					if !discovery(e.RequestURI) { // discovery differs per fresh cache dir; objects do not
						n++
						uris = append(uris, e.Verb+" "+e.RequestURI)
					}
					if e.Verb == "list" && (e.Resource == "pods" || e.Resource == "events") && !strings.Contains(e.RequestURI, "Selector") {
						t.Errorf("unfiltered list for a pod target: %s", e.RequestURI)
					}
					if e.Verb == "list" && (e.Resource == "services" || e.Resource == "networkpolicies") {
						lists++
					}
				}
				if n > tt.budget {
					t.Errorf("%d object requests, want at most %d:\n%s", n, tt.budget, strings.Join(uris, "\n"))
				}
				if want := map[bool]int{true: 2, false: 0}[tt.lists]; lists != want {
					t.Errorf("%d lists of the namespace's Services and NetworkPolicies, want %d", lists, want)
				}
				return n
			}
			alone := c.Namespace(t)
			scenarioNamed(tt.scenario).setup(t, c, alone)
			crowdedNS := c.Namespace(t)
			scenarioNamed(tt.scenario).setup(t, c, crowdedNS)
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
		})
	}
}

// TestBareResourceType: a resource type with no name reads as kubectl reads
// it, through the real binary: a one-line error that a name is needed
// (exit 1, nothing on stdout, no workspace), never the lookup of a pod
// named after the type — for built-in types in every spelling, without a
// kubeconfig too, and for a custom resource's type, which only discovery
// knows. Without a kubeconfig a path-like argument suggests replay, a typo
// of a command suggests the command, and nothing else suggests replay.
func TestBareResourceType(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	ensureWidgetCRD(t, c)
	// A pod named like a type is still reachable as pod/NAME.
	c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "deploy", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}}})
	home := t.TempDir()
	withCluster := []string{"KUBECONFIG=" + c.UserKubeconfig, "HOME=" + home}
	noKubeconfig := []string{"KUBECONFIG=" + filepath.Join(home, "missing"), "HOME=" + home}

	ws := filepath.Join(t.TempDir(), "incident-0f8fad5b")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, incident.FileName), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  []string
		args []string
		want string // the whole last line of stderr starts with it
		not  string // and never says this
	}{
		{"short name", withCluster, []string{"deploy"}, "error: you must specify the name of the deployment to triage, e.g. kubectl triage deploy/NAME", "not found"},
		{"singular", withCluster, []string{"deployment"}, "error: you must specify the name of the deployment to triage, e.g. kubectl triage deployment/NAME", "not found"},
		{"plural", withCluster, []string{"deployments"}, "error: you must specify the name of the deployment to triage", "not found"},
		{"kind case", withCluster, []string{"StatefulSet"}, "error: you must specify the name of the statefulset to triage, e.g. kubectl triage statefulset/NAME", "not found"},
		{"plural.group", withCluster, []string{"deployments.apps"}, "error: you must specify the name of the deployment to triage", "not found"},
		{"trailing slash", withCluster, []string{"sts/"}, "error: you must specify the name of the statefulset to triage", "is not a resource"},
		{"pod short name", withCluster, []string{"po"}, "error: you must specify the name of the pod to triage", "not found"},
		{"service", withCluster, []string{"svc"}, "error: you must specify the name of the service to triage", "not found"},
		{"claim", withCluster, []string{"pvc"}, "error: you must specify the name of the persistentvolumeclaim to triage", "not found"},
		{"cluster-scoped, no namespace hint", withCluster, []string{"node"}, "error: you must specify the name of the node to triage, e.g. kubectl triage node/NAME (list them with: kubectl get node)", "ns/NAMESPACE"},
		{"custom resource, from discovery", withCluster, []string{"widgets"}, "error: you must specify the name of the widget to triage, e.g. kubectl triage widgets/NAME", "not found"},
		{"custom resource short name", withCluster, []string{"wd"}, "error: you must specify the name of the widget to triage", "not found"},
		{"no kubeconfig: type", noKubeconfig, []string{"deploy"}, "error: you must specify the name of the deployment to triage", "replay"},
		{"no kubeconfig: workspace", noKubeconfig, []string{ws}, `error: "` + ws + `" is a path, not a resource`, "kubeconfig"},
		{"no kubeconfig: relative path", noKubeconfig, []string{"./incident-0f8fad5b"}, `error: "./incident-0f8fad5b" is a path, not a resource`, "kubeconfig"},
		{"no kubeconfig: command typo", noKubeconfig, []string{"lsit"}, "Did you mean the command 'kubectl triage list'?", "replay"},
		{"no kubeconfig: pod name close to replay", noKubeconfig, []string{"redis"}, "error: no kubeconfig found", "replay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "incidents")
			env := append(append([]string{}, tt.env...), "WORKSPACE_ROOT="+root)
			code, stdout, stderr := runBinary(t, env, append(tt.args, "-n", ns)...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if code != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 1 and no report", code, stdout)
			}
			if !strings.HasPrefix(last, tt.want) || strings.Contains(stderr, tt.not) {
				t.Errorf("stderr:\n%s\nwant a last line starting %q, never %q", stderr, tt.want, tt.not)
			}
			if strings.Contains(tt.name, "workspace") || strings.Contains(tt.name, "path") {
				if !strings.Contains(last, "'kubectl triage replay "+tt.args[0]+"'") {
					t.Errorf("no replay suggestion for a workspace path: %s", last)
				}
			}
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Errorf("a usage error left %d workspace(s)", len(entries))
			}
		})
	}
	// The pod named like a type, named as a pod.
	if code, stdout, stderr := runBinary(t, append(withCluster, "WORKSPACE_ROOT="+t.TempDir()), "pod/deploy", "-n", ns); code != 0 || !strings.HasPrefix(stdout, "# Triage: Pod/deploy") {
		t.Errorf("pod/deploy: exit %d\n%s", code, stderr)
	}
}

// TestBuiltinTypesCoverDiscovery: every built-in type the API server serves
// for reading is recognised as a type without the server (Normalize, which
// runs before any kubeconfig is read), in each of its spellings: the
// offline table has not drifted from the API.
func TestBuiltinTypesCoverDiscovery(t *testing.T) {
	c := testcluster.Get(t)
	lists, err := c.Client.Discovery().ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		builtin := gv.Group == "" || strings.HasSuffix(gv.Group, ".k8s.io") || slices.Contains([]string{"apps", "batch", "autoscaling", "policy"}, gv.Group)
		if !builtin {
			continue // a custom resource's (recognised through discovery)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "get") {
				continue
			}
			for _, word := range append([]string{r.Name, r.SingularName, r.Name + "." + gv.Group}, r.ShortNames...) {
				if word == "" || strings.HasSuffix(word, ".") {
					continue
				}
				_, err := target.Normalize([]string{word})
				if err == nil || !strings.Contains(err.Error(), "you must specify the name of the") {
					t.Errorf("%s (%s): Normalize(%q) = %v, want the name-needed error", r.Name, l.GroupVersion, word, err)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d spellings checked: discovery looks incomplete", checked)
	}
}
