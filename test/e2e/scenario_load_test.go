package e2e

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/test/scenarios"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// createOrder ranks kinds so that owners exist before what they own (their
// new UIDs go into ownerReferences) and what pods refer to exists first.
var createOrder = map[string]int{
	"StorageClass": 1, "IngressClass": 1, "PriorityClass": 1, "Node": 1, "PersistentVolume": 2,
	"ServiceAccount": 3, "ConfigMap": 3, "Secret": 3,
	"PersistentVolumeClaim": 4, "Service": 4,
	"CronJob": 5, "Deployment": 5, "StatefulSet": 5, "DaemonSet": 5,
	"Job": 6, "ReplicaSet": 6,
	"Pod":           7,
	"EndpointSlice": 8, "Ingress": 8, "HorizontalPodAutoscaler": 8,
	// Admission would apply these to the pods created after them: a
	// captured quota's usage would refuse them and a LimitRange would add
	// its defaults again; the captured pods already show their effect.
	"ResourceQuota": 9, "LimitRange": 9,
	// The API server's availability controller writes its status.
	"APIService": 9, "Lease": 5,
}

// loadScenario creates a captured scenario's objects in namespace ns of
// the control plane (create, then the status subresource), with the events
// and container logs the capture recorded, and returns the triage
// arguments.
//
// Server-set fields (uid, resourceVersion, creationTimestamp, generation,
// managedFields, a Service's clusterIP, a Job's selector and controller-uid
// labels) are dropped and set again by the API server; every captured UID
// of an object created before (ownerReferences, labels, a CronJob's active
// runs) becomes the new one. The fake node is this cluster's own and is
// not replaced; a Service's candidate pods and a Node's pods, kept outside
// resources/, are created too.
//
// Times: every RFC 3339 time in the objects and events is shifted by
// now − capturedAt (whole seconds), so ages read as they did at capture
// ("restarted 20m ago" stays 20m). What the API server sets cannot be
// shifted: creationTimestamp is the load's (pods keep their captured order,
// see pacePods), and a pod captured Terminating is deleted again, so its
// deletionTimestamp is now plus its grace period. Logs are served by the
// fake kubelet with the load's time; a log the capture could not read is
// left to the fake kubelet's own error.
func loadScenario(t *testing.T, c *testcluster.Cluster, s scenarios.Scenario, ns string) []string {
	t.Helper()
	shift := time.Since(s.Meta.CapturedAt).Truncate(time.Second)
	files, err := filepath.Glob(filepath.Join(s.Dir, scenarios.ContextDir, bundle.ResourcesDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		objs = append(objs, u)
	}
	b, err := s.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	// Pods the capture kept outside resources/: a Service's candidates
	// (labels only), a Node's pods and the pods behind a dependency.
	have := map[string]bool{}
	for _, u := range objs {
		have[u.GetKind()+"/"+u.GetName()] = true
	}
	for _, p := range append(append(append([]*corev1.Pod(nil), b.Candidates...), b.NodePods...), b.DependencyPods...) {
		if have["Pod/"+p.Name] {
			continue
		}
		have["Pod/"+p.Name] = true
		p = p.DeepCopy()
		if len(p.Spec.Containers) == 0 {
			p.Spec.Containers = []corev1.Container{{Name: "app", Image: "busybox:1.36"}}
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion("v1")
		u.SetKind("Pod")
		objs = append(objs, u)
	}
	objs = append(objs, actorObjects(b, ns, have)...)
	// Within a kind, oldest first and, among objects created in the same
	// second, the reverse of the collection's order: the collector lists
	// the newest pods first, by creationTimestamp (set by the API server,
	// to the second), then as listed. pacePods keeps the seconds apart.
	listed := map[types.UID]int{}
	for i, r := range b.Cluster.Involved {
		listed[types.UID(r.UID)] = i + 1
	}
	sort.SliceStable(objs, func(i, j int) bool {
		ki, kj := createOrder[objs[i].GetKind()], createOrder[objs[j].GetKind()]
		if ki != kj {
			return ki < kj
		}
		ti, tj := objs[i].GetCreationTimestamp(), objs[j].GetCreationTimestamp()
		if !ti.Equal(&tj) {
			return ti.Before(&tj)
		}
		return listed[objs[i].GetUID()] > listed[objs[j].GetUID()]
	})
	pace := pacePods(objs)

	var later, deleting []*unstructured.Unstructured
	ips := map[string]string{}             // a Service's captured cluster IP -> its new one, when it could not be kept
	uids := map[types.UID]types.UID{}      // captured -> new
	created := map[string]runtime.Object{} // kind/name -> stored object
	for _, u := range objs {
		kind, name := u.GetKind(), u.GetName()
		switch {
		case kind == "Namespace":
			applyNamespaceMeta(t, c, ns, u)
			continue
		case kind == "Node" && name == c.NodeName:
			// The fake node: its kubelet endpoint is this cluster's; the
			// labels and taints the scenario gave it are given again.
			applyHarnessNode(t, c, u)
			continue
		}
		if kind == "Node" {
			// Another node: its kubelet is the fake one too, at this
			// run's port, so that the logs of the pods on it are served.
			pointAtFakeKubelet(t, c, u)
		}
		pace(u)
		old := u.GetUID()
		captured := u.DeepCopy()
		prepare(u, ns, uids, shift)
		var out *unstructured.Unstructured
		switch kind {
		case "Service":
			out = createService(t, c, u, ips)
		case "Pod":
			ensureServiceAccount(t, c, u)
			out = createOrReplace(t, c, u)
		default:
			out = createOrReplace(t, c, u)
		}
		uids[old] = out.GetUID()
		created[kind+"/"+name] = out
		dropAfterScenario(t, c, kind, name, out.GetAnnotations())
		if refersToUnknown(captured, uids) {
			later = append(later, captured)
		}
		if captured.GetDeletionTimestamp() != nil {
			deleting = append(deleting, captured)
			captured.SetNamespace(out.GetNamespace())
		}
	}
	// Status that names objects created after it (a CronJob's active
	// Jobs) is written again with their new UIDs.
	for _, u := range later {
		st, ok := u.Object["status"]
		if !ok {
			continue
		}
		cur := created[u.GetKind()+"/"+u.GetName()].(*unstructured.Unstructured)
		cur.Object["status"] = shiftTimes(renameUIDs(st, uids), shift)
		c.SetObjectStatus(t, cur)
	}
	// An object captured while being deleted (stuck Terminating) is
	// deleted again, with its grace period; its finalizers or a kubelet
	// that never confirms keep it. Its deletionTimestamp is now, not the
	// shifted captured one (the API server sets it).
	var wait time.Duration
	for _, u := range deleting {
		deleteAgain(t, c, u)
		// Captured once its grace period was over: wait for that again.
		if g := u.GetDeletionGracePeriodSeconds(); g != nil && !u.GetDeletionTimestamp().After(s.Meta.CapturedAt) {
			wait = max(wait, time.Duration(*g+1)*time.Second)
		}
	}
	time.Sleep(wait)
	createSeenSecrets(t, c, b, ns)
	for _, e := range b.Events {
		createEvent(t, c, e, ns, created, shift)
	}
	for _, l := range b.Logs {
		if l.Error != "" {
			continue // the fake kubelet answers for logs it has not been given
		}
		c.SetLogs(ns, l.Pod, l.Container, l.Previous, reassign(untimestamped(l.Text), ips))
	}
	// Last: a namespace captured Terminating is deleted again (nothing
	// can be created in it after that) and given its deleter's conditions.
	for _, u := range objs {
		if u.GetKind() == "Namespace" {
			applyNamespaceStatus(t, c, ns, u)
		}
	}
	if len(ips) > 0 {
		back := map[string]string{}
		for was, now := range ips {
			back[now] = was
		}
		reassigned.Store(ns, back)
		t.Cleanup(func() { reassigned.Delete(ns) })
	}
	return s.Meta.Args
}

// serviceRange is the control plane's --service-cluster-ip-range.
var serviceRange = netip.MustParsePrefix(testcluster.ServiceCIDR)

func inServiceRange(ip string) bool {
	a, err := netip.ParseAddr(ip)
	return err == nil && serviceRange.Contains(a)
}

// reassigned holds, per namespace, the cluster IPs a load could not keep
// (new -> captured): checkGolden reads the live report with the captured
// ones.
var reassigned sync.Map

// createService creates a Service with its captured cluster IP; when
// another live Service holds that IP, it is created with a new one and ips
// maps the captured IP to it, so the logs that name it still name it.
func createService(t *testing.T, c *testcluster.Cluster, u *unstructured.Unstructured, ips map[string]string) *unstructured.Unstructured {
	t.Helper()
	ip, _, _ := unstructured.NestedString(u.Object, "spec", "clusterIP")
	if ip == "" || ip == "None" || exists(t, c, u) {
		return createOrReplace(t, c, u)
	}
	svc := &corev1.Service{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, svc); err != nil {
		t.Fatal(err)
	}
	want := svc.Status
	out, err := c.Client.CoreV1().Services(svc.Namespace).Create(t.Context(), svc, metav1.CreateOptions{})
	if apierrors.IsInvalid(err) && strings.Contains(err.Error(), "already allocated") {
		t.Logf("service %s: cluster IP %s is taken, created with a new one", svc.Name, ip)
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIPs")
		got := createOrReplace(t, c, u)
		if now, _, _ := unstructured.NestedString(got.Object, "spec", "clusterIP"); now != "" {
			ips[ip] = now
		}
		return got
	}
	if err != nil {
		t.Fatalf("create Service %s/%s: %v", svc.Namespace, svc.Name, err)
	}
	if !reflect.DeepEqual(want, corev1.ServiceStatus{}) {
		out.Status = want
		c.SetObjectStatus(t, out)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	if err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{Object: m}
	got.SetAPIVersion("v1")
	got.SetKind("Service")
	return got
}

// reassign rewrites the cluster IPs a text names that the load could not
// keep (from -> to).
func reassign(text string, ips map[string]string) string {
	for from, to := range ips {
		text = regexp.MustCompile(`\b`+regexp.QuoteMeta(from)+`\b`).ReplaceAllString(text, to)
	}
	return text
}

// kubeletStamp is the kubelet's timestamp the collector asked for; the fake
// kubelet adds its own.
var kubeletStamp = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z `)

func untimestamped(text string) string { return kubeletStamp.ReplaceAllString(text, "") }

// pacePods returns what to call before creating each object (in objs'
// order) so that pods get creationTimestamps in the captured order: pods
// captured in different seconds are created in different seconds, and
// pods captured in one second are created in one second when they can be
// (a second more than half gone is waited out first).
func pacePods(objs []*unstructured.Unstructured) func(*unstructured.Unstructured) {
	same := map[time.Time]int{} // captured second -> pods
	for _, u := range objs {
		if u.GetKind() == "Pod" {
			same[u.GetCreationTimestamp().Time]++
		}
	}
	var prev time.Time // the previous pod's captured second
	var last time.Time // when it was created here
	return func(u *unstructured.Unstructured) {
		if u.GetKind() != "Pod" {
			return
		}
		ts := u.GetCreationTimestamp().Time
		if !last.IsZero() && !ts.Equal(prev) {
			time.Sleep(time.Until(last.Truncate(time.Second).Add(time.Second)))
		}
		if (last.IsZero() || !ts.Equal(prev)) && same[ts] > 1 {
			if now := time.Now(); now.Sub(now.Truncate(time.Second)) > 500*time.Millisecond {
				time.Sleep(time.Until(now.Truncate(time.Second).Add(time.Second)))
			}
		}
		prev, last = ts, time.Now()
	}
}

// applyNamespaceMeta gives ns the captured namespace's labels and
// annotations (e.g. a Pod Security level).
func applyNamespaceMeta(t *testing.T, c *testcluster.Cluster, ns string, u *unstructured.Unstructured) {
	t.Helper()
	if len(u.GetLabels()) == 0 && len(u.GetAnnotations()) == 0 {
		return
	}
	live := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	ri := c.Client.CoreV1().Namespaces()
	ctx := t.Context()
	got, err := ri.Get(ctx, live.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels == nil {
		got.Labels = map[string]string{}
	}
	for k, v := range u.GetLabels() {
		if k != "kubernetes.io/metadata.name" {
			got.Labels[k] = v
		}
	}
	if got.Annotations == nil {
		got.Annotations = map[string]string{}
	}
	for k, v := range u.GetAnnotations() {
		got.Annotations[k] = v
	}
	if _, err := ri.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("label namespace %s: %v", ns, err)
	}
}

// prepare turns a captured object into one to create in ns.
func prepare(u *unstructured.Unstructured, ns string, uids map[types.UID]types.UID, shift time.Duration) {
	if u.GetNamespace() != "" {
		u.SetNamespace(ns)
	}
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	for _, f := range []string{"deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	if u.GetKind() == "Job" {
		// The API server makes a Job's selector and its pods' controller
		// labels from its new UID.
		unstructured.RemoveNestedField(u.Object, "spec", "selector")
		for _, l := range []string{"controller-uid", "batch.kubernetes.io/controller-uid"} {
			unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "labels", l)
		}
	}
	// Owner references, controller-uid labels, a CronJob's active runs:
	// every captured UID of an object created before is its new one.
	u.Object = renameUIDs(u.Object, uids).(map[string]any)
	if u.GetKind() == "Service" {
		// A log may name the cluster IP (a dial error prints the resolved
		// address): the captured one is kept when it is this cluster's;
		// createService falls back to a new one when it is taken.
		if ip, _, _ := unstructured.NestedString(u.Object, "spec", "clusterIP"); ip != "None" && !inServiceRange(ip) {
			unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
			unstructured.RemoveNestedField(u.Object, "spec", "clusterIPs")
		}
	}
	u.Object = shiftTimes(u.Object, shift).(map[string]any)
	if u.GetKind() == "Node" {
		shiftTaintTimes(u, shift)
	}
}

// shiftTaintTimes moves the Unix times some taints carry as their value
// (the cluster-autoscaler's ToBeDeletedByClusterAutoscaler and
// DeletionCandidateOfClusterAutoscaler) by shift, as shiftTimes does RFC
// 3339 ones: their age is what a report reads.
func shiftTaintTimes(u *unstructured.Unstructured, shift time.Duration) {
	taints, _, _ := unstructured.NestedSlice(u.Object, "spec", "taints")
	for i, t := range taints {
		m, ok := t.(map[string]any)
		if !ok {
			continue
		}
		v, _ := m["value"].(string)
		if sec, err := strconv.ParseInt(v, 10, 64); err == nil && sec > 1e9 && sec < 4e9 {
			m["value"] = strconv.FormatInt(sec+int64(shift/time.Second), 10)
			taints[i] = m
		}
	}
	if len(taints) > 0 {
		_ = unstructured.SetNestedSlice(u.Object, taints, "spec", "taints")
	}
}

// renameUIDs replaces every string in v that is a captured UID with the
// UID of the object created for it.
func renameUIDs(v any, uids map[types.UID]types.UID) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = renameUIDs(e, uids)
		}
	case []any:
		for i, e := range x {
			x[i] = renameUIDs(e, uids)
		}
	case string:
		if n, ok := uids[types.UID(x)]; ok {
			return string(n)
		}
	}
	return v
}

// uidShape matches a UID the API server generates.
var uidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// refersToUnknown says whether u's status names a UID not yet renamed (an
// object still to be created), other than its own.
func refersToUnknown(u *unstructured.Unstructured, uids map[types.UID]types.UID) bool {
	found := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			if _, ok := uids[types.UID(x)]; !ok && uidShape.MatchString(x) && x != string(u.GetUID()) {
				found = true
			}
		}
	}
	walk(u.Object["status"])
	return found
}

// deleteAgain deletes a captured pod with the grace period it was being
// deleted with.
func deleteAgain(t *testing.T, c *testcluster.Cluster, u *unstructured.Unstructured) {
	t.Helper()
	if u.GetKind() != "Pod" {
		t.Fatalf("%s %s was captured being deleted; only pods are loaded that way", u.GetKind(), u.GetName())
	}
	opts := metav1.DeleteOptions{GracePeriodSeconds: u.GetDeletionGracePeriodSeconds()}
	if err := c.Client.CoreV1().Pods(u.GetNamespace()).Delete(t.Context(), u.GetName(), opts); err != nil {
		t.Fatalf("delete pod %s again: %v", u.GetName(), err)
	}
}

// shiftTimes moves every RFC 3339 time in v by d.
func shiftTimes(v any, d time.Duration) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = shiftTimes(e, d)
		}
	case []any:
		for i, e := range x {
			x[i] = shiftTimes(e, d)
		}
	case string:
		if len(x) >= 20 && x[4] == '-' && x[10] == 'T' {
			if ts, err := time.Parse(time.RFC3339, x); err == nil {
				return ts.Add(d).UTC().Format(time.RFC3339)
			}
		}
	}
	return v
}

// createEvent records a captured event about the object it names, now
// created in ns (events about cluster-scoped objects go to "default").
func createEvent(t *testing.T, c *testcluster.Cluster, e corev1.Event, ns string, created map[string]runtime.Object, shift time.Duration) {
	t.Helper()
	key := e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name
	obj, ok := created[key]
	if !ok {
		if e.InvolvedObject.Kind == "Node" && e.InvolvedObject.Name == c.NodeName {
			n, err := c.Client.CoreV1().Nodes().Get(t.Context(), c.NodeName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			obj = n
		} else if e.InvolvedObject.Kind == "Pod" {
			// A deleted pod's events outlive it (a Job's pod removed by
			// the cluster autoscaler): the event names a pod that is gone.
			obj = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: e.InvolvedObject.Name, Namespace: ns, UID: types.UID("deleted-" + e.InvolvedObject.Name)}}
		} else {
			t.Logf("event %s about %s, which the capture does not hold: skipped", e.Reason, key)
			return
		}
	}
	component := e.Source.Component
	c.Event(t, testcluster.EventSpec{Object: obj, Kind: e.InvolvedObject.Kind, APIVersion: apiVersionOf(obj),
		Type: e.Type, Reason: e.Reason, Message: e.Message, Count: e.Count,
		First: e.FirstTimestamp.Add(shift), Last: e.LastTimestamp.Add(shift), FieldPath: e.InvolvedObject.FieldPath, Component: component})
}

func apiVersionOf(obj runtime.Object) string {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.GetAPIVersion()
	}
	return "v1"
}

// scenarioOf turns a corpus directory into an e2e scenario.
func scenarioOf(s scenarios.Scenario) scenario {
	m := s.Meta
	return scenario{
		name: s.Name, category: m.Category, culprit: m.Culprit, healthy: m.Healthy, state: m.State, dir: &s,
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string { return loadScenario(t, c, s, ns) },
	}
}

// capturedScenarios is the corpus of test/scenarios.
func capturedScenarios() []scenario {
	all, err := scenarios.All(scenarios.Root())
	if err != nil {
		panic(err)
	}
	var out []scenario
	for _, s := range all {
		out = append(out, scenarioOf(s))
	}
	return out
}

// capture saves a passing scenario's workspace as its corpus directory.
func capture(t *testing.T, sc scenario, workspace string, args []string, ns string) {
	t.Helper()
	rep := readReportJSON(t, workspace)
	meta := scenarios.Meta{Args: args, Namespace: ns, Category: sc.category, Culprit: sc.culprit, Healthy: sc.healthy,
		State:  sc.state,
		Target: fault.Resource{APIVersion: rep.Resource.APIVersion, Kind: rep.Resource.Kind, Name: rep.Resource.Name, Namespace: rep.Resource.Namespace},
		Source: "written as a Go setup in test/e2e/" + sc.file + "; captured from the e2e control plane (make capture-scenarios)"}
	if sc.source != "" {
		meta.Source = "material: " + sc.source + "; " + meta.Source
	}
	if sc.dir != nil {
		meta.Source = sc.dir.Meta.Source
	}
	if err := scenarios.Capture(workspace, filepath.Join(captureRoot, sc.name), meta); err != nil {
		t.Fatal(err)
	}
}

// applyNamespaceStatus gives ns the captured namespace's phase and
// conditions (a Terminating namespace and its deleter's conditions), as
// the scenario's Go setup wrote them through the status subresource.
func applyNamespaceStatus(t *testing.T, c *testcluster.Cluster, ns string, u *unstructured.Unstructured) {
	t.Helper()
	var captured corev1.Namespace
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &captured); err != nil {
		t.Fatal(err)
	}
	if len(captured.Status.Conditions) == 0 && captured.Status.Phase != corev1.NamespaceTerminating {
		return
	}
	ri := c.Client.CoreV1().Namespaces()
	if captured.Status.Phase == corev1.NamespaceTerminating {
		// The harness runs no namespace controller: the namespace's own
		// finalizer keeps it Terminating, as the deleter left it.
		if err := ri.Delete(t.Context(), ns, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete namespace %s: %v", ns, err)
		}
	}
	got, err := ri.Get(t.Context(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Status = captured.Status
	if _, err := ri.UpdateStatus(t.Context(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("namespace %s status: %v", ns, err)
	}
}

// pointAtFakeKubelet gives a captured node the fake node's addresses and
// kubelet endpoint: the port it was captured with is another run's.
func pointAtFakeKubelet(t *testing.T, c *testcluster.Cluster, u *unstructured.Unstructured) {
	t.Helper()
	fake, err := c.Client.CoreV1().Nodes().Get(t.Context(), c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("read node %s: %v", c.NodeName, err)
	}
	st, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&fake.Status)
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(u.Object, st["daemonEndpoints"], "status", "daemonEndpoints"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(u.Object, st["addresses"], "status", "addresses"); err != nil {
		t.Fatal(err)
	}
}

// applyHarnessNode gives the harness's node the labels and taints a
// scenario captured on it (a cluster in the material whose every node is
// labelled so), for the scenario only: they are taken off again after it.
func applyHarnessNode(t *testing.T, c *testcluster.Cluster, u *unstructured.Unstructured) {
	t.Helper()
	var captured corev1.Node
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &captured); err != nil {
		t.Fatalf("captured node %s: %v", c.NodeName, err)
	}
	live, err := c.Client.CoreV1().Nodes().Get(t.Context(), c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("read node %s: %v", c.NodeName, err)
	}
	var added []string
	for k, v := range captured.Labels {
		if _, ok := live.Labels[k]; !ok {
			live.Labels[k] = v
			added = append(added, k)
		}
	}
	var taints []corev1.Taint
	for _, tn := range captured.Spec.Taints {
		if !slices.ContainsFunc(live.Spec.Taints, func(x corev1.Taint) bool { return x.Key == tn.Key && x.Effect == tn.Effect }) {
			taints = append(taints, tn)
		}
	}
	if len(added) == 0 && len(taints) == 0 {
		return
	}
	original := slices.Clone(live.Spec.Taints)
	live.Spec.Taints = append(live.Spec.Taints, taints...)
	if _, err := c.Client.CoreV1().Nodes().Update(context.Background(), live, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("label node %s: %v", c.NodeName, err)
	}
	t.Cleanup(func() {
		n, err := c.Client.CoreV1().Nodes().Get(context.Background(), c.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Errorf("read node %s: %v", c.NodeName, err)
			return
		}
		for _, k := range added {
			delete(n.Labels, k)
		}
		n.Spec.Taints = original
		if _, err := c.Client.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
			t.Errorf("restore node %s: %v", c.NodeName, err)
		}
	})
}
