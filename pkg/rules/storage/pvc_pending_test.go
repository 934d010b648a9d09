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
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestPVCPending: a claim that names no class waits for a default class
// that does not exist; with a default class that provisions, the claim is
// not stuck on the class.
func TestPVCPending(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "orders-data", Namespace: "shop", UID: "c1", CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Minute))},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	target := func(classes ...*storagev1.StorageClass) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: "shop", UID: "c1"},
			PVCs: []*corev1.PersistentVolumeClaim{pvc}, StorageClasses: classes}
	}

	f := ruletest.Root(ruletest.Run(PVCPending, target(), now))
	if f == nil || !strings.HasPrefix(string(f.Category), "PVC/Pending/NoDefaultStorageClass") || !strings.Contains(f.Culprit, "orders-data") {
		t.Fatalf("no class, no default: %+v", f)
	}

	standard := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard", Annotations: map[string]string{AnnDefaultStorageClass: "true"}}, Provisioner: "example.com/csi"}
	for _, f := range ruletest.Run(PVCPending, target(standard), now) {
		if f.Verdict == report.Validated && strings.HasPrefix(string(f.Category), "PVC/Pending/NoDefaultStorageClass") {
			t.Errorf("a default class exists, yet: %q", f.Category)
		}
	}
}
