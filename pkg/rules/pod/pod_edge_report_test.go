package pod_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	podrules "github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
)

// TestProbeSpecMissingIsInconclusive: events about a probe the spec does
// not have cannot be tied to it; the report stays degraded.
func TestProbeSpecMissingIsInconclusive(t *testing.T) {
	p := bundletest.Pod("api", bundletest.RunningNotReady)
	b := bundletest.PodBundle(p, bundletest.WithEvents(bundletest.Event(p, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 3)))
	fs := podrules.Probe.Check(investigatetest.Pass(b))
	if len(fs) != 1 || fs[0].Verdict != report.Inconclusive {
		t.Fatalf("want one inconclusive finding, got %+v", fs)
	}
	if r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now}); !r.Degraded {
		t.Errorf("report should stay degraded, got %q", r.Title)
	}
}

// TestHealthyContainersYieldNothing: none of the new rules speaks about a
// healthy pod, even with probes that do not match its ports.
func TestHealthyContainersYieldNothing(t *testing.T) {
	p := bundletest.Pod("api", bundletest.Healthy, bundletest.WithCtrPorts(bundletest.CtrPort("http", 3000)), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(3000))),
		bundletest.WithReadiness(bundletest.HTTPGetProbe("/ready", intstr.FromString("http"))))
	c := investigatetest.Pass(bundletest.PodBundle(p))
	for _, rule := range investigatetest.RulesOf("pod") {
		if fs := rule.Check(c.For(rule)); len(fs) != 0 {
			t.Errorf("rule %s speaks about a healthy pod: %+v", rule.ID, fs)
		}
	}
}

// TestOldTransientProbeFailures: liveness failures hours ago that never
// reached the threshold do not make a healthy pod faulty.
func TestOldTransientProbeFailures(t *testing.T) {
	p := bundletest.Pod("api", bundletest.Healthy, bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080))))
	e := bundletest.CtrEvent(p, "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 2)
	e.FirstTimestamp, e.LastTimestamp = bundletest.TS(-5*time.Hour), bundletest.TS(-5*time.Hour)
	r := investigate.Investigate(bundletest.PodBundle(p, bundletest.WithEvents(e)), investigate.Options{Now: bundletest.Now})
	if !r.Healthy {
		t.Errorf("want healthy, got %q", r.Title)
	}
}

// TestNotOOMKilledIsRuledOut: exit 137 with reason Error and no memory
// limit is not the OOM killer at a limit.
func TestNotOOMKilledIsRuledOut(t *testing.T) {
	r := investigate.Investigate(bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(137, "Error"), func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Limits = nil })), investigate.Options{Now: bundletest.Now})
	found := false
	for _, h := range r.RuledOut {
		if strings.Contains(h, "OOMKilled") {
			found = true
		}
	}
	if !found {
		t.Errorf("OOM kill not ruled out: %v", r.RuledOut)
	}
	r = investigate.Investigate(bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(137, "OOMKilled"))), investigate.Options{Now: bundletest.Now})
	for _, h := range r.RuledOut {
		if strings.Contains(h, "OOMKilled") {
			t.Errorf("a real OOM kill is ruled out: %v", r.RuledOut)
		}
	}
}

// TestLivenessKillDemotesCrash: the crash finding stays, below the probe.
func TestLivenessKillDemotesCrash(t *testing.T) {
	p := bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080))))
	b := bundletest.PodBundle(p, bundletest.WithLogs(true, "panic: boom\n"), bundletest.WithEvents(
		bundletest.CtrEvent(p, "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 9),
		bundletest.CtrEvent(p, "Normal", "Killing", "Container app failed liveness probe, will be restarted", 3)))
	c := investigatetest.Pass(b)
	crash := podrules.CrashLoop.Check(c)
	if len(crash) != 1 || crash[0].Strength != rule.Symptom {
		t.Fatalf("crash finding not demoted: %+v", crash)
	}
	if r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now}); !strings.HasPrefix(r.RootCause.Category, "Probe/Liveness/") {
		t.Errorf("root cause %q, want the liveness probe", r.RootCause.Category)
	}
}

// TestNodePressureEvictionsAreTheNodeRules': evictions for node pressure
// and admissions refused for a node condition are explained by nodes.go.
func TestNodePressureEvictionsAreTheNodeRules(t *testing.T) {
	for _, msg := range []string{
		"The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container app was using 2Gi, request is 100Mi, has larger consumption of memory. ",
		"The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: 2Gi. ",
		"The node had condition: [DiskPressure]. ",
	} {
		c := investigatetest.Pass(bundletest.PodBundle(bundletest.Pod("api", bundletest.EvictedWith(msg))))
		if fs := podrules.Evicted.Check(c); len(fs) != 0 {
			t.Errorf("%q: container rule speaks: %+v", msg, fs)
		}
	}
}

// TestEvictedLeftoverIsHistory: an evicted pod of a Deployment was replaced;
// a current crash of another pod outranks it.
func TestEvictedLeftoverIsHistory(t *testing.T) {
	old := bundletest.Pod("web-1", bundletest.EvictedWith(`Container app exceeded its local ephemeral storage limit "1Gi". `))
	cur := bundletest.Pod("web-2", bundletest.Crashing(1, "Error"))
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "dep"}, Pods: []*corev1.Pod{old, cur},
		Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "web-2", Container: "app", Previous: true, Text: "FATAL: API_KEY is not set\n"}}}
	r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/MissingEnv") {
		t.Errorf("root cause %q, want the current crash", r.RootCause.Category)
	}
	fs := podrules.Evicted.Check(investigatetest.Pass(b))
	if len(fs) != 1 || fs[0].Current {
		t.Errorf("evicted leftover should be history: %+v", fs)
	}
}

// TestStaleImagePullDoesNotExplainCrash: an old pull failure is history.
func TestStaleImagePullDoesNotExplainCrash(t *testing.T) {
	p := bundletest.Pod("api", bundletest.Crashing(1, "Error"))
	stale := bundletest.Event(p, "Warning", "Failed", `Failed to pull image "registry.example.com/shop/api:1.4.2": rpc error: code = NotFound desc = manifest unknown`, 4)
	stale.FirstTimestamp, stale.LastTimestamp = bundletest.TS(-4*time.Hour), bundletest.TS(-3*time.Hour)
	r := investigate.Investigate(bundletest.PodBundle(p, bundletest.WithEvents(stale), bundletest.WithLogs(true, "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n")), investigate.Options{Now: bundletest.Now})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/Panic") {
		t.Errorf("root cause %q, want the crash", r.RootCause.Category)
	}
}

// TestTerminatingWithinGraceIsNotStuck: a deletion still in its grace
// period, or an overdue one nothing explains, is not a validated cause.
func TestTerminatingWithinGraceIsNotStuck(t *testing.T) {
	c := investigatetest.Pass(bundletest.PodBundle(bundletest.Pod("api", bundletest.DeletedAgo(-10*time.Second, "example.com/cleanup"))))
	if fs := podrules.StuckTerminating.Check(c); len(fs) != 0 {
		t.Errorf("pod within its grace period reported: %+v", fs)
	}
	c = investigatetest.Pass(bundletest.PodBundle(bundletest.Pod("api", bundletest.DeletedAgo(time.Hour))))
	fs := podrules.StuckTerminating.Check(c)
	if len(fs) != 1 || fs[0].Verdict != report.Inconclusive {
		t.Errorf("want one inconclusive finding, got %+v", fs)
	}
}

// TestOOMKilledSidecar: only the sidecar is OOMKilled; the report names it.
func TestOOMKilledSidecar(t *testing.T) {
	p := bundletest.Pod("api", bundletest.Healthy, func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "log-shipper", Image: "fluent-bit:3",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}}})
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "log-shipper", RestartCount: 7,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: bundletest.TS(-time.Minute)}}})
	})
	r := investigate.Investigate(bundletest.PodBundle(p), investigate.Options{Now: bundletest.Now})
	if r.RootCause.Category != "OOMKilled" || !strings.Contains(r.RootCause.Culprit, "container log-shipper") || !strings.Contains(r.RootCause.Culprit, "32Mi") {
		t.Errorf("got %q / %q", r.RootCause.Category, r.RootCause.Culprit)
	}
}

// TestContainerPatchByOwner: the fix patches the owner's pod template by
// container name, or recreates what cannot be patched.
func TestContainerPatchByOwner(t *testing.T) {
	p := bundletest.Pod("web-1", bundletest.Crashing(137, "Error"))
	fields := map[string]any{"livenessProbe": map[string]any{"timeoutSeconds": 5}}
	for _, tt := range []struct {
		mutate func(*bundle.Bundle)
		want   string
	}{
		{func(b *bundle.Bundle) {
			b.Deployments = []*appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "web"}}}
		},
			`kubectl patch deployment/web -n shop -p '{"spec":{"template":{"spec":{"containers":[{"livenessProbe":{"timeoutSeconds":5},"name":"app"}]}}}}'`},
		{func(b *bundle.Bundle) {
			b.CronJobs = []*batchv1.CronJob{{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}}}
		},
			`kubectl patch cronjob/nightly -n shop -p '{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"livenessProbe":{"timeoutSeconds":5},"name":"app"}]}}}}}}'`},
		{func(b *bundle.Bundle) { b.Jobs = []*batchv1.Job{{ObjectMeta: metav1.ObjectMeta{Name: "once"}}} },
			`kubectl get job once -n shop -o yaml > once.yaml`},
		{func(*bundle.Bundle) {}, `kubectl replace --force -f web-1.yaml`},
	} {
		c := investigatetest.Pass(bundletest.PodBundle(p, tt.mutate))
		a := podrules.ContainerPatch(c, p, "app", fields, "Fix it.", "")
		if !strings.Contains(strings.Join(a.Commands, "\n"), tt.want) {
			t.Errorf("commands %q lack %q", a.Commands, tt.want)
		}
		if a.Risk == "" {
			t.Errorf("no risk for %q", a.Commands)
		}
	}
}

// TestPodLevelFailureIsNotAContainerFailure: a container stopped by the
// pod's own fate (deadline, shutdown) did not fail on its own.
func TestPodLevelFailureIsNotAContainerFailure(t *testing.T) {
	p := bundletest.Pod("task", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Status.Phase, p.Status.Reason = corev1.PodFailed, "DeadlineExceeded"
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", FinishedAt: bundletest.TS(-time.Minute)}}}}
	})
	if fs := podrules.CrashLoop.Check(investigatetest.Pass(bundletest.PodBundle(p))); len(fs) != 0 {
		t.Errorf("container failure reported for a pod-level stop: %+v", fs)
	}
}
