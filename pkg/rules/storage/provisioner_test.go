package storage

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestWithProvisioner: a claim its external provisioner never answered is
// explained by the provisioner the collector found: its log line about
// the claim when it runs (the old nfs-client-provisioner against an API
// server without selfLink,
// https://github.com/kubernetes-sigs/nfs-subdir-external-provisioner/issues/25),
// its state when it is down; a search that found nothing is stated with
// what it read, and the claim stays blamed on the absent provisioner.
func TestWithProvisioner(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	class := "managed-nfs-storage"
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "test-claim", Namespace: "default", UID: "c1"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "fuseim.pri/ifs"}
	ext := corev1.Event{Reason: "ExternalProvisioning", Count: 106, InvolvedObject: corev1.ObjectReference{UID: "c1", Kind: "PersistentVolumeClaim", Name: "test-claim"},
		Message:        `waiting for a volume to be created, either by external provisioner "fuseim.pri/ifs" or manually created by system administrator`,
		FirstTimestamp: metav1.NewTime(now.Add(-25 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-15 * time.Second))}
	prov := func(ready bool, waiting string) *corev1.Pod {
		st := corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "nfs-client-provisioner", Ready: ready}}}
		if ready {
			st.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		if waiting != "" {
			st.ContainerStatuses[0].State.Waiting = &corev1.ContainerStateWaiting{Reason: waiting}
			st.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 255}
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nfs-client-provisioner-64b7476494-p4fcm", Namespace: "nfs"},
			Spec: corev1.PodSpec{ServiceAccountName: "nfs-client-provisioner", Containers: []corev1.Container{{Name: "nfs-client-provisioner", Image: "quay.io/external_storage/nfs-client-provisioner:latest"}}}, Status: st}
	}
	log := `I1210 14:42:01.500000       1 controller.go:987] provision "default/pvc1" class "managed-nfs-storage": started
E1210 14:42:01.500502       1 controller.go:1004] provision "default/pvc1" class "managed-nfs-storage": unexpected error getting claim reference: selfLink was empty, can't make reference
E1210 14:42:01.500600       1 controller.go:1004] provision "default/test-claim" class "managed-nfs-storage": unexpected error getting claim reference: selfLink was empty, can't make reference
`
	found := bundle.Actor{Role: bundle.RoleProvisioner, Name: "fuseim.pri/ifs", For: "pvc/test-claim", Complete: true, Workload: "Deployment nfs/nfs-client-provisioner",
		Container: "nfs-client-provisioner", Pods: []string{"nfs/nfs-client-provisioner-64b7476494-p4fcm"}, Searched: []string{"Leases named fuseim-pri-ifs in every namespace"}}
	none := found
	none.Pods, none.Workload, none.Container = nil, "", ""
	for _, tt := range []struct {
		name     string
		actor    *bundle.Actor
		pod      *corev1.Pod
		log      string
		category string
		culprit  []string
	}{
		{"runs and logs the claim's error", &found, prov(true, ""), log, "PVC/Pending/ProvisionerError",
			[]string{"selfLink was empty", "default/test-claim", "quay.io/external_storage/nfs-client-provisioner:latest", "nfs/nfs-client-provisioner-64b7476494-p4fcm"}},
		{"crash-looping", &found, prov(false, "CrashLoopBackOff"), "", "PVC/Pending/ProvisionerDown", []string{"CrashLoopBackOff (last exit code 255)"}},
		{"not found", &none, nil, "", "PVC/Pending/NoProvisioner", []string{"provisioner fuseim.pri/ifs"}},
		{"not searched", nil, nil, "", "PVC/Pending/NoProvisioner", []string{"provisioner fuseim.pri/ifs"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: "default", UID: "c1"},
				PVCs: []*corev1.PersistentVolumeClaim{pvc}, StorageClasses: []*storagev1.StorageClass{sc}, Events: []corev1.Event{ext}}
			if tt.actor != nil {
				b.Cluster.Actors = []bundle.Actor{*tt.actor}
			}
			if tt.pod != nil {
				b.DependencyPods = []*corev1.Pod{tt.pod}
				b.Logs = []bundle.ContainerLog{{Namespace: "nfs", Pod: tt.pod.Name, Container: "nfs-client-provisioner", Text: tt.log}}
			}
			f := ruletest.Root(ruletest.Run(PVCPending, b, now))
			if f == nil || string(f.Category) != tt.category {
				t.Fatalf("finding %+v, want category %s", f, tt.category)
			}
			for _, want := range tt.culprit {
				if !strings.Contains(f.Culprit, want) {
					t.Errorf("culprit %q lacks %q", f.Culprit, want)
				}
			}
			if tt.actor != nil && tt.pod == nil && !strings.Contains(f.Summary, "searched Leases named fuseim-pri-ifs") {
				t.Errorf("a search that found nothing must say what it read: %q", f.Summary)
			}
		})
	}
}
