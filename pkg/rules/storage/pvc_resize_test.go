package storage

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestPVCResize: a claim grown beyond its capacity whose resizer fails is
// PVC/Resize, naming the backend's own error inside the resizer's
// wrapping. Material: Longhorn's CSI resizer timing out, "resize volume
// "pvc-c14f…" by resizer "driver.longhorn.io" failed: rpc error: code =
// DeadlineExceeded desc = volume pvc-c14f… expansion from existing capacity
// 26000490496 to requested capacity 27917287424 failed",
// https://github.com/longhorn/longhorn/issues/9125. Negatives: a resize in
// progress without a failure, and a claim at its requested size with an
// old failure.
func TestPVCResize(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	const msg = `resize volume "pvc-c14fb749-8bb9-497b-a55e-d8f7ab370d2d" by resizer "driver.longhorn.io" failed: rpc error: code = DeadlineExceeded desc = volume pvc-c14fb749-8bb9-497b-a55e-d8f7ab370d2d expansion from existing capacity 26000490496 to requested capacity 27917287424 failed`
	claim := func(want, have string, events ...string) *bundle.Bundle {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "tmp-pvc-a3e358c5", Namespace: "vm-system", UID: "c1",
			Annotations: map[string]string{"volume.kubernetes.io/storage-provisioner": "driver.longhorn.io"}},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pvc-c14fb749-8bb9-497b-a55e-d8f7ab370d2d",
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(want)}}},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(have)}}}
		b := &bundle.Bundle{Target: fault.Resource{Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: pvc.Namespace, UID: "c1"}, PVCs: []*corev1.PersistentVolumeClaim{pvc}}
		for i, reason := range events {
			typ := corev1.EventTypeWarning
			m := msg
			if reason == "Resizing" {
				typ, m = corev1.EventTypeNormal, "External resizer is resizing volume pvc-c14fb749-8bb9-497b-a55e-d8f7ab370d2d"
			}
			b.Events = append(b.Events, corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e" + reason, Namespace: pvc.Namespace}, Type: typ, Reason: reason, Message: m, Count: 1,
				InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: pvc.Name, Namespace: pvc.Namespace, UID: "c1"},
				LastTimestamp:  metav1.NewTime(now.Add(-time.Duration(len(events)-i) * time.Minute))})
		}
		return b
	}
	f := ruletest.Root(ruletest.Run(PVCResize, claim("26Gi", "24Gi", "Resizing", "VolumeResizeFailed"), now))
	if f == nil || f.Category != "PVC/Resize" || !strings.Contains(f.Culprit, "DeadlineExceeded: volume pvc-c14fb749-8bb9-497b-a55e-d8f7ab370d2d expansion from existing capacity") ||
		!strings.Contains(f.Title, "24Gi to 26Gi") || !strings.Contains(f.Title, "driver.longhorn.io") {
		t.Fatalf("failing resize: %+v", f)
	}
	if fs := ruletest.Run(PVCResize, claim("26Gi", "24Gi", "Resizing"), now); len(fs) != 0 {
		t.Errorf("resize in progress: %+v", fs)
	}
	if fs := ruletest.Run(PVCResize, claim("26Gi", "26Gi", "VolumeResizeFailed"), now); len(fs) != 0 {
		t.Errorf("claim at its size: %+v", fs)
	}
}

// TestResizeError: the backend's error is read out of the resizer's
// wrapping: a cloud API's error code, else the innermost gRPC description.
func TestResizeError(t *testing.T) {
	for _, tc := range []struct{ msg, code, text string }{
		{`failed to expand pvc with rpc error: code = Internal desc = Could not resize volume "vol-0157496f5c5f8ee9a": rpc error: code = Internal desc = Could not modify volume "vol-0157496f5c5f8ee9a": operation error EC2: ModifyVolume, https response error StatusCode: 400, RequestID: f4a49e65, api error VolumeModificationRateExceeded: You've reached the maximum modification rate per volume limit.`,
			"VolumeModificationRateExceeded", "You've reached the maximum modification rate per volume limit."},
		// https://github.com/hwameistor/hwameistor/issues/626
		{`resize volume "pvc-df53cd45-9d6f-44a1-9cf1-4d267bdee2e0" by resizer "lvm.hwameistor.io" failed: rpc error: code = Unknown desc = volume expansion not completed yet`,
			"Unknown", "volume expansion not completed yet"},
		{"Ceph storage backend refused", "", "Ceph storage backend refused"},
	} {
		if code, text := ResizeError(tc.msg); code != tc.code || text != tc.text {
			t.Errorf("%q: got %q %q, want %q %q", tc.msg, code, text, tc.code, tc.text)
		}
	}
}
