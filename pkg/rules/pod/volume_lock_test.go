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

// TestVolumeLock: a lock on the data directory held by another pod of the
// bundle that mounts the same claim. The line is Elasticsearch's node lock
// failure (NodeEnvironment.java in elastic/elasticsearch: "failed to obtain
// node locks, tried [...] maybe these locations are not writable or
// multiple nodes were started on the same data path"). Negatives: no other
// pod on the claim, or the other pod mounts another claim: then the lock
// is left on the claim's own data, a lead (Likely).
func TestVolumeLock(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	es := "uncaught exception in thread [main]\njava.lang.IllegalStateException: failed to obtain node locks, tried [[/usr/share/elasticsearch/data]] with lock id [0]; maybe these locations are not writable or multiple nodes were started without increasing [node.max_local_storage_nodes] (was [1])?\n"
	claim := func(name string) []corev1.Volume {
		return []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}
	}
	for _, tt := range []struct {
		name    string
		other   string // the other pod's claim; "" for no other pod
		culprit bool
	}{{"old pod on the same claim", "es-data", true}, {"no other pod", "", false}, {"other pod, other claim", "es-data-1", false}} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "elasticsearch:7.17.5", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/usr/share/elasticsearch/data"}}})
			p.Spec.Volumes = claim("es-data")
			b := envBundle(p, es)
			if tt.other != "" {
				old := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-5c8d", Namespace: "shop"}, Spec: corev1.PodSpec{Volumes: claim(tt.other)},
					Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
				b.Pods = append(b.Pods, old)
			}
			fs := ruletest.Run(VolumeLock, b, now)
			if !tt.culprit {
				// No holder seen: the lock is on the claim's data all the
				// same, a lead, not a proof.
				if len(fs) != 1 || fs[0].Confidence != rule.Likely || !strings.Contains(fs[0].Culprit, "PVC es-data") || !strings.Contains(fs[0].Culprit, "no other pod seen mounts the claim") {
					t.Fatalf("want the stale-lock lead on es-data, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/VolumeLock") || !strings.Contains(fs[0].Culprit, "api-5c8d") || !strings.Contains(fs[0].Culprit, "es-data") {
				t.Fatalf("got %+v", fs)
			}
			if !strings.Contains(fs[0].Actions[0].Commands[0], `"type":"Recreate"`) {
				t.Errorf("fix %v", fs[0].Actions[0].Commands)
			}
		})
	}
}
