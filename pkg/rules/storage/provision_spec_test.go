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

// TestPVCPendingAccessModeRefused: a provisioner's error that refuses the
// claim's access mode names that mode from the claim's spec and the class;
// an error about something else stays the provisioner's own.
func TestPVCPendingAccessModeRefused(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	cases := []struct {
		name, class, provisioner, msg string
		modes                         []corev1.PersistentVolumeAccessMode
		want                          string // in the culprit; "" for none
	}{{
		// https://github.com/democratic-csi/democratic-csi/issues/2
		name: "iscsi driver refuses MULTI_NODE_MULTI_WRITER", class: "freenas-iscsi-csi", provisioner: "org.democratic-csi.iscsi",
		msg:   `failed to provision volume with StorageClass "freenas-iscsi-csi": rpc error: code = InvalidArgument desc = invalid access_mode, MULTI_NODE_MULTI_WRITER`,
		modes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, want: "ReadWriteMany",
	}, {
		// https://github.com/kubernetes/cloud-provider-openstack/pull/2729
		name: "cinder refuses RWX", class: "bar", provisioner: "cinder.csi.openstack.org",
		msg:   `failed to provision volume with StorageClass "bar": rpc error: code = InvalidArgument desc = volume access mode MULTI_NODE_MULTI_WRITER not supported`,
		modes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, want: "ReadWriteMany",
	}, {
		// https://github.com/kubernetes/kubernetes/issues/84528 (in-tree
		// portworx wording).
		name: "in-tree list of supported modes", class: "portworx-shared-sc", provisioner: "kubernetes.io/portworx-volume",
		msg:   `Failed to provision volume with StorageClass "portworx-shared-sc": invalid AccessModes [ReadOnlyMany]: only AccessModes [ReadWriteOnce ReadWriteMany] are supported`,
		modes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}, want: "ReadOnlyMany",
	}, {
		// The capability index is into spec.accessModes: the second one.
		name: "capability index picks the claim's mode", class: "hcloud-volumes", provisioner: "csi.hetzner.cloud",
		msg:   `failed to provision volume with StorageClass "hcloud-volumes": rpc error: code = InvalidArgument desc = capability at index 1 is not supported`,
		modes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany}, want: "ReadOnlyMany",
	}, {
		// Negative: a quota error on an RWX claim is not about the mode.
		name: "quota error stays the provisioner's", class: "efs-sc", provisioner: "efs.csi.aws.com",
		msg:   `failed to provision volume with StorageClass "efs-sc": rpc error: code = Internal desc = Failed to create Access point in File System fs-0123: AccessPointLimitExceeded`,
		modes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			class := tc.class
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "shop", UID: "c1", CreationTimestamp: metav1.NewTime(now.Add(-30 * time.Minute))},
				Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: tc.modes,
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
			sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: tc.provisioner}
			ev := corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: "data", Namespace: "shop", UID: "c1"},
				Type: corev1.EventTypeWarning, Reason: "ProvisioningFailed", Message: tc.msg, Count: 6,
				FirstTimestamp: metav1.NewTime(now.Add(-29 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "PersistentVolumeClaim", Name: "data", Namespace: "shop", UID: "c1"},
				PVCs: []*corev1.PersistentVolumeClaim{pvc}, StorageClasses: []*storagev1.StorageClass{sc}, Events: []corev1.Event{ev}}
			f := ruletest.Root(ruletest.Run(PVCPending, b, now))
			if f == nil || string(f.Category) != "PVC/Pending/ProvisioningFailed" {
				t.Fatalf("finding %+v", f)
			}
			if tc.want == "" {
				if strings.Contains(f.Culprit, ".spec.accessModes") {
					t.Errorf("culprit %q blames the access mode", f.Culprit)
				}
				return
			}
			if !strings.Contains(f.Culprit, ".spec.accessModes") || !strings.Contains(f.Culprit, "does not support "+tc.want) || !strings.Contains(f.Culprit, class) {
				t.Errorf("culprit %q does not name mode %s and class %s", f.Culprit, tc.want, class)
			}
		})
	}
}
