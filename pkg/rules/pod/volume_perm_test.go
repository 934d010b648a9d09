package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestVolumePermission: a denied path is traced to the volume it lies on
// and to what decides who may write it. The log lines:
//   - Prometheus's active query log on a claim with fsGroup set
//     (https://github.com/prometheus-community/helm-charts/issues/1162,
//     runAsUser 1000, fsGroup 2000 on AKS);
//   - the same on a claim bound to a hostPath PersistentVolume, which
//     fsGroup does not change (https://github.com/prometheus/prometheus/issues/5976);
//   - postgres' entrypoint creating its PGDATA on an existing claim as uid
//     1000 without fsGroup (https://github.com/bitnami/charts/issues/3471,
//     fixed with fsGroup 1000);
//   - sed -i on a ConfigMap volume (https://github.com/rabbitmq/rabbitmq-peer-discovery-k8s/issues/37);
//   - a Rust error naming no path, with two writable claims mounted.
//
// Negatives: a path on the image's own filesystem, a bind refused on a
// port.
func TestVolumePermission(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	prom := `ts=2021-07-13T12:46:05.042Z caller=query_logger.go:87 level=error component=activeQueryTracker msg="Error opening query log file" file=/prometheus/queries.active err="open /prometheus/queries.active: permission denied"` + "\n"
	pg := "mkdir: cannot create directory '/data/pgdata': Permission denied\n"
	sed := "sed: can't create temp file '/etc/rabbitmq/rabbitmq.confXXXXXX': Read-only file system\n"
	rust := "Error: IO Error: Permission denied (os error 13)\n\nCaused by:\n    Permission denied (os error 13)\n"
	claim := func(name string) corev1.VolumeSource {
		return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}
	}
	sc := func(uid, fsGroup int64) *corev1.PodSecurityContext {
		s := &corev1.PodSecurityContext{RunAsUser: &uid}
		if fsGroup != 0 {
			s.FSGroup = &fsGroup
		}
		return s
	}
	pvcs := []*corev1.PersistentVolumeClaim{
		{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-db", Namespace: "shop"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-disk"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-local", Namespace: "shop"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-host"}},
	}
	pvs := []*corev1.PersistentVolume{
		{ObjectMeta: metav1.ObjectMeta{Name: "pv-disk"}, Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "disk.csi.azure.com", VolumeHandle: "h"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pv-host"}, Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/data/prometheus"}}}},
	}
	for _, tt := range []struct {
		name, log string
		vols      []corev1.Volume
		mounts    []corev1.VolumeMount
		sc        *corev1.PodSecurityContext
		category  string // "" when the rule must stay silent
		culprit   []string
		fix       string
		conf      rule.Confidence
	}{
		{"claim with fsGroup set", prom, []corev1.Volume{{Name: "db", VolumeSource: claim("prometheus-db")}}, []corev1.VolumeMount{{Name: "db", MountPath: "/prometheus"}},
			sc(1000, 2000), "CrashLoop/Exit1/PermissionDenied/VolumeOwner", []string{"/prometheus/queries.active", "PVC prometheus-db", "disk.csi.azure.com", "fsGroup 2000"}, "fsGroupPolicy", rule.Strong},
		{"claim on a hostPath PV", prom, []corev1.Volume{{Name: "db", VolumeSource: claim("prometheus-local")}}, []corev1.VolumeMount{{Name: "db", MountPath: "/prometheus"}},
			sc(65534, 65534), "CrashLoop/Exit1/PermissionDenied/HostPath", []string{"hostPath /mnt/data/prometheus", "runAsUser 65534"}, "chown 65534:65534", rule.Strong},
		{"claim without fsGroup", pg, []corev1.Volume{{Name: "data", VolumeSource: claim("keycloak-ssd")}}, []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
			sc(1000, 0), "CrashLoop/Exit1/PermissionDenied/FSGroup", []string{"/data/pgdata", "PVC keycloak-ssd", "no fsGroup"}, `"fsGroup":1000`, rule.Strong},
		{"configmap volume", sed, []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "rabbitmq-config"}}}}},
			[]corev1.VolumeMount{{Name: "config", MountPath: "/etc/rabbitmq"}}, nil, "CrashLoop/Exit1/PermissionDenied/ReadOnlyVolume", []string{"ConfigMap rabbitmq-config", "/etc/rabbitmq"}, "emptyDir", rule.Strong},
		{"no path, two writable claims", rust, []corev1.Volume{{Name: "data", VolumeSource: claim("p-data")}, {Name: "staging", VolumeSource: claim("p-staging")}, {Name: "cfg", VolumeSource: claim("p-cfg")}},
			[]corev1.VolumeMount{{Name: "data", MountPath: "/srv/data"}, {Name: "staging", MountPath: "/srv/staging"}, {Name: "cfg", MountPath: "/srv/cfg", ReadOnly: true}},
			sc(1000, 0), "CrashLoop/Exit1/PermissionDenied/FSGroup", []string{"/srv/data", "/srv/staging", "no fsGroup"}, `"fsGroup":1000`, rule.Likely},
		{"path on the image's filesystem", "mkdir: cannot create directory '/var/lib/pgsql/data/userdata': Permission denied\n", []corev1.Volume{{Name: "data", VolumeSource: claim("p-data")}},
			[]corev1.VolumeMount{{Name: "data", MountPath: "/srv/data"}}, sc(1000, 0), "", nil, "", 0},
		{"bind refused on a port", "Error: listen EACCES: permission denied 0.0.0.0:8000\n", []corev1.Volume{{Name: "data", VolumeSource: claim("p-data")}},
			[]corev1.VolumeMount{{Name: "data", MountPath: "/srv/data"}}, sc(1000, 0), "", nil, "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "shop/app:1", VolumeMounts: tt.mounts})
			p.Spec.Volumes, p.Spec.SecurityContext = tt.vols, tt.sc
			b := envBundle(p, tt.log)
			b.PVCs, b.PVs = pvcs, pvs
			fs := ruletest.Run(VolumePermission, b, now)
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
			fix := f.Actions[0].Description + strings.Join(f.Actions[0].Commands, "\n")
			if !strings.Contains(fix, tt.fix) {
				t.Errorf("fix %q does not say %q", fix, tt.fix)
			}
		})
	}
}
