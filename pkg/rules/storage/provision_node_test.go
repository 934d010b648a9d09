package storage

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestPVCPendingNodeLocalImmediate: a node-local provisioner that says it
// was given no node, on a class that binds at once, is explained by the
// class's volumeBindingMode; the same words on a class that already waits
// for the first consumer, or another error on an Immediate class, stay the
// provisioner's.
func TestPVCPendingNodeLocalImmediate(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	immediate, wffc := storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer
	cases := []struct {
		name, class, provisioner, msg string
		mode                          *storagev1.VolumeBindingMode
		want                          bool
	}{{
		// https://github.com/rancher/local-path-provisioner/issues/332
		name: "local-path on Immediate", class: "local-storage", provisioner: "rancher.io/local-path", mode: &immediate, want: true,
		msg: `failed to provision volume with StorageClass "local-storage": configuration error, no node was specified`,
	}, {
		// https://github.com/openebs/dynamic-localpv-provisioner/issues/186
		// (class hostpath-vm, provisioner openebs.io/local, volumeBindingMode
		// Immediate); the wording is its provisioner.go's.
		name: "OpenEBS Local PV hostpath on Immediate", class: "hostpath-vm", provisioner: "openebs.io/local", mode: &immediate, want: true,
		msg: `failed to provision volume with StorageClass "hostpath-vm": configuration error, no node was specified`,
	}, {
		// The API default of an unset volumeBindingMode is Immediate.
		name: "unset binding mode is Immediate", class: "openebs-hostpath", provisioner: "openebs.io/local", want: true,
		msg: `failed to provision volume with StorageClass "openebs-hostpath": configuration error, no node was specified`,
	}, {
		// Negative: the class already waits for the first consumer; the
		// binding mode is not what to change.
		name: "WaitForFirstConsumer class", class: "local-path", provisioner: "rancher.io/local-path", mode: &wffc,
		msg: `failed to provision volume with StorageClass "local-path": configuration error, no node was specified`,
	}, {
		// Negative: local-path's access-mode refusal on an Immediate class
		// (https://github.com/rancher/local-path-provisioner/blob/master/provisioner.go)
		// is about the claim, not the binding mode.
		name: "another error on Immediate", class: "local-path", provisioner: "rancher.io/local-path", mode: &immediate,
		msg: `failed to provision volume with StorageClass "local-path": NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			class := tc.class
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "shop", UID: "c1", CreationTimestamp: metav1.NewTime(now.Add(-30 * time.Minute))},
				Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
			sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: tc.provisioner, VolumeBindingMode: tc.mode}
			ev := corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: "data", Namespace: "shop", UID: "c1"},
				Type: corev1.EventTypeWarning, Reason: "ProvisioningFailed", Message: tc.msg, Count: 12,
				FirstTimestamp: metav1.NewTime(now.Add(-29 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "PersistentVolumeClaim", Name: "data", Namespace: "shop", UID: "c1"},
				PVCs: []*corev1.PersistentVolumeClaim{pvc}, StorageClasses: []*storagev1.StorageClass{sc}, Events: []corev1.Event{ev}}
			f := ruletest.Root(ruletest.Run(PVCPending, b, now))
			if tc.mode != nil && *tc.mode == wffc {
				// The claim waits for its consumer: whatever the rule says, it
				// does not blame the binding mode.
				if f != nil && strings.Contains(f.Culprit, ".volumeBindingMode") {
					t.Errorf("culprit %q blames the binding mode of a WaitForFirstConsumer class", f.Culprit)
				}
				return
			}
			if f == nil || string(f.Category) != "PVC/Pending/ProvisioningFailed" {
				t.Fatalf("finding %+v", f)
			}
			blames := strings.Contains(f.Culprit, "storageclass/"+class+" .volumeBindingMode Immediate")
			if blames != tc.want {
				t.Fatalf("culprit %q: blames the binding mode %v, want %v", f.Culprit, blames, tc.want)
			}
			if !tc.want {
				return
			}
			fix := ""
			for _, a := range f.Actions {
				fix += a.Description + strings.Join(a.Commands, "\n")
			}
			if !strings.Contains(fix, "WaitForFirstConsumer") || !strings.Contains(fix, "cannot be changed") || !strings.Contains(fix, "replace --force") {
				t.Errorf("actions do not propose a WaitForFirstConsumer class and the claim recreated: %s", fix)
			}
		})
	}
}

// TestPVCPendingSelectedNodeGone: a provisioner that cannot find the target
// node the claim's selected-node annotation names is explained by that
// stale annotation (the node was removed after the scheduler picked it,
// https://github.com/kubernetes-sigs/aws-ebs-csi-driver/issues/1713); an
// annotation naming another node, or none, leaves the provisioner's error.
func TestPVCPendingSelectedNodeGone(t *testing.T) {
	now := time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC)
	gone := "ip-10-0-92-212.ec2.internal"
	msg := `failed to provision volume with StorageClass "gp3": error generating accessibility requirements: failed to get target node: node "` + gone + `" not found`
	for _, tc := range []struct {
		name, selected string
		want           bool
	}{{"the annotation names the gone node", gone, true}, {"another node", "ip-10-0-11-4.ec2.internal", false}, {"no annotation", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			class := "gp3"
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-db-0", Namespace: "db", UID: "c1", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
				Spec:   corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
			if tc.selected != "" {
				pvc.Annotations = map[string]string{annSelectedNode: tc.selected}
			}
			wffc := storagev1.VolumeBindingWaitForFirstConsumer
			sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &wffc}
			ev := corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: "data-db-0", Namespace: "db", UID: "c1"},
				Type: corev1.EventTypeWarning, Reason: "ProvisioningFailed", Message: msg, Count: 30,
				FirstTimestamp: metav1.NewTime(now.Add(-50 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "PersistentVolumeClaim", Name: "data-db-0", Namespace: "db", UID: "c1"},
				PVCs: []*corev1.PersistentVolumeClaim{pvc}, StorageClasses: []*storagev1.StorageClass{sc}, Events: []corev1.Event{ev}}
			f := ruletest.Root(ruletest.Run(PVCPending, b, now))
			if f == nil {
				t.Fatal("no finding")
			}
			got := strings.HasSuffix(string(f.Category), "/SelectedNodeGone")
			if got != tc.want || tc.want && !strings.Contains(f.Culprit, annSelectedNode+"="+gone) {
				t.Errorf("got %s %q, want SelectedNodeGone %v", f.Category, f.Culprit, tc.want)
			}
		})
	}
}
