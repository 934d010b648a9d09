package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestNoSpace: "no space left on device" is traced to the volume mounted
// over the path, and for a claim to its name and capacity. The log lines:
//   - Go's os.PathError for a failed write: "write " + path + ": " + err;
//   - PostgreSQL's md.c/xlog.c: `could not write to file "pg_wal/xlogtemp.27":
//     No space left on device`, relative to the data directory.
func TestNoSpace(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	goLine := "2026/11/26 10:04:10 flush segment: write /var/lib/ingest/wal/000042.seg: no space left on device\n"
	pgLine := "2026-11-26 10:04:10.221 UTC [1] PANIC:  could not write to file \"pg_wal/xlogtemp.27\": No space left on device\n"
	vols := []corev1.Volume{
		{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "ingest-data"}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptrTo(resource.MustParse("64Mi"))}}},
	}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "ingest-data", Namespace: "shop"},
		Spec:   corev1.PersistentVolumeClaimSpec{StorageClassName: ptrTo("standard"), VolumeName: "pvc-1f2e"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
	for _, tt := range []struct {
		name, log string
		mounts    []corev1.VolumeMount
		category  string
		culprit   []string
		conf      rule.Confidence
	}{
		{"go write on the claim", goLine, []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/ingest"}, {Name: "tmp", MountPath: "/tmp"}},
			"CrashLoop/Exit1/NoSpace/PVC", []string{"persistentvolumeclaim ingest-data", "capacity 1Gi", "/var/lib/ingest"}, rule.Strong},
		{"go write on the emptyDir", strings.Replace(goLine, "/var/lib/ingest/wal", "/tmp/wal", 1), []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/ingest"}, {Name: "tmp", MountPath: "/tmp"}},
			"CrashLoop/Exit1/NoSpace/EmptyDir", []string{"emptyDir volume tmp", "sizeLimit 64Mi"}, rule.Strong},
		{"postgres relative path, one claim", pgLine, []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}},
			"CrashLoop/Exit1/NoSpace/PVC", []string{"ingest-data", "capacity 1Gi"}, rule.Likely},
		{"path on the image's own filesystem", strings.Replace(goLine, "/var/lib/ingest/wal", "/srv/wal", 1), []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/ingest"}, {Name: "tmp", MountPath: "/tmp"}},
			"", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "shop/ingest:1", VolumeMounts: tt.mounts})
			p.Spec.Volumes = vols
			b := envBundle(p, tt.log)
			b.PVCs = []*corev1.PersistentVolumeClaim{pvc}
			fs := ruletest.Run(NoSpace, b, now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d (crash: %+v)", len(fs), ruletest.Run(CrashLoop, b, now))
			}
			f := fs[0]
			if string(f.Category) != tt.category || f.Strength != rule.Traced || f.Confidence != tt.conf {
				t.Errorf("category %q strength %v confidence %v", f.Category, f.Strength, f.Confidence)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
			if strings.HasSuffix(tt.category, "PVC") && !strings.Contains(f.Actions[0].Commands[0], `"storage":"2Gi"`) {
				t.Errorf("fix %v", f.Actions[0].Commands)
			}
		})
	}
}
