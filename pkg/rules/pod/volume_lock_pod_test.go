package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// TestVolumeLockSiblingReplica: a pod target whose data-file lock is held,
// with the sibling the collector read (Candidates) mounting the same claim,
// names that sibling, on other material than the e2e scenario; the lock
// line is the decisive one, not MySQL's "Aborting" after it. A lock error
// with no holder (a permission denied on the lock file, NFS' "no locks
// available") is no held lock.
func TestVolumeLockSiblingReplica(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	mysql8 := "2020-12-11T00:53:55.328255Z 1 [System] [MY-013576] [InnoDB] InnoDB initialization has started.\n" +
		strings.Repeat("2020-12-11T00:53:55.355851Z 1 [ERROR] [MY-012574] [InnoDB] Unable to lock ./ibdata1 error: 11\n", 5) +
		"2020-12-11T00:55:36.383302Z 1 [ERROR] [MY-012592] [InnoDB] Operating system error number 11 in a file operation.\n" +
		"2020-12-11T00:55:36.383421Z 1 [ERROR] [MY-012596] [InnoDB] Error number 11 means 'Resource temporarily unavailable'\n" +
		"2020-12-11T00:55:36.384161Z 0 [ERROR] [MY-010119] [Server] Aborting\n"
	tests := []struct {
		name, source, log string
		holder            bool // a sibling on the same claim is in the bundle
		want              bool
	}{
		{"mysql8-second-replica", "https://github.com/bitnami/charts/issues/4134 (MySQL 8 wording) and https://github.com/kubernetes/kubernetes/issues/124691 (two replicas of a Deployment on one PVC)",
			mysql8, true, true},
		{"prometheus-lock-db-directory", "https://github.com/prometheus/prometheus/issues/9513",
			`level=error ts=2021-10-15T08:25:42.501Z caller=main.go:915 err="opening storage failed: lock DB directory: resource temporarily unavailable"` + "\n", true, true},
		{"mysql8-no-sibling", "https://github.com/bitnami/charts/issues/4134", mysql8, false, true},
		{"prometheus-lock-permission-denied", "https://github.com/helm/charts/issues/19105",
			`level=error ts=2019-11-25T08:57:24.071Z caller=main.go:731 err="opening storage failed: lock DB directory: open /data/lock: permission denied"` + "\n", true, false},
		{"prometheus-nfs-no-locks", "https://github.com/prometheus/prometheus/issues/13390",
			`caller=main.go:1166 level=error err="opening storage failed: lock DB directory: no locks available"` + "\n", true, false},
	}
	vol := []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-mysql"}}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "db:1", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/mysql"}}})
			p.OwnerReferences = nil
			p.Labels = map[string]string{"app": "mysql"}
			p.Spec.Volumes = vol
			b := envBundle(p, tt.log)
			b.ReplicaSets, b.Deployments = nil, nil
			if tt.holder {
				b.Candidates = append(b.Candidates, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mysql-0-running", Namespace: "shop", Labels: p.Labels},
					Spec: corev1.PodSpec{Volumes: vol}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
			}
			if tt.want {
				if d := logs.FindDecisive(tt.log); d == nil || d.Pattern.Class != logs.LockHeld {
					t.Errorf("decisive %+v, want class LockHeld", d)
				}
			}
			fs := ruletest.Run(VolumeLock, b, now)
			if tt.want && !tt.holder {
				if len(fs) != 1 || !strings.Contains(fs[0].Culprit, "no other pod seen mounts the claim") || !strings.Contains(fs[0].Culprit, "data-mysql") {
					t.Fatalf("want the stale-lock lead on data-mysql, got %+v (%s)", fs, tt.source)
				}
				return
			}
			if !tt.want {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s (%s)", fs[0].Culprit, tt.source)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/VolumeLock") || !strings.Contains(fs[0].Culprit, "mysql-0-running") || !strings.Contains(fs[0].Culprit, "data-mysql") {
				t.Fatalf("got %+v (%s)", fs, tt.source)
			}
		})
	}
}
