package investigate

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
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	podrules "github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
)

// TestProbeSpecMissingIsInconclusive: events about a probe the spec does
// not have cannot be tied to it; the report stays degraded.
func TestProbeSpecMissingIsInconclusive(t *testing.T) {
	p := pod("api", runningNotReady)
	b := podBundle(p, withEvents(event(p, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 3)))
	fs := podrules.Probe.Check(testPass(b))
	if len(fs) != 1 || fs[0].Verdict != report.Inconclusive {
		t.Fatalf("want one inconclusive finding, got %+v", fs)
	}
	if r := Investigate(b, Options{Now: now}); !r.Degraded {
		t.Errorf("report should stay degraded, got %q", r.Title)
	}
}

// TestHealthyContainersYieldNothing: none of the new rules speaks about a
// healthy pod, even with probes that do not match its ports.
func TestHealthyContainersYieldNothing(t *testing.T) {
	p := pod("api", healthy, withCtrPorts(ctrPort("http", 3000)), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(3000))),
		withReadiness(httpGetProbe("/ready", intstr.FromString("http"))))
	c := testPass(podBundle(p))
	for _, rule := range rulesOf("pod") {
		if fs := rule.Check(c.For(rule)); len(fs) != 0 {
			t.Errorf("rule %s speaks about a healthy pod: %+v", rule.ID, fs)
		}
	}
}

// TestOldTransientProbeFailures: liveness failures hours ago that never
// reached the threshold do not make a healthy pod faulty.
func TestOldTransientProbeFailures(t *testing.T) {
	p := pod("api", healthy, withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080))))
	e := ctrEvent(p, "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 2)
	e.FirstTimestamp, e.LastTimestamp = ts(-5*time.Hour), ts(-5*time.Hour)
	r := Investigate(podBundle(p, withEvents(e)), Options{Now: now})
	if !r.Healthy {
		t.Errorf("want healthy, got %q", r.Title)
	}
}

// TestNotOOMKilledIsRuledOut: exit 137 with reason Error and no memory
// limit is not the OOM killer at a limit.
func TestNotOOMKilledIsRuledOut(t *testing.T) {
	r := Investigate(podBundle(pod("api", crashing(137, "Error"), func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Limits = nil })), Options{Now: now})
	found := false
	for _, h := range r.RuledOut {
		if strings.Contains(h, "OOMKilled") {
			found = true
		}
	}
	if !found {
		t.Errorf("OOM kill not ruled out: %v", r.RuledOut)
	}
	r = Investigate(podBundle(pod("api", crashing(137, "OOMKilled"))), Options{Now: now})
	for _, h := range r.RuledOut {
		if strings.Contains(h, "OOMKilled") {
			t.Errorf("a real OOM kill is ruled out: %v", r.RuledOut)
		}
	}
}

// TestLivenessKillDemotesCrash: the crash finding stays, below the probe.
func TestLivenessKillDemotesCrash(t *testing.T) {
	p := pod("web", crashing(137, "Error"), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080))))
	b := podBundle(p, withLogs(true, "panic: boom\n"), withEvents(
		ctrEvent(p, "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 9),
		ctrEvent(p, "Normal", "Killing", "Container app failed liveness probe, will be restarted", 3)))
	c := testPass(b)
	crash := podrules.CrashLoop.Check(c)
	if len(crash) != 1 || crash[0].Strength != rule.Symptom {
		t.Fatalf("crash finding not demoted: %+v", crash)
	}
	if r := Investigate(b, Options{Now: now}); !strings.HasPrefix(r.RootCause.Category, "Probe/Liveness/") {
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
		c := testPass(podBundle(pod("api", evictedWith(msg))))
		if fs := podrules.Evicted.Check(c); len(fs) != 0 {
			t.Errorf("%q: container rule speaks: %+v", msg, fs)
		}
	}
}

// TestEvictedLeftoverIsHistory: an evicted pod of a Deployment was replaced;
// a current crash of another pod outranks it.
func TestEvictedLeftoverIsHistory(t *testing.T) {
	old := pod("web-1", evictedWith(`Container app exceeded its local ephemeral storage limit "1Gi". `))
	cur := pod("web-2", crashing(1, "Error"))
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "dep"}, Pods: []*corev1.Pod{old, cur},
		Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "web-2", Container: "app", Previous: true, Text: "FATAL: API_KEY is not set\n"}}}
	r := Investigate(b, Options{Now: now})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/MissingEnv") {
		t.Errorf("root cause %q, want the current crash", r.RootCause.Category)
	}
	fs := podrules.Evicted.Check(testPass(b))
	if len(fs) != 1 || fs[0].Current {
		t.Errorf("evicted leftover should be history: %+v", fs)
	}
}

// TestStaleImagePullDoesNotExplainCrash: an old pull failure is history.
func TestStaleImagePullDoesNotExplainCrash(t *testing.T) {
	p := pod("api", crashing(1, "Error"))
	stale := event(p, "Warning", "Failed", `Failed to pull image "registry.example.com/shop/api:1.4.2": rpc error: code = NotFound desc = manifest unknown`, 4)
	stale.FirstTimestamp, stale.LastTimestamp = ts(-4*time.Hour), ts(-3*time.Hour)
	r := Investigate(podBundle(p, withEvents(stale), withLogs(true, "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n")), Options{Now: now})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/Exit1/Panic") {
		t.Errorf("root cause %q, want the crash", r.RootCause.Category)
	}
}

// TestTerminatingWithinGraceIsNotStuck: a deletion still in its grace
// period, or an overdue one nothing explains, is not a validated cause.
func TestTerminatingWithinGraceIsNotStuck(t *testing.T) {
	c := testPass(podBundle(pod("api", deletedAgo(-10*time.Second, "example.com/cleanup"))))
	if fs := podrules.StuckTerminating.Check(c); len(fs) != 0 {
		t.Errorf("pod within its grace period reported: %+v", fs)
	}
	c = testPass(podBundle(pod("api", deletedAgo(time.Hour))))
	fs := podrules.StuckTerminating.Check(c)
	if len(fs) != 1 || fs[0].Verdict != report.Inconclusive {
		t.Errorf("want one inconclusive finding, got %+v", fs)
	}
}

// TestOOMKilledSidecar: only the sidecar is OOMKilled; the report names it.
func TestOOMKilledSidecar(t *testing.T) {
	p := pod("api", healthy, func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "log-shipper", Image: "fluent-bit:3",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}}})
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "log-shipper", RestartCount: 7,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: ts(-time.Minute)}}})
	})
	r := Investigate(podBundle(p), Options{Now: now})
	if r.RootCause.Category != "OOMKilled" || !strings.Contains(r.RootCause.Culprit, "container log-shipper") || !strings.Contains(r.RootCause.Culprit, "32Mi") {
		t.Errorf("got %q / %q", r.RootCause.Category, r.RootCause.Culprit)
	}
}

func TestNearestConfigKey(t *testing.T) {
	keys := []string{"LOG_LEVEL", "database-url", "PORT"}
	for want, near := range map[string]string{"log_level": "LOG_LEVEL", "DATABASE_URL": "database-url", "PROT": "PORT", "TOTALLY_ELSE": ""} {
		if got := podrules.NearestConfigKey(want, keys); got != near {
			t.Errorf("nearestConfigKey(%q) = %q, want %q", want, got, near)
		}
	}
}

func TestFindDecisiveRuntimeLines(t *testing.T) {
	tests := []struct{ log, class, subject string }{
		{"exec /app/server: no such file or directory\n", "CommandNotFound", "command /app/server"},
		{`exec: "node": executable file not found in $PATH` + "\n", "CommandNotFound", "command node"},
		{"sh: 1: migrate: not found\n", "CommandNotFound", "command migrate"},
		{"bash: line 1: gunicorn: command not found\n", "CommandNotFound", "command gunicorn"},
		{"exec /docker-entrypoint.sh: exec format error\n", "ExecFormat", "/docker-entrypoint.sh"},
		{"Segmentation fault (core dumped)\n", "Segfault", ""},
	}
	for _, tt := range tests {
		d := logs.FindDecisive(tt.log)
		if d == nil || d.Pattern.Class != tt.class {
			t.Errorf("%q: got %+v, want %s", tt.log, d, tt.class)
			continue
		}
		if got := logs.SubjectOf(d.Pattern.Class, d.Line); got != tt.subject {
			t.Errorf("%q: subject %q, want %q", tt.log, got, tt.subject)
		}
	}
	// A Go panic keeps its panic line, not the SIGSEGV line under it.
	d := logs.FindDecisive("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a]\n\ngoroutine 1 [running]:\nmain.main()\n")
	if d == nil || d.Pattern.Class != "Panic" || !strings.HasPrefix(d.Line, "panic: ") {
		t.Errorf("go panic: got %+v", d)
	}
}

func TestExitCode128(t *testing.T) {
	if got := kube.ExplainExit(128).Meaning; !strings.Contains(got, "could not start") {
		t.Errorf("exit 128: %q", got)
	}
}

// TestContainerPatchByOwner: the fix patches the owner's pod template by
// container name, or recreates what cannot be patched.
func TestContainerPatchByOwner(t *testing.T) {
	p := pod("web-1", crashing(137, "Error"))
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
		c := testPass(podBundle(p, tt.mutate))
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
	p := pod("task", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Status.Phase, p.Status.Reason = corev1.PodFailed, "DeadlineExceeded"
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", FinishedAt: ts(-time.Minute)}}}}
	})
	if fs := podrules.CrashLoop.Check(testPass(podBundle(p))); len(fs) != 0 {
		t.Errorf("container failure reported for a pod-level stop: %+v", fs)
	}
}
