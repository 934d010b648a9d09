package testcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/retry"
)

// AnnotationUnscheduled on a pod passed to CreatePod keeps spec.nodeName
// empty (a pod the scheduler has not placed).
const AnnotationUnscheduled = "testcluster/unscheduled"

// requestTimeout bounds each helper call so a wedged apiserver fails the
// test instead of hanging it until the global go test timeout.
const requestTimeout = 30 * time.Second

func reqCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), requestTimeout)
}

var nonDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// Namespace creates a fresh namespace named after the test plus a random
// suffix, with its "default" ServiceAccount and "kube-root-ca.crt"
// ConfigMap, as controllers would add them. It is never deleted: there is
// no namespace controller to finalize it, and the cluster is thrown away.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	base := nonDNS.ReplaceAllString(strings.ToLower(t.Name()), "-")
	base = strings.Trim(base, "-")
	const suffixLen = 5
	if maxLen := 63 - 1 - suffixLen; len(base) > maxLen {
		base = strings.TrimRight(base[:maxLen], "-")
	}
	if base == "" {
		base = "test"
	}
	return c.NamespaceNamed(t, base+"-"+utilrand.String(suffixLen))
}

// NamespaceNamed is Namespace with the exact name: a captured scenario
// (test/scenarios) is loaded into the namespace it was captured in, so the
// live report names what the golden one does.
func (c *Cluster) NamespaceNamed(t testing.TB, name string) string {
	t.Helper()
	ctx, cancel := reqCtx()
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	if err := c.ensureNamespaceDefaults(ctx, name); err != nil {
		t.Fatal(err)
	}
	return name
}

// CreatePod creates pod, binding it to the fake node unless spec.nodeName is
// set or the pod has the annotation testcluster/unscheduled=true. The
// apiserver drops status on create, so a non-zero pod.Status is written
// afterwards through the status subresource. Returns the stored pod.
func (c *Cluster) CreatePod(t testing.TB, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	pod = pod.DeepCopy()
	if pod.Spec.NodeName == "" && pod.Annotations[AnnotationUnscheduled] != "true" {
		pod.Spec.NodeName = c.NodeName
	}
	if pod.Namespace == "" {
		t.Fatalf("CreatePod %s: namespace is empty (use c.Namespace(t))", pod.Name)
	}
	ctx, cancel := reqCtx()
	defer cancel()
	created, err := c.Client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
	if reflect.ValueOf(pod.Status).IsZero() {
		return created
	}
	created.Status = pod.Status
	return c.SetStatus(t, created)
}

// SetStatus writes pod.Status through the status subresource (what a
// kubelet would do), retrying on conflicts with the latest resourceVersion.
// Returns the stored pod.
func (c *Cluster) SetStatus(t testing.TB, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	ctx, cancel := reqCtx()
	defer cancel()
	pods := c.Client.CoreV1().Pods(pod.Namespace)
	obj := pod.DeepCopy()
	var out *corev1.Pod
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		out, err = pods.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		// Refresh the resourceVersion, keep the wanted status.
		if latest, getErr := pods.Get(ctx, pod.Name, metav1.GetOptions{}); getErr == nil {
			latest.Status = pod.Status
			obj = latest
		}
		return err
	})
	if err != nil {
		t.Fatalf("update status of pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
	return out
}

// EventSpec describes a core/v1 Event about Object.
type EventSpec struct {
	// Object is the stored object the event is about (it must carry a UID,
	// i.e. come back from the apiserver). Its kind is looked up in the
	// client-go scheme unless Kind/APIVersion are set.
	Object     runtime.Object
	Kind       string
	APIVersion string

	Type      string    // default "Warning"
	Reason    string    // e.g. "BackOff"
	Message   string    //
	Count     int32     // default 1
	First     time.Time // firstTimestamp, default now (or Last if that is earlier)
	Last      time.Time // lastTimestamp, default now (or First if that is later)
	FieldPath string    // e.g. "spec.containers{app}"
	Component string    // source.component / reportingComponent, default "kubelet"
	Host      string    // source.host, default the fake node for component kubelet
}

// Event creates a core/v1 Event in the object's namespace ("default" for
// cluster-scoped objects such as Nodes, as the real components do) and
// returns the stored event.
func (c *Cluster) Event(t testing.TB, e EventSpec) *corev1.Event {
	t.Helper()
	if e.Object == nil {
		t.Fatal("Event: Object is nil")
	}
	m, err := meta.Accessor(e.Object)
	if err != nil {
		t.Fatalf("Event: %v", err)
	}
	if m.GetUID() == "" {
		t.Fatalf("Event: %s has no UID; pass the object returned by the apiserver", m.GetName())
	}
	if e.Kind == "" || e.APIVersion == "" {
		gvk, err := objectGVK(e.Object)
		if err != nil {
			t.Fatalf("Event: %v", err)
		}
		if e.Kind == "" {
			e.Kind = gvk.Kind
		}
		if e.APIVersion == "" {
			e.APIVersion = gvk.GroupVersion().String()
		}
	}
	if e.Type == "" {
		e.Type = corev1.EventTypeWarning
	}
	if e.Count == 0 {
		e.Count = 1
	}
	now := time.Now()
	if e.First.IsZero() {
		e.First = now
		if !e.Last.IsZero() && e.Last.Before(now) {
			e.First = e.Last
		}
	}
	if e.Last.IsZero() {
		e.Last = now
		if e.First.After(now) {
			e.Last = e.First
		}
	}
	if e.Component == "" {
		e.Component = "kubelet"
	}
	if e.Host == "" && e.Component == "kubelet" {
		e.Host = c.NodeName
	}
	ns := m.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: m.GetName() + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{
			APIVersion:      e.APIVersion,
			Kind:            e.Kind,
			Name:            m.GetName(),
			Namespace:       m.GetNamespace(),
			UID:             m.GetUID(),
			ResourceVersion: m.GetResourceVersion(),
			FieldPath:       e.FieldPath,
		},
		Type:                e.Type,
		Reason:              e.Reason,
		Message:             e.Message,
		Count:               e.Count,
		FirstTimestamp:      metav1.NewTime(e.First),
		LastTimestamp:       metav1.NewTime(e.Last),
		Source:              corev1.EventSource{Component: e.Component, Host: e.Host},
		ReportingController: e.Component,
		ReportingInstance:   e.Host,
	}
	ctx, cancel := reqCtx()
	defer cancel()
	out, err := c.Client.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create event %s for %s %s: %v", e.Reason, e.Kind, m.GetName(), err)
	}
	return out
}

// objectGVK finds the kind of a typed (client-go scheme) or unstructured
// object; typed objects from the clientset have an empty TypeMeta.
func objectGVK(obj runtime.Object) (schema.GroupVersionKind, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" && gvk.Version != "" {
		return gvk, nil
	}
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("kind of %T: %w", obj, err)
	}
	return gvks[0], nil
}

func newMapper(client kubernetes.Interface) *restmapper.DeferredDiscoveryRESTMapper {
	// Deferred + cached: discovery runs on first use and again when a kind
	// is unknown (e.g. after a test installs a CRD).
	return restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
}

// resourceFor maps obj to its dynamic resource client, and returns obj as
// unstructured.
func (c *Cluster) resourceFor(obj runtime.Object) (dynamic.ResourceInterface, *unstructured.Unstructured, error) {
	gvk, err := objectGVK(obj)
	if err != nil {
		return nil, nil, err
	}
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", gvk, err)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, nil, fmt.Errorf("convert %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		return c.Dynamic.Resource(mapping.Resource), u, nil
	}
	if u.GetNamespace() == "" {
		return nil, nil, fmt.Errorf("%s %s: namespace is empty (use c.Namespace(t))", gvk.Kind, u.GetName())
	}
	return c.Dynamic.Resource(mapping.Resource).Namespace(u.GetNamespace()), u, nil
}

// fromUnstructured overwrites obj (a pointer to a typed or unstructured
// object) with u.
func fromUnstructured(u *unstructured.Unstructured, obj runtime.Object) error {
	if uo, ok := obj.(*unstructured.Unstructured); ok {
		uo.Object = u.Object
		return nil
	}
	v := reflect.ValueOf(obj).Elem()
	v.Set(reflect.Zero(v.Type())) // FromUnstructured would merge into old field values
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj)
}

// hasStatus reports whether obj carries a non-zero status to write.
func hasStatus(obj runtime.Object) bool {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		return len(st) > 0
	}
	v := reflect.Indirect(reflect.ValueOf(obj))
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("Status")
	return f.IsValid() && !f.IsZero()
}

// Create creates any object of a kind the apiserver serves (typed objects
// from k8s.io/api, or *unstructured.Unstructured): ConfigMap, Secret,
// Service, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
// PVC, Node, RBAC objects, CRs... A non-zero status is then written through
// the status subresource, since the apiserver drops it on create for most
// kinds. obj is overwritten with the stored object (so it has UID,
// resourceVersion, defaults). Pods should go through CreatePod, which binds
// them to the fake node.
func (c *Cluster) Create(t testing.TB, obj runtime.Object) {
	t.Helper()
	ri, u, err := c.resourceFor(obj)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	ctx, cancel := reqCtx()
	defer cancel()
	out, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	if hasStatus(obj) {
		if status, ok := u.Object["status"]; ok {
			out.Object["status"] = status
			if out, err = ri.UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("write status of %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
			}
		}
	}
	if err := fromUnstructured(out, obj); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

// Get reads the stored version of obj (named by its kind, namespace and
// name) into obj; the error is the API server's, e.g. NotFound.
func (c *Cluster) Get(obj runtime.Object) error {
	ri, u, err := c.resourceFor(obj)
	if err != nil {
		return err
	}
	ctx, cancel := reqCtx()
	defer cancel()
	out, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	return fromUnstructured(out, obj)
}

// Replace overwrites an existing object with obj (what it holds beside
// status, then a non-zero status through the status subresource), e.g. a
// namespace's default ServiceAccount. obj is overwritten with the stored
// object.
func (c *Cluster) Replace(t testing.TB, obj runtime.Object) {
	t.Helper()
	ri, u, err := c.resourceFor(obj)
	if err != nil {
		t.Fatalf("Replace: %v", err)
	}
	ctx, cancel := reqCtx()
	defer cancel()
	var out *unstructured.Unstructured
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		u.SetResourceVersion(cur.GetResourceVersion())
		u.SetUID(cur.GetUID())
		out, err = ri.Update(ctx, u, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("replace %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	if err := fromUnstructured(out, obj); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	if status, ok := u.Object["status"]; ok && hasStatus(u) {
		o := obj.DeepCopyObject()
		if ou, ok := o.(*unstructured.Unstructured); ok {
			ou.Object["status"] = status
			c.SetObjectStatus(t, ou)
			_ = fromUnstructured(ou, obj)
		}
	}
}

// SetObjectStatus writes obj's status through the status subresource of its
// kind (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, Node, Pod, ...),
// retrying on conflicts with the latest resourceVersion. obj is overwritten
// with the stored object.
func (c *Cluster) SetObjectStatus(t testing.TB, obj runtime.Object) {
	t.Helper()
	ri, u, err := c.resourceFor(obj)
	if err != nil {
		t.Fatalf("SetObjectStatus: %v", err)
	}
	status, ok := u.Object["status"]
	if !ok {
		t.Fatalf("SetObjectStatus: %s %s has no status", u.GetKind(), u.GetName())
	}
	ctx, cancel := reqCtx()
	defer cancel()
	cur := u
	var out *unstructured.Unstructured
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		out, err = ri.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		if latest, getErr := ri.Get(ctx, u.GetName(), metav1.GetOptions{}); getErr == nil {
			latest.Object["status"] = status
			cur = latest
		}
		return err
	})
	if err != nil {
		t.Fatalf("update status of %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	if err := fromUnstructured(out, obj); err != nil {
		t.Fatalf("SetObjectStatus: %v", err)
	}
}

// Env returns the environment for running kubectl or the plugin as the code
// under test: the current environment plus KUBECONFIG=UserKubeconfig and a
// KUBECACHEDIR inside Dir. Without the latter every run would leave a
// discovery cache per random port in ~/.kube/cache. The cache is shared by
// all runs against this cluster, so only the first run does full discovery.
func (c *Cluster) Env() []string {
	return append(os.Environ(),
		"KUBECONFIG="+c.UserKubeconfig,
		"KUBECACHEDIR="+filepath.Join(c.Dir, "kube-cache"),
	)
}

// Kubectl runs the built kubectl as triage-user (see Env) and returns its
// combined output; it fails the test if kubectl exits non-zero.
func (c *Cluster) Kubectl(t testing.TB, args ...string) string {
	t.Helper()
	ctx, cancel := reqCtx()
	defer cancel()
	cmd := exec.CommandContext(ctx, c.KubectlPath, args...)
	cmd.Env = c.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
