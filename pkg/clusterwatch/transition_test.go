package clusterwatch

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func TestTrackerObserve(t *testing.T) {
	const rearm = 10 * time.Minute
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	type step struct {
		faultType string // "" = healthy
		after     time.Duration
		unarmed   bool // existing when the watch started, or just added
		forget    bool // the object was deleted (faultType unused)
		want      bool
	}
	tests := []struct {
		name      string
		steps     []step
		wantState int // objects remembered at the end
	}{
		{
			name:  "healthy object never fires",
			steps: []step{{}, {after: time.Minute}, {after: time.Hour}},
		},
		{
			name: "turning faulty fires once, not per update",
			steps: []step{
				{},
				{faultType: fault.TypeCrashLoop, after: time.Second, want: true},
				{faultType: fault.TypeCrashLoop, after: 2 * time.Second},
				{faultType: fault.TypeCrashLoop, after: 3 * time.Second},
			},
			wantState: 1,
		},
		{
			name: "another fault type fires",
			steps: []step{
				{faultType: fault.TypeImagePull, want: true},
				{faultType: fault.TypeConfigError, after: time.Second, want: true},
			},
			wantState: 1,
		},
		{
			name: "crash loop cycles stay one episode",
			steps: []step{
				{faultType: fault.TypeCrashLoop, want: true},
				{after: time.Minute},                                     // running again
				{faultType: fault.TypeCrashLoop, after: 2 * time.Minute}, // crashed again
				{after: 7 * time.Minute},
				{faultType: fault.TypeCrashLoop, after: 12 * time.Minute},
			},
			wantState: 1,
		},
		{
			name: "healthy for the rearm period starts a new episode",
			steps: []step{
				{faultType: fault.TypeCrashLoop, want: true},
				{after: time.Minute},
				{faultType: fault.TypeCrashLoop, after: time.Minute + rearm, want: true},
			},
			wantState: 1,
		},
		{
			name: "flapping between two fault types fires each once",
			steps: []step{
				{faultType: fault.TypeCrashLoop, want: true},
				{faultType: fault.TypeOOMKilled, after: time.Second, want: true},
				{faultType: fault.TypeCrashLoop, after: 2 * time.Second},
				{faultType: fault.TypeOOMKilled, after: 3 * time.Second},
			},
			wantState: 1,
		},
		{
			name: "existing fault does not fire at its next update",
			steps: []step{
				{faultType: fault.TypeCrashLoop, unarmed: true},
				{faultType: fault.TypeCrashLoop, after: time.Second},
			},
			wantState: 1,
		},
		{
			name: "existing fault that clears and comes back fires",
			steps: []step{
				{faultType: fault.TypeNodeUnhealthy, unarmed: true},
				{after: time.Second},
				{faultType: fault.TypeNodeUnhealthy, after: 2 * time.Second, want: true},
			},
			wantState: 1,
		},
		{
			name: "existing fault turning into another fires",
			steps: []step{
				{faultType: fault.TypeImagePull, unarmed: true},
				{faultType: fault.TypeCrashLoop, after: time.Second, want: true},
			},
			wantState: 1,
		},
		{
			name: "deleted object is forgotten",
			steps: []step{
				{faultType: fault.TypeCrashLoop, want: true},
				{forget: true},
				{faultType: fault.TypeCrashLoop, after: time.Second, want: true},
			},
			wantState: 1,
		},
		{
			name: "object healthy past the rearm period is forgotten",
			steps: []step{
				{faultType: fault.TypeCrashLoop, want: true},
				{after: time.Minute},
				{after: time.Minute + rearm},
			},
		},
		{
			name: "unemitted fault is forgotten once healthy",
			steps: []step{
				{faultType: fault.TypeCrashLoop, unarmed: true},
				{after: time.Second},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTracker(rearm)
			for i, s := range tt.steps {
				if s.forget {
					tr.forget("Pod ns/web")
					continue
				}
				got := tr.observe("Pod ns/web", s.faultType, t0.Add(s.after), !s.unarmed)
				if got != s.want {
					t.Errorf("step %d (%q at +%v): fire = %v, want %v", i, s.faultType, s.after, got, s.want)
				}
			}
			if n := tr.len(); n != tt.wantState {
				t.Errorf("remembered %d objects, want %d", n, tt.wantState)
			}
		})
	}
}

func TestTrackerKeysAreIndependent(t *testing.T) {
	tr := newTracker(time.Minute)
	now := time.Now()
	if !tr.observe("Pod ns/a", fault.TypeCrashLoop, now, true) {
		t.Fatal("pod a: first CrashLoop did not fire")
	}
	if !tr.observe("Pod ns/b", fault.TypeCrashLoop, now, true) {
		t.Fatal("pod b: first CrashLoop did not fire (state leaked from pod a)")
	}
}

func TestStateFault(t *testing.T) {
	running := corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	crashLoop := corev1.ContainerStatus{
		Name:                 "app",
		RestartCount:         4,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}},
	}
	exited := corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}}
	notReady := []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	pod := func(phase corev1.PodPhase, conds []corev1.PodCondition, cs ...corev1.ContainerStatus) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
			Status:     corev1.PodStatus{Phase: phase, Conditions: conds, ContainerStatuses: cs},
		}
	}
	deployment := func(conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Status: appsv1.DeploymentStatus{Conditions: conds}}
	}
	unavailable := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable"}
	stuck := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-1" has timed out progressing.`}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"}

	tests := []struct {
		name         string
		obj          runtime.Object
		gvk          schema.GroupVersionKind
		wantType     string
		wantSeverity string
		wantContext  string
	}{
		{name: "pending pod", obj: pod(corev1.PodPending, nil), gvk: podKind},
		{name: "running pod", obj: pod(corev1.PodRunning, nil, running), gvk: podKind},
		{name: "crash-looping pod", obj: pod(corev1.PodRunning, notReady, crashLoop), gvk: podKind,
			wantType: fault.TypeCrashLoop, wantSeverity: fault.SeverityCritical, wantContext: "container app in CrashLoopBackOff, restart count 4, last exit code 1 (Error)"},
		{name: "pod not ready is transient", obj: pod(corev1.PodRunning, notReady, running), gvk: podKind},
		{name: "one crash is transient", obj: pod(corev1.PodRunning, notReady, exited), gvk: podKind},
		{name: "failed pod", obj: pod(corev1.PodFailed, nil, exited), gvk: podKind, wantType: fault.TypePodFailed, wantSeverity: fault.SeverityWarning},
		{name: "new deployment below availability", obj: deployment(unavailable, progressing), gvk: deploymentKind},
		{name: "deployment past its progress deadline", obj: deployment(unavailable, stuck), gvk: deploymentKind,
			wantType: fault.TypeDeploymentFailure, wantSeverity: fault.SeverityCritical, wantContext: `ProgressDeadlineExceeded: ReplicaSet "web-1" has timed out progressing.`},
		{name: "healthy deployment", obj: deployment(progressing), gvk: deploymentKind},
		{name: "failed job", gvk: jobKind, obj: &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "migrate", Namespace: "ns"},
			Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{
				Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit",
			}}},
		}, wantType: fault.TypeJobFailure, wantSeverity: fault.SeverityCritical, wantContext: "BackoffLimitExceeded: Job has reached the specified backoff limit"},
		{name: "node not ready", gvk: nodeKind, obj: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Message: "Kubelet stopped posting node status.",
			}}},
		}, wantType: fault.TypeNodeUnhealthy, wantSeverity: fault.SeverityCritical, wantContext: "Ready=Unknown: Kubelet stopped posting node status."},
		{name: "ready node", gvk: nodeKind, obj: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
			Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotType, gotSeverity, gotContext := stateFault(tt.obj, tt.gvk)
			if gotType != tt.wantType || gotSeverity != tt.wantSeverity {
				t.Errorf("stateFault = %q, %q, want %q, %q", gotType, gotSeverity, tt.wantType, tt.wantSeverity)
			}
			if tt.wantContext != "" && gotContext != tt.wantContext {
				t.Errorf("context = %q, want %q", gotContext, tt.wantContext)
			}
		})
	}
}
