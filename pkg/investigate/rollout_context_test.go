package investigate

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRolloutContextBeforeStatusCatchesUp: the real node's back-off moment
// of rollout-crash-introduced as CI once caught it, a controller round trip
// early: the pod of revision 2 already in CrashLoopBackOff while the
// Deployment's status still read Available=True from the instant the new
// pod was Running. The revision that introduced the fault must still be
// named. (The capture's status is put back to what the controller had
// written before, in its own words.)
func TestRolloutContextBeforeStatusCatchesUp(t *testing.T) {
	dir := filepath.Join(realCorpus, "rollout-crash-introduced", "back-off")
	b, at := loadCapture(t, dir)
	if len(b.Deployments) != 1 {
		t.Fatalf("capture holds %d deployments, want 1", len(b.Deployments))
	}
	d := b.Deployments[0]
	d.Status.AvailableReplicas, d.Status.ReadyReplicas, d.Status.UnavailableReplicas = 1, 1, 0
	for i := range d.Status.Conditions {
		if c := &d.Status.Conditions[i]; c.Type == appsv1.DeploymentAvailable {
			c.Status, c.Reason, c.Message = corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability."
		}
	}
	r := Investigate(b, Options{Agent: "builtin", Now: at})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/MissingEnv") {
		t.Fatalf("category %q, want the pod's own cause", r.RootCause.Category)
	}
	if named := strings.Join(r.RootCause.Contributing, "\n"); !strings.Contains(named, "revision 2") {
		t.Errorf("root cause does not name revision 2; contributing:\n%s", named)
	}
}

// TestRolloutBetweenRestarts: the same back-off moment as full CI runs
// caught it, a kubelet round trip later: the container already restarted
// (Running for a second, its last termination the crash) when the
// collector read it. The crash loop is the present, not history, so the
// pod's own cause stays the root cause, with the rollout around it.
func TestRolloutBetweenRestarts(t *testing.T) {
	dir := filepath.Join(realCorpus, "rollout-crash-introduced", "back-off")
	b, at := loadCapture(t, dir)
	restarted := 0
	for _, p := range b.Pods {
		for i := range p.Status.ContainerStatuses {
			st := &p.Status.ContainerStatuses[i]
			if st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" {
				st.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(at.Add(-time.Second))}}
				st.RestartCount++
				restarted++
			}
		}
	}
	if restarted == 0 {
		t.Fatal("the capture holds no container in CrashLoopBackOff")
	}
	r := Investigate(b, Options{Agent: "builtin", Now: at})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/MissingEnv") {
		t.Fatalf("category %q (%s), want the pod's own cause", r.RootCause.Category, r.Title)
	}
	if named := strings.Join(r.RootCause.Contributing, "\n"); !strings.Contains(named, "revision 2") {
		t.Errorf("root cause does not name revision 2; contributing:\n%s", named)
	}
	if !r.Ongoing {
		t.Errorf("a crash loop between two restarts is reported as history")
	}
}
