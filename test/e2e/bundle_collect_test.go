package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// These tests run bundle.Collect on the real control plane, as the plugin
// does (the user's identity behind the read-only transport), and read the
// apiserver's audit log to see what it asked for.

// bcCollect collects the bundle of obj (a stored typed object) as the user
// under test and returns it with the user's requests.
func bcCollect(t *testing.T, c *testcluster.Cluster, obj runtime.Object, gvk schema.GroupVersionKind) (*bundle.Bundle, []testcluster.AuditEvent) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.UserKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(readonly.Config(cfg))
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	target := &unstructured.Unstructured{Object: m}
	target.SetGroupVersionKind(gvk)
	mark := c.AuditMark()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := bundle.Collect(ctx, cs, target, bundle.ClusterInfo{}, bundle.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return b, c.AuditSince(t, mark, c.UserName)
}

// bcNoUnfilteredLists fails on a list of pods or events without a selector.
func bcNoUnfilteredLists(t *testing.T, audit []testcluster.AuditEvent) {
	t.Helper()
	for _, e := range audit {
		if e.Verb == "list" && (e.Resource == "pods" || e.Resource == "events") && !strings.Contains(e.RequestURI, "Selector") {
			t.Errorf("unfiltered list: %s", e.RequestURI)
		}
	}
}

// bcDelete removes a cluster-scoped object this test created, finalizers
// first (no controller here would clear pv-protection), so later tests that
// list nodes, PVs or classes do not see it.
func bcDelete(t *testing.T, c *testcluster.Cluster, obj runtime.Object) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	switch o := obj.(type) {
	case *corev1.Node:
		err = c.Client.CoreV1().Nodes().Delete(ctx, o.Name, metav1.DeleteOptions{})
	case *storagev1.StorageClass:
		err = c.Client.StorageV1().StorageClasses().Delete(ctx, o.Name, metav1.DeleteOptions{})
	case *corev1.PersistentVolume:
		pvs := c.Client.CoreV1().PersistentVolumes()
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := pvs.Get(ctx, o.Name, metav1.GetOptions{})
			if err != nil || len(cur.Finalizers) == 0 {
				return err
			}
			cur.Finalizers = nil
			_, err = pvs.Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		if err == nil {
			err = pvs.Delete(ctx, o.Name, metav1.DeleteOptions{})
		}
	case *corev1.Event:
		err = c.Client.CoreV1().Events(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{})
	default:
		t.Fatalf("bcDelete: %T", obj)
	}
	if err != nil {
		t.Errorf("clean up %T: %v", obj, err)
	}
}

// The kubelet records node events with involvedObject.uid = the node's
// name; the node controller with its UID. Both are collected for the node a
// pod runs on, by kind and name in "default", and nothing about another node.
func TestCollectNodeEvents(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	name := "bc-node-" + utilrand.String(5)
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}},
	}
	c.Create(t, node)
	t.Cleanup(func() { bcDelete(t, c, node) })
	pod := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
		Spec: corev1.PodSpec{NodeName: name, Containers: []corev1.Container{{Name: "api", Image: "busybox"}}}})

	byKubelet := node.DeepCopy()
	byKubelet.UID = types.UID(name)
	other := node.DeepCopy()
	other.Name, other.UID = name+"-other", types.UID(name+"-other")
	for _, e := range []testcluster.EventSpec{
		{Object: byKubelet, Reason: "EvictionThresholdMet", Message: "Attempting to reclaim memory", Count: 3},
		{Object: node, Type: corev1.EventTypeNormal, Reason: "NodeNotReady", Message: "Node " + name + " status is now: NodeNotReady", Component: "node-controller"},
		{Object: other, Reason: "EvictionThresholdMet", Message: "another node"},
	} {
		ev := c.Event(t, e)
		t.Cleanup(func() { bcDelete(t, c, ev) })
	}

	b, audit := bcCollect(t, c, pod, corev1.SchemeGroupVersion.WithKind("Pod"))
	got := map[string]bool{}
	for _, e := range b.Events {
		if e.InvolvedObject.Kind != "Node" {
			continue
		}
		if e.InvolvedObject.Name != name {
			t.Errorf("collected an event of another node: %s %s", e.InvolvedObject.Name, e.Reason)
		}
		got[e.Reason] = true
	}
	if !got["EvictionThresholdMet"] || !got["NodeNotReady"] {
		t.Errorf("node events collected: %v, want the kubelet's EvictionThresholdMet and the controller's NodeNotReady", got)
	}
	bcNoUnfilteredLists(t, audit)
	nodeLists := 0
	for _, e := range audit {
		if e.Verb != "list" || e.Resource != "events" {
			continue
		}
		if e.Namespace == "" {
			t.Errorf("cluster-wide event list: %s", e.RequestURI)
		}
		if strings.Contains(e.RequestURI, "involvedObject.kind%3DNode") {
			nodeLists++
			if e.Namespace != metav1.NamespaceDefault || !strings.Contains(e.RequestURI, "involvedObject.name%3D"+name) {
				t.Errorf("node event list: %s", e.RequestURI)
			}
		}
	}
	if nodeLists != 1 {
		t.Errorf("%d event lists for the node, want 1", nodeLists)
	}
}

func bcClaim(t *testing.T, c *testcluster.Cluster, ns, name string, class *string) *corev1.PersistentVolumeClaim {
	t.Helper()
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class,
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}}},
	}
	c.Create(t, pvc)
	if pvc.Status.Phase != corev1.ClaimPending {
		t.Fatalf("claim %s is %q, want Pending", name, pvc.Status.Phase)
	}
	return pvc
}

func bcPV(t *testing.T, c *testcluster.Cluster, name, class string) *corev1.PersistentVolume {
	t.Helper()
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{StorageClassName: class,
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/" + name}}},
	}
	c.Create(t, pv)
	t.Cleanup(func() { bcDelete(t, c, pv) })
	return pv
}

func bcClass(t *testing.T, c *testcluster.Cluster, name, provisioner string) *storagev1.StorageClass {
	t.Helper()
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner}
	c.Create(t, sc)
	t.Cleanup(func() { bcDelete(t, c, sc) })
	return sc
}

func bcPVNames(b *bundle.Bundle) []string {
	var out []string
	for _, pv := range b.PVs {
		out = append(out, pv.Name)
	}
	return out
}

func bcContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A Pending claim that can only bind statically sees the PVs it could bind
// to; one a provisioner serves does not; a claim naming a class that does
// not exist sees the classes that do.
func TestCollectClaimStorage(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	sfx := utilrand.String(5)
	local := bcClass(t, c, "bc-local-"+sfx, "kubernetes.io/no-provisioner")
	dynamic := bcClass(t, c, "bc-dynamic-"+sfx, "example.com/csi")
	noClassPV := bcPV(t, c, "bc-pv-"+sfx, "")
	localPV := bcPV(t, c, "bc-local-pv-"+sfx, local.Name)
	pvc := corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim")

	t.Run("empty class", func(t *testing.T) {
		b, audit := bcCollect(t, c, bcClaim(t, c, ns, "static", bcPtr("")), pvc)
		if got := bcPVNames(b); !bcContains(got, noClassPV.Name) || !bcContains(got, localPV.Name) {
			t.Errorf("PVs %v, want %s and %s", got, noClassPV.Name, localPV.Name)
		}
		for _, e := range audit {
			if e.Resource == "persistentvolumes" && e.Verb == "list" && !strings.Contains(e.RequestURI, "limit=100") {
				t.Errorf("unbounded PV list: %s", e.RequestURI)
			}
		}
	})
	t.Run("no-provisioner class", func(t *testing.T) {
		b, _ := bcCollect(t, c, bcClaim(t, c, ns, "local", &local.Name), pvc)
		if got := bcPVNames(b); !bcContains(got, localPV.Name) {
			t.Errorf("PVs %v, want %s", got, localPV.Name)
		}
		if len(b.StorageClasses) != 1 || b.StorageClasses[0].Name != local.Name {
			t.Errorf("classes %v, want only %s", b.StorageClasses, local.Name)
		}
	})
	t.Run("provisioned class", func(t *testing.T) {
		b, audit := bcCollect(t, c, bcClaim(t, c, ns, "dynamic", &dynamic.Name), pvc)
		if len(b.PVs) != 0 {
			t.Errorf("PVs %v listed for a claim a provisioner serves", bcPVNames(b))
		}
		for _, e := range audit {
			if e.Resource == "persistentvolumes" || (e.Resource == "storageclasses" && e.Verb == "list") {
				t.Errorf("needless request: %s %s", e.Verb, e.RequestURI)
			}
		}
	})
	t.Run("missing class", func(t *testing.T) {
		missing := "bc-missing-" + sfx
		b, audit := bcCollect(t, c, bcClaim(t, c, ns, "typo", &missing), pvc)
		if !b.IsMissing("StorageClass", "", missing) {
			t.Errorf("missing class not recorded: %+v", b.Missing)
		}
		var classes []string
		for _, sc := range b.StorageClasses {
			classes = append(classes, sc.Name)
		}
		if !bcContains(classes, local.Name) || !bcContains(classes, dynamic.Name) {
			t.Errorf("classes %v, want the existing ones (%s, %s) to propose", classes, local.Name, dynamic.Name)
		}
		lists := 0
		for _, e := range audit {
			if e.Resource == "storageclasses" && e.Verb == "list" {
				lists++
				if !strings.Contains(e.RequestURI, "limit=100") {
					t.Errorf("unbounded class list: %s", e.RequestURI)
				}
			}
		}
		if lists != 1 {
			t.Errorf("%d StorageClass lists, want 1", lists)
		}
	})
}

// A Deployment whose pod template names a ServiceAccount that does not
// exist has no pod (admission refuses them): the template's reference is
// checked all the same.
func TestCollectWorkloadWithoutPods(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	labels := map[string]string{"app": "builder"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: bcPtr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{ServiceAccountName: "ci-bot", Containers: []corev1.Container{{Name: "b", Image: "busybox"}}}}},
	}
	c.Create(t, d)
	b, audit := bcCollect(t, c, d, appsv1.SchemeGroupVersion.WithKind("Deployment"))
	if len(b.Pods) != 0 {
		t.Fatalf("unexpected pods: %d", len(b.Pods))
	}
	if !b.IsMissing("ServiceAccount", ns, "ci-bot") {
		t.Fatalf("missing ServiceAccount not recorded: %+v (problems %+v)", b.Missing, b.Problems)
	}
	for _, m := range b.Missing {
		if m.Kind == "ServiceAccount" && m.ReferencedBy != "deployment/builder pod template" {
			t.Errorf("ReferencedBy %q", m.ReferencedBy)
		}
	}
	bcNoUnfilteredLists(t, audit)
}

// A Deployment's bundle holds the HPA that scales it (not the namespace's
// others) and the namespace's LimitRanges, written to resources/; the
// template's ServiceAccount, shared with the pods, is read once; and the
// request count stays bounded.
func TestCollectWorkloadPolicies(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web", Replicas: 2})
	for _, target := range []string{"web", "api"} {
		c.Create(t, &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: target, Namespace: ns},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: bcPtr(int32(2)), MaxReplicas: 10,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target}},
		})
	}
	c.Create(t, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: ns},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Max: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}}}}})

	mark := c.AuditMark()
	r := triage(t, c, ns, "deploy/web")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	requests := assertReadOnly(t, c, mark)
	audit := c.AuditSince(t, mark, c.UserName)
	dir := onlyWorkspace(t, r.root)
	assertWorkspace(t, dir, incident.Resolved)

	res := filepath.Join(dir, "context", "resources")
	for _, f := range []string{"horizontalpodautoscaler-web.json", "limitrange-limits.json"} {
		if _, err := os.Stat(filepath.Join(res, f)); err != nil {
			t.Errorf("resources/%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(res, "horizontalpodautoscaler-api.json")); err == nil {
		t.Errorf("the HPA of another deployment was collected")
	}
	bcNoUnfilteredLists(t, audit)
	saGets := 0
	for _, e := range audit {
		if e.Resource == "serviceaccounts" {
			saGets++
		}
	}
	if saGets != 1 {
		t.Errorf("%d ServiceAccount requests, want 1 (pods and template share it)", saGets)
	}
	if requests > 25 {
		t.Errorf("%d API requests for one deployment; collection is not bounded", requests)
	}
	t.Logf("%d API requests", requests)
}

func bcPtr[T any](v T) *T { return &v }
