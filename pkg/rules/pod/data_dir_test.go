package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDataDir: PostgreSQL's initdb refusing a non-empty directory
// (infrahq/infra#3124: the data directory is a PVC's mount point, whose
// root holds lost+found) is traced to the claim, and the fix is a PGDATA
// subdirectory; MySQL's --initialize refusal gets a subPath; a data
// directory below the mount point is not the lost+found case.
func TestDataDir(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	pg := "initdb: error: directory \"/var/lib/postgresql/data\" exists but is not empty\nIt contains a lost+found directory, perhaps due to it being a mount point.\nUsing a mount point directly as the data directory is not recommended.\nCreate a subdirectory under the mount point.\n"
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "postgres-data", Namespace: "shop"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("8Gi")}}}
	vols := []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "postgres-data"}}}}
	for _, tt := range []struct {
		name, log, mountPath string
		category             string
		culprit, fix         []string
	}{
		{"postgres at the mount root", pg, "/var/lib/postgresql/data", "CrashLoop/Exit1/DataDirNotEmpty/MountRoot",
			[]string{"/var/lib/postgresql/data", "PVC postgres-data", "8Gi"}, []string{`"name":"PGDATA"`, `/var/lib/postgresql/data/pgdata`}},
		{"postgres below the mount", strings.ReplaceAll(pg, "/var/lib/postgresql/data", "/var/lib/postgresql/data/pgdata"), "/var/lib/postgresql/data", "CrashLoop/Exit1/DataDirNotEmpty/Volume",
			[]string{"/var/lib/postgresql/data/pgdata", "PVC postgres-data"}, []string{"volumeMounts"}},
		{"postgres on no mount", pg, "/srv", "", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "postgres:14", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: tt.mountPath}}})
			p.Spec.Volumes = vols
			b := envBundle(p, tt.log)
			b.PVCs = []*corev1.PersistentVolumeClaim{pvc}
			fs := ruletest.Run(DataDir, b, now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 || string(fs[0].Category) != tt.category {
				t.Fatalf("findings %+v, want one %s", fs, tt.category)
			}
			f := fs[0]
			for _, want := range tt.culprit {
				if !strings.Contains(f.Culprit+f.Title, want) {
					t.Errorf("culprit %q / title %q does not name %q", f.Culprit, f.Title, want)
				}
			}
			cmds := strings.Join(f.Actions[0].Commands, "\n") + f.Actions[0].Description
			for _, want := range tt.fix {
				if !strings.Contains(cmds, want) {
					t.Errorf("fix %q does not hold %q", cmds, want)
				}
			}
		})
	}
}
