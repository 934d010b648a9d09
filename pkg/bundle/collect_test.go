package bundle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// These tests pin what Collect asks the API server for (the fake clientset
// records every request; it ignores field selectors and limits, so results
// are checked on the real control plane in test/e2e/bundle_collect_test.go).

const ns = "shop"

func asTarget(t *testing.T, obj runtime.Object, gvk schema.GroupVersionKind) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u
}

func collect(t *testing.T, cs *fake.Clientset, target *unstructured.Unstructured) *Bundle {
	t.Helper()
	b, err := Collect(context.Background(), cs, target, ClusterInfo{}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// Every request is counted: the budget tests rely on it.
	if got := len(cs.Actions()); b.Requests != got {
		t.Errorf("Requests = %d, but %d requests were made: %v", b.Requests, got, describe(cs.Actions()))
	}
	return b
}

// listed returns the list requests for resource, with their namespace and
// field selector.
func listed(cs *fake.Clientset, resource string) []k8stesting.ListActionImpl {
	var out []k8stesting.ListActionImpl
	for _, a := range cs.Actions() {
		if l, ok := a.(k8stesting.ListActionImpl); ok && a.GetResource().Resource == resource {
			out = append(out, l)
		}
	}
	return out
}

func gets(cs *fake.Clientset, resource string) []string {
	var out []string
	for _, a := range cs.Actions() {
		if g, ok := a.(k8stesting.GetActionImpl); ok && a.GetResource().Resource == resource {
			out = append(out, g.Namespace+"/"+g.Name)
		}
	}
	return out
}

func describe(actions []k8stesting.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace())
	}
	return out
}

func TestEventSelector(t *testing.T) {
	for _, tc := range []struct {
		ref  fault.Resource
		want string
	}{
		{fault.Resource{Kind: "Pod", Name: "api", Namespace: ns, UID: "u-1"}, "involvedObject.uid=u-1"},
		{fault.Resource{Kind: "PersistentVolume", Name: "pv-1", UID: "u-2"}, "involvedObject.uid=u-2"},
		// The kubelet files node events with uid = the node's name.
		{fault.Resource{Kind: "Node", Name: "worker-1", UID: "0b9e-real-uid"}, "involvedObject.kind=Node,involvedObject.name=worker-1"},
	} {
		if got := eventSelector(tc.ref); got != tc.want {
			t.Errorf("eventSelector(%s) = %q, want %q", tc.ref.Kind, got, tc.want)
		}
	}
}

// A pod's node's events are read by kind and name in "default", one request
// per node, and never with a cluster-wide list.
func TestNodeEventsByKindAndName(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "node-uid"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns, UID: "pod-uid"},
		Spec: corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "c", Image: "x"}}}}
	cs := fake.NewClientset(node, pod, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}})
	b := collect(t, cs, asTarget(t, pod, gvkPod))
	if b.Node("worker-1") == nil {
		t.Fatalf("node not collected")
	}
	var nodeLists, podLists int
	for _, l := range listed(cs, "events") {
		sel := l.GetListRestrictions().Fields.String()
		switch {
		case l.Namespace == "":
			t.Errorf("cluster-wide event list: %s", sel)
		case sel == "involvedObject.kind=Node,involvedObject.name=worker-1":
			nodeLists++
			if l.Namespace != metav1.NamespaceDefault {
				t.Errorf("node events listed in %q, want default", l.Namespace)
			}
		case sel == "involvedObject.uid=pod-uid" && l.Namespace == ns:
			podLists++
		default:
			t.Errorf("unexpected event list in %s: %q", l.Namespace, sel)
		}
	}
	if nodeLists != 1 || podLists != 1 {
		t.Errorf("event lists: %d for the node, %d for the pod; want 1 each", nodeLists, podLists)
	}
}

func TestTemplateRefs(t *testing.T) {
	tmpl := func(sa string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "c"}}}}
	}
	meta := metav1.ObjectMeta{Name: "w", Namespace: ns}
	for _, tc := range []struct {
		obj  runtime.Object
		gvk  schema.GroupVersionKind
		want string // "" = no ref
		by   string
	}{
		{&appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Template: tmpl("builder")}}, gvkDeployment, "builder", "deployment/w pod template"},
		{&appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Template: tmpl("")}}, gvkDeployment, "default", "deployment/w pod template"},
		{&appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Template: tmpl("db")}}, gvkStatefulSet, "db", "statefulset/w pod template"},
		{&appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Template: tmpl("agent")}}, gvkDaemonSet, "agent", "daemonset/w pod template"},
		{&appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Template: tmpl("rs")}}, gvkReplicaSet, "rs", "replicaset/w pod template"},
		{&batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{Template: tmpl("migrate")}}, gvkJob, "migrate", "job/w pod template"},
		{&batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl("nightly")}}}}, gvkCronJob, "nightly", "cronjob/w pod template"},
		{&corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{ServiceAccountName: "x"}}, gvkPod, "", ""},
	} {
		refs := templateRefs(asTarget(t, tc.obj, tc.gvk))
		switch {
		case tc.want == "" && len(refs) != 0:
			t.Errorf("%s: refs %+v, want none", tc.gvk.Kind, refs)
		case tc.want == "":
		case len(refs) != 1 || refs[0].ServiceAccount != tc.want || refs[0].Namespace != ns || refs[0].By != tc.by:
			t.Errorf("%s: refs %+v, want %s in %s by %q", tc.gvk.Kind, refs, tc.want, ns, tc.by)
		}
	}
	// The deprecated spec.serviceAccount alias is still honoured.
	d := asTarget(t, &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{DeprecatedServiceAccount: "legacy"}}}}, gvkDeployment)
	if refs := templateRefs(d); len(refs) != 1 || refs[0].ServiceAccount != "legacy" {
		t.Errorf("deprecated serviceAccount: %+v", refs)
	}
}

// A workload with no pod still has its template's ServiceAccount checked,
// so a missing one is evidence; with pods using it, it is fetched once.
func TestTemplateServiceAccount(t *testing.T) {
	labels := map[string]string{"app": "api"}
	deploy := func(sa string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns, UID: "d-uid"},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "c", Image: "x"}}}}}}
	}

	t.Run("no pods, missing", func(t *testing.T) {
		d := deploy("builder")
		cs := fake.NewClientset(d)
		b := collect(t, cs, asTarget(t, d, gvkDeployment))
		if !b.IsMissing("ServiceAccount", ns, "builder") {
			t.Fatalf("missing ServiceAccount not recorded: %+v", b.Missing)
		}
		if got := b.Missing[0].ReferencedBy; got != "deployment/api pod template" {
			t.Errorf("ReferencedBy = %q", got)
		}
	})

	t.Run("pods share it", func(t *testing.T) {
		d := deploy("builder")
		ctrl := true
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "api-1", Namespace: ns, UID: "rs-uid", Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "api", UID: "d-uid", Controller: &ctrl}}},
			Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}}}
		var objs []runtime.Object
		objs = append(objs, d, rs, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: ns}})
		for _, name := range []string{"api-1-a", "api-1-b"} {
			objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(name), Labels: labels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "api-1", UID: "rs-uid", Controller: &ctrl}}},
				Spec: corev1.PodSpec{ServiceAccountName: "builder", Containers: []corev1.Container{{Name: "c", Image: "x"}}}})
		}
		cs := fake.NewClientset(objs...)
		b := collect(t, cs, asTarget(t, d, gvkDeployment))
		if len(b.Pods) != 2 {
			t.Fatalf("pods: %d", len(b.Pods))
		}
		if got := gets(cs, "serviceaccounts"); len(got) != 1 || got[0] != ns+"/builder" {
			t.Errorf("serviceaccount gets %v, want one of %s/builder", got, ns)
		}
		if len(b.ServiceAccounts) != 1 || len(b.Missing) != 0 {
			t.Errorf("service accounts %d, missing %+v", len(b.ServiceAccounts), b.Missing)
		}
	})

	// A pod target's account is read for its imagePullSecrets, when an
	// image cannot be pulled; otherwise nothing about the pod reads it.
	t.Run("pod target", func(t *testing.T) {
		for _, waiting := range []string{"ImagePullBackOff", "CrashLoopBackOff"} {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns, UID: "p-uid"},
				Spec: corev1.PodSpec{ServiceAccountName: "runner", Containers: []corev1.Container{{Name: "c", Image: "x"}}},
				Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "c",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting}}}}}}
			cs := fake.NewClientset(pod)
			b := collect(t, cs, asTarget(t, pod, gvkPod))
			got := gets(cs, "serviceaccounts")
			if waiting == "ImagePullBackOff" && (len(got) != 1 || !b.IsMissing("ServiceAccount", ns, "runner") || b.Missing[0].ReferencedBy != "pod/p") {
				t.Errorf("%s: gets %v, missing %+v", waiting, got, b.Missing)
			}
			if waiting != "ImagePullBackOff" && len(got) != 0 {
				t.Errorf("%s: gets %v, want none", waiting, got)
			}
		}
	})
}

func pvc(name string, class *string, phase corev1.PersistentVolumeClaimPhase) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name)},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: phase}}
}

func ptrTo[T any](v T) *T { return &v }

var gvkPVC = corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim")

func TestClaimStorageLists(t *testing.T) {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-small", UID: "pv-uid"},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}
	local := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "local"}, Provisioner: noProvisioner}
	standard := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Provisioner: "ebs.csi.aws.com"}
	defaultClass := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "gp3",
		Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "ebs.csi.aws.com"}

	for _, tc := range []struct {
		name        string
		claim       *corev1.PersistentVolumeClaim
		objs        []runtime.Object
		listPVs     bool
		listClasses bool
		missing     string // StorageClass recorded missing
		classes     []string
	}{
		{name: "empty class pending", claim: pvc("data", ptrTo(""), corev1.ClaimPending), listPVs: true},
		{name: "empty class bound", claim: pvc("data", ptrTo(""), corev1.ClaimBound)},
		{name: "no-provisioner pending", claim: pvc("data", ptrTo("local"), corev1.ClaimPending), objs: []runtime.Object{local}, listPVs: true, classes: []string{"local"}},
		{name: "dynamic class pending", claim: pvc("data", ptrTo("standard"), corev1.ClaimPending), objs: []runtime.Object{standard}, classes: []string{"standard"}},
		{name: "missing class", claim: pvc("data", ptrTo("fast-ssd"), corev1.ClaimPending), objs: []runtime.Object{standard, local},
			listClasses: true, missing: "fast-ssd", classes: []string{"local", "standard"}},
		{name: "unset class, default exists", claim: pvc("data", nil, corev1.ClaimPending), objs: []runtime.Object{defaultClass, standard},
			listClasses: true, classes: []string{"gp3", "standard"}},
		{name: "unset class, no default", claim: pvc("data", nil, corev1.ClaimPending), objs: []runtime.Object{standard},
			listClasses: true, listPVs: true, classes: []string{"standard"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset(append([]runtime.Object{pv, tc.claim}, tc.objs...)...)
			b := collect(t, cs, asTarget(t, tc.claim, gvkPVC))
			pvLists, classLists := listed(cs, "persistentvolumes"), listed(cs, "storageclasses")
			if got := len(pvLists) == 1; got != tc.listPVs || len(pvLists) > 1 {
				t.Errorf("%d PV lists, want listed=%v", len(pvLists), tc.listPVs)
			}
			for _, l := range pvLists {
				if l.GetListRestrictions().Labels.String() != "" || l.Namespace != "" {
					t.Errorf("PV list %+v", l)
				}
			}
			if tc.listPVs && (len(b.PVs) != 1 || b.PVs[0].Name != "pv-small") {
				t.Errorf("PVs %v, want pv-small", b.PVs)
			}
			if !tc.listPVs && len(b.PVs) != 0 {
				t.Errorf("PVs collected without reason: %d", len(b.PVs))
			}
			if got := len(classLists) == 1; got != tc.listClasses || len(classLists) > 1 {
				t.Errorf("%d StorageClass lists, want listed=%v", len(classLists), tc.listClasses)
			}
			if tc.missing != "" && !b.IsMissing("StorageClass", "", tc.missing) {
				t.Errorf("missing class not recorded: %+v", b.Missing)
			}
			var names []string
			for _, sc := range b.StorageClasses {
				names = append(names, sc.Name)
			}
			if len(names) != len(tc.classes) || (len(names) > 0 && names[0] != tc.classes[0]) || (len(names) > 1 && names[1] != tc.classes[1]) {
				t.Errorf("classes %v, want %v", names, tc.classes)
			}
		})
	}
}

// Two Pending claims of a pod that both bind statically list the PVs once.
func TestPVsListedOnce(t *testing.T) {
	a, b2 := pvc("a", ptrTo(""), corev1.ClaimPending), pvc("b", ptrTo(""), corev1.ClaimPending)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns, UID: "pod-uid"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}, Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "a"}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "b"}}},
		}}}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}}
	cs := fake.NewClientset(pod, a, b2, pv)
	b := collect(t, cs, asTarget(t, pod, gvkPod))
	if n := len(listed(cs, "persistentvolumes")); n != 1 {
		t.Errorf("%d PV lists, want 1", n)
	}
	if len(b.PVCs) != 2 || len(b.PVs) != 1 {
		t.Errorf("PVCs %d PVs %d", len(b.PVCs), len(b.PVs))
	}
}

func hpa(name, kind, target string) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: kind, Name: target}, MaxReplicas: 5}}
}

func TestWorkloadPolicyObjects(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns, UID: "d-uid"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}}}
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: ns, UID: "lr-uid"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Max: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}}}}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "quota", Namespace: ns, UID: "q-uid"}}
	cs := fake.NewClientset(d, lr, quota,
		hpa("api", "Deployment", "api"), hpa("web", "Deployment", "web"), hpa("api-sts", "StatefulSet", "api"),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}})
	b := collect(t, cs, asTarget(t, d, gvkDeployment))

	if len(b.HPAs) != 1 || b.HPAs[0].Name != "api" {
		t.Errorf("HPAs %v, want only the one scaling deployment/api", b.HPAs)
	}
	if len(b.LimitRanges) != 1 || len(b.ResourceQuotas) != 1 || b.Namespace == nil {
		t.Errorf("limit ranges %d, quotas %d, namespace %v", len(b.LimitRanges), len(b.ResourceQuotas), b.Namespace)
	}
	for _, res := range []string{"horizontalpodautoscalers", "limitranges", "resourcequotas"} {
		if l := listed(cs, res); len(l) != 1 || l[0].Namespace != ns {
			t.Errorf("%s lists: %+v, want one in %s", res, l, ns)
		}
	}
	// The matching HPA's events are read, by uid, in the namespace.
	var hpaEvents bool
	for _, l := range listed(cs, "events") {
		if l.GetListRestrictions().Fields.String() == "involvedObject.uid=uid-api" && l.Namespace == ns {
			hpaEvents = true
		}
	}
	if !hpaEvents {
		t.Errorf("events of the HPA not read: %v", describe(cs.Actions()))
	}

	dir := t.TempDir()
	if err := b.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"limitrange-limits.json", "horizontalpodautoscaler-api.json", "resourcequota-quota.json"} {
		if _, err := os.Stat(filepath.Join(dir, ResourcesDir, f)); err != nil {
			t.Errorf("resources/%s: %v", f, err)
		}
	}
}

// A ReplicaSet target keeps the HPA of its owning Deployment; a Pod, a
// DaemonSet or a Job target lists no HPA.
func TestHPAScope(t *testing.T) {
	ctrl := true
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns, UID: "d-uid"}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "api-1", Namespace: ns, UID: "rs-uid",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "api", UID: "d-uid", Controller: &ctrl}}}}
	cs := fake.NewClientset(d, rs, hpa("api", "Deployment", "api"), hpa("other", "ReplicaSet", "api-2"))
	b := collect(t, cs, asTarget(t, rs, gvkReplicaSet))
	if len(b.HPAs) != 1 || b.HPAs[0].Name != "api" {
		t.Errorf("HPAs %v, want the owning deployment's", b.HPAs)
	}

	for _, target := range []*unstructured.Unstructured{
		asTarget(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns, UID: "p"}}, gvkPod),
		asTarget(t, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: ns, UID: "ds"}}, gvkDaemonSet),
		asTarget(t, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: ns, UID: "j"}}, gvkJob),
	} {
		cs := fake.NewClientset()
		collect(t, cs, target)
		if l := listed(cs, "horizontalpodautoscalers"); len(l) != 0 {
			t.Errorf("%s target lists HPAs", target.GetKind())
		}
		if target.GetKind() == "Pod" && (len(listed(cs, "limitranges")) != 0 || len(listed(cs, "resourcequotas")) != 0) {
			t.Errorf("pod target lists quotas or limit ranges: %v", describe(cs.Actions()))
		}
	}
}

// A ReplicaSet triaged directly brings its own pods, listed by its selector
// in its namespace, with or without a Deployment over it; pods its
// selector matches but another controller owns are left out.
func TestReplicaSetTargetPods(t *testing.T) {
	ctrl := true
	labels := map[string]string{"app": "web", "pod-template-hash": "abc"}
	owned := func(name string, rs types.UID) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(name), Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: rs, Controller: &ctrl}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}
	}
	for _, owner := range []string{"", "web"} {
		t.Run("owner "+owner, func(t *testing.T) {
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-abc", Namespace: ns, UID: "rs-uid", Labels: labels},
				Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}}}
			objs := []runtime.Object{rs, owned("web-abc-1", "rs-uid"), owned("web-abc-2", "rs-uid"), owned("stray", "other-uid"),
				&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns, UID: "db", Labels: map[string]string{"app": "db"}}}}
			if owner != "" {
				rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: owner, UID: "d-uid", Controller: &ctrl}}
				objs = append(objs, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: owner, Namespace: ns, UID: "d-uid"}})
			}
			cs := fake.NewClientset(objs...)
			b := collect(t, cs, asTarget(t, rs, gvkReplicaSet))
			var names []string
			for _, p := range b.Pods {
				names = append(names, p.Name)
			}
			if len(names) != 2 || names[0] == "stray" || names[1] == "stray" {
				t.Errorf("pods %v, want web-abc-1 and web-abc-2", names)
			}
			if owner != "" && len(b.Deployments) != 1 {
				t.Errorf("owning deployment not collected")
			}
			lists := listed(cs, "pods")
			if len(lists) != 1 || lists[0].Namespace != ns || lists[0].GetListRestrictions().Labels.String() != "app=web,pod-template-hash=abc" {
				t.Errorf("pod lists %+v, want one in %s by the ReplicaSet's selector", lists, ns)
			}
		})
	}
}

// cronRuns builds CronJob nightly with n runs, one a minute, the oldest
// first: all but the two newest are active (listed in status.active), the
// two newest have completed. Each run has a running pod; the oldest run
// has a crash-looping pod too. A run of another CronJob shares the
// namespace.
func cronRuns(n int) (*batchv1.CronJob, []runtime.Object) {
	ctrl := true
	start := metav1.Now().Add(-time.Duration(n+1) * time.Minute)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: ns, UID: "cj-uid"},
		Spec: batchv1.CronJobSpec{Schedule: "* * * * *", ConcurrencyPolicy: batchv1.AllowConcurrent}}
	var objs []runtime.Object
	pod := func(name string, j *batchv1.Job, ready corev1.ConditionStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(name), Labels: j.Spec.Template.Labels,
			CreationTimestamp: j.CreationTimestamp,
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: &ctrl}}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "task", Image: "x"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}}}
	}
	job := func(name string, owner types.UID, at time.Time) *batchv1.Job {
		uid := types.UID("uid-" + name)
		sel := map[string]string{batchv1.ControllerUidLabel: string(uid)}
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid, CreationTimestamp: metav1.NewTime(at),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "x", UID: owner, Controller: &ctrl}}},
			Spec: batchv1.JobSpec{Selector: &metav1.LabelSelector{MatchLabels: sel},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{batchv1.ControllerUidLabel: string(uid), batchv1.JobNameLabel: name}}}}}
	}
	for i := range n {
		j := job(fmt.Sprintf("nightly-%02d", i), cj.UID, start.Add(time.Duration(i)*time.Minute))
		if i < n-2 {
			j.Status.Active = 1
			cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{Kind: "Job", Namespace: ns, Name: j.Name, UID: j.UID})
		} else {
			j.Status.Succeeded = 1
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
		}
		objs = append(objs, j, pod(j.Name+"-ok", j, corev1.ConditionTrue))
		if i == 0 {
			objs = append(objs, pod(j.Name+"-crash", j, corev1.ConditionFalse))
		}
	}
	other := job("other-00", "other-cj", start)
	other.Status.Active = 1
	objs = append(objs, cj, other, pod("other-00-ok", other, corev1.ConditionFalse))
	return cj, objs
}

// A CronJob target brings its newest runs and its oldest active ones, and
// the pods of the newest run and of the oldest active runs: one list of
// Jobs and one of pods, both in the namespace, with at most MaxPods pods,
// so the requests do not grow with the number of runs.
func TestCronJobActiveRunPods(t *testing.T) {
	requests := map[int]int{}
	for _, n := range []int{12, 30} {
		t.Run(fmt.Sprint(n, " runs"), func(t *testing.T) {
			cj, objs := cronRuns(n)
			cs := fake.NewClientset(objs...)
			b := collect(t, cs, asTarget(t, cj, gvkCronJob))
			requests[n] = b.Requests

			var jobs []string
			for _, j := range b.Jobs {
				jobs = append(jobs, j.Name)
			}
			sort.Strings(jobs)
			// The five newest, and the five oldest active.
			want := []string{"nightly-00", "nightly-01", "nightly-02", "nightly-03", "nightly-04"}
			for i := n - 5; i < n; i++ {
				want = append(want, fmt.Sprintf("nightly-%02d", i))
			}
			if !slices.Equal(jobs, want) {
				t.Errorf("jobs %v, want %v", jobs, want)
			}

			var pods []string
			for _, p := range b.Pods {
				pods = append(pods, p.Name)
			}
			sort.Strings(pods)
			// The newest run's and the four oldest active runs', the
			// oldest run's unhealthy pod first.
			want = []string{"nightly-00-crash", "nightly-01-ok", "nightly-02-ok", "nightly-03-ok", fmt.Sprintf("nightly-%02d-ok", n-1)}
			if !slices.Equal(pods, want) {
				t.Errorf("pods %v, want %v", pods, want)
			}

			lists := listed(cs, "pods")
			if len(lists) != 1 || lists[0].Namespace != ns {
				t.Fatalf("pod lists %+v, want one in %s", lists, ns)
			}
			if sel := lists[0].GetListRestrictions().Labels.String(); !strings.HasPrefix(sel, batchv1.ControllerUidLabel+" in (") {
				t.Errorf("pods listed by %q, want a set-based selector of the runs' controller-uid", sel)
			}
			for _, a := range cs.Actions() {
				if a.GetVerb() == "list" && a.GetNamespace() == "" {
					t.Errorf("cluster-wide list of %s", a.GetResource().Resource)
				}
				if a.GetResource().Resource == "secrets" {
					t.Errorf("%s of secrets", a.GetVerb())
				}
			}
		})
	}
	if requests[12] != requests[30] {
		t.Errorf("requests grew with the runs: %d for 12, %d for 30", requests[12], requests[30])
	}
}

func TestJobPodSelectors(t *testing.T) {
	job := func(ls *metav1.LabelSelector) *batchv1.Job { return &batchv1.Job{Spec: batchv1.JobSpec{Selector: ls}} }
	uid := func(key, v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{key: v}}
	}
	got := jobPodSelectors([]*batchv1.Job{
		job(uid(batchv1.ControllerUidLabel, "b")),
		job(uid(batchv1.ControllerUidLabel, "a")),
		job(uid("controller-uid", "c")),                                                    // a Job created before 1.27
		job(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "x", "run": "1"}}), // manualSelector
		job(nil),
	})
	want := []string{"app=x,run=1", batchv1.ControllerUidLabel + " in (a,b)", "controller-uid in (c)"}
	if !slices.Equal(got, want) {
		t.Errorf("jobPodSelectors = %q, want %q", got, want)
	}
}
