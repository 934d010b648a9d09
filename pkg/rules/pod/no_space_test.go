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

// TestNoSpaceRunning: PostgreSQL keeps running while its writes fail
// (PostgresApp/PostgresApp#566: autovacuum "could not extend file
// \"base/…\": No space left on device"); the container is Ready, and the
// full claim is still named with its capacity.
func TestNoSpaceRunning(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	log := "2020-04-21 01:38:58.138 CST [7790] ERROR:  could not extend file \"base/25546/25595_vm\": No space left on device\n" +
		"2020-04-21 01:38:58.138 CST [7790] HINT:  Check free disk space.\n" +
		"2020-04-21 01:38:58.138 CST [7790] CONTEXT:  automatic vacuum of table \"mimic.mimiciii.chartevents_6\"\n"
	p := envPod(corev1.Container{Name: "app", Image: "postgres:12", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}})
	p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-postgres-0"}}}}
	b := envBundle(p, log)
	b.Logs[0].Previous = false
	b.PVCs = []*corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data-postgres-0", Namespace: "shop"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	fs := ruletest.Run(NoSpace, b, now)
	if len(fs) != 1 || fs[0].Category != "PVC/Full" || !fs[0].Current {
		t.Fatalf("findings %+v, want one current PVC/Full", fs)
	}
	for _, want := range []string{"data-postgres-0", "capacity 1Gi", "/var/lib/postgresql/data"} {
		if !strings.Contains(fs[0].Culprit, want) {
			t.Errorf("culprit %q lacks %q", fs[0].Culprit, want)
		}
	}
	// Without the error in its log, a running container gives nothing.
	b.Logs[0].Text = "2020-04-21 01:38:58.138 CST [1] LOG:  database system is ready to accept connections\n"
	if fs := ruletest.Run(NoSpace, b, now); len(fs) != 0 {
		t.Errorf("a healthy log gave %+v", fs)
	}
}
