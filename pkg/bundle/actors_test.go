package bundle

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// TestActors: a claim handed to an external provisioner that never
// answered is followed to the provisioner's pod by its Lease (the CSI
// sidecar's, named after the driver) or by the workload whose container
// names it; a pod naming another scheduler to a workload that runs
// --scheduler-name with it; nothing is read when nothing waits, and a
// search that finds nothing says what it read.
func TestActors(t *testing.T) {
	ready := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "provisioner", Ready: true}}}
	labels := map[string]string{"app": "nfs-client-provisioner"}
	nfsDep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nfs-client-provisioner", Namespace: "nfs"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "provisioner", Image: "quay.io/external_storage/nfs-client-provisioner:latest",
				Env: []corev1.EnvVar{{Name: "PROVISIONER_NAME", Value: "fuseim.pri/ifs"}}}}}}}}
	nfsPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nfs-client-provisioner-64b7476494-p4fcm", Namespace: "nfs", Labels: labels},
		Spec: nfsDep.Spec.Template.Spec, Status: ready}
	holder := "ebs-csi-controller-7f9c6d8b5-x2k4z"
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "ebs-csi-aws-com", Namespace: "kube-system"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
	csiPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: holder, Namespace: "kube-system"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "ebs-plugin"}, {Name: "csi-provisioner"}}}, Status: ready}
	sched := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "stork-scheduler", Namespace: "kube-system"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"component": "stork"}}, Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-scheduler", Command: []string{"/usr/local/bin/kube-scheduler", "--scheduler-name", "stork"}}}}}}}

	claim := func(prov string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "app", UID: "claim-uid",
			Annotations: map[string]string{"volume.kubernetes.io/storage-provisioner": prov}}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	}
	handed := corev1.Event{Reason: "ExternalProvisioning", InvolvedObject: corev1.ObjectReference{UID: "claim-uid"}}
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "app", CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))},
		Spec: corev1.PodSpec{SchedulerName: "stork"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}

	for _, tt := range []struct {
		name     string
		objects  []runtime.Object
		pvc      *corev1.PersistentVolumeClaim
		events   []corev1.Event
		pod      *corev1.Pod
		role     ActorRole
		forObj   string
		pods     []string
		workload string
		requests int // lease lists, gets, workload lists (3), pod list, log
	}{
		{"csi provisioner by its lease", []runtime.Object{lease, csiPod, nfsDep, nfsPod}, claim("ebs.csi.aws.com"), []corev1.Event{handed}, nil,
			RoleProvisioner, "pvc/data", []string{"kube-system/" + holder}, "Lease kube-system/ebs-csi-aws-com", 3},
		{"provisioner by its env", []runtime.Object{lease, csiPod, nfsDep, nfsPod}, claim("fuseim.pri/ifs"), []corev1.Event{handed}, nil,
			RoleProvisioner, "pvc/data", []string{"nfs/" + nfsPod.Name}, "Deployment nfs/nfs-client-provisioner", 7},
		{"provisioner that answered", []runtime.Object{nfsDep, nfsPod}, claim("fuseim.pri/ifs"),
			[]corev1.Event{handed, {Reason: "ProvisioningFailed", InvolvedObject: corev1.ObjectReference{UID: "claim-uid"}}}, nil, RoleProvisioner, "", nil, "", 0},
		{"scheduler by its flag", []runtime.Object{sched, nfsDep}, nil, nil, pending, RoleScheduler, "pod/web-0", nil, "Deployment kube-system/stork-scheduler", 4},
		{"no such scheduler", []runtime.Object{nfsDep}, nil, nil, pending, RoleScheduler, "pod/web-0", nil, "", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := fake.NewClientset(tt.objects...)
			b := &Bundle{Target: fault.Resource{Kind: "Pod", Name: "web-0", Namespace: "app"}, Events: tt.events}
			if tt.pvc != nil {
				b.PVCs = []*corev1.PersistentVolumeClaim{tt.pvc}
			}
			if tt.pod != nil {
				b.Pods = []*corev1.Pod{tt.pod}
			}
			c := &collector{cs: cs, opts: DefaultOptions(), seen: map[types.UID]bool{}, b: b}
			c.actors(context.Background())
			if c.b.Requests != tt.requests || len(cs.Actions()) != tt.requests {
				t.Errorf("requests counted %d, made %d, want %d", c.b.Requests, len(cs.Actions()), tt.requests)
			}
			a := c.b.Actor(tt.role, tt.forObj)
			if tt.forObj == "" {
				if len(c.b.Cluster.Actors) != 0 {
					t.Fatalf("actors %+v, want none", c.b.Cluster.Actors)
				}
				return
			}
			if a == nil {
				t.Fatalf("no %s search for %s", tt.role, tt.forObj)
			}
			if a.Workload != tt.workload || !slices.Equal(a.Pods, tt.pods) || !a.Complete || len(a.Searched) == 0 {
				t.Errorf("actor %+v, want workload %q pods %v, complete, with what was searched", a, tt.workload, tt.pods)
			}
			if got := len(c.b.ActorPods(a)); got != len(tt.pods) {
				t.Errorf("ActorPods: %d, want %d", got, len(tt.pods))
			}
		})
	}
}

// TestHolderPods: a Lease holder's identity is a pod name, or carries one
// between underscores (name_pod_uuid); a bare UUID or host is none.
func TestHolderPods(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want []string
	}{
		{"ebs-csi-controller-7f9c6d8b5-x2k4z", []string{"ebs-csi-controller-7f9c6d8b5-x2k4z"}},
		{"fuseim.pri/ifs_nfs-client-provisioner-64b7476494-p4fcm_dcfca333-3af5-11eb-8248-5aed4ceb7af7", []string{"nfs-client-provisioner-64b7476494-p4fcm", "dcfca333-3af5-11eb-8248-5aed4ceb7af7"}},
		{"node1", nil},
	} {
		if got := holderPods(tt.id); !slices.Equal(got, tt.want) {
			t.Errorf("holderPods(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

// TestProvisionerLeases: the CSI sidecar's lock and the old library's
// lock of one provisioner name.
func TestProvisionerLeases(t *testing.T) {
	if got := provisionerLeases("fuseim.pri/ifs"); !slices.Equal(got, []string{"fuseim-pri-ifs", "fuseim.pri-ifs"}) {
		t.Errorf("provisionerLeases = %v", got)
	}
	if got := provisionerLeases("ebs.csi.aws.com"); !slices.Equal(got, []string{"ebs-csi-aws-com", "ebs.csi.aws.com"}) {
		t.Errorf("provisionerLeases = %v", got)
	}
}
