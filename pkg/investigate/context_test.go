package investigate

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestRolloutContextReachesRootCause: when the crashing pod's own finding
// is the root cause, the rollout that introduced it still shows in the Root
// cause section: which revision, what it changed, and the exact rollback.
func TestRolloutContextReachesRootCause(t *testing.T) {
	b := bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0", bundletest.WithoutEnv("DATABASE_URL")), bundletest.Crashing(1, "Error"))
	b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-new-aaaaa", Container: "app", Previous: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}}
	r := Investigate(b, Options{Now: bundletest.Now})
	if !strings.HasPrefix(r.RootCause.Category, "CrashLoop/") {
		t.Fatalf("root cause %s, want the pod's crash", r.RootCause.Category)
	}
	if !r.Ongoing {
		t.Errorf("a current crash loop is reported as history")
	}
	got := strings.Join(r.RootCause.Contributing, "\n")
	for _, want := range []string{
		"Rollout context: The pod failure matches a change of revision 2 (container app env DATABASE_URL removed)",
		"Rollout context: Revision 1 (ReplicaSet web-old) still serves 2 ready pod(s)",
		"Rollout context: Introduced by revision 2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("root cause contributing lacks %q:\n%s", want, got)
		}
	}
	rolloutEv := 0
	for _, id := range r.RootCause.Evidence {
		if !hasEvidence(r, id) {
			t.Errorf("root cause cites %s, which is not in the evidence list", id)
		}
		for _, e := range r.Evidence {
			if e.ID == id && strings.Contains(e.Fact, "Revision 2 changed the pod template") {
				rolloutEv++
			}
		}
	}
	if rolloutEv != 1 {
		t.Errorf("the root cause does not cite the revision diff: %v", r.RootCause.Evidence)
	}
	var rollbacks []string
	for _, a := range r.Actions {
		for _, cmd := range a.Commands {
			if strings.Contains(cmd, "rollout undo") {
				rollbacks = append(rollbacks, cmd)
			}
		}
	}
	if len(rollbacks) != 1 || !strings.HasSuffix(rollbacks[0], "--to-revision=1") {
		t.Errorf("want the one precise rollback to revision 1, got %q", rollbacks)
	}
}

// TestJobContextReachesRootCause: a failed Job's pods explain it; the root
// cause still says the Job gave up and must be run again.
func TestJobContextReachesRootCause(t *testing.T) {
	b := bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
		b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
		b.Pods = []*corev1.Pod{bundletest.OwnedPod("report-x1", bundletest.CtrlRef("Job", "report"), bundletest.FailedPod(1, "Error"))}
		b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "report-x1", Container: "app", Text: "FATAL: S3_BUCKET is not set\n"}}
	})
	r := Investigate(b, Options{Now: bundletest.Now})
	if strings.HasPrefix(r.RootCause.Category, "Job/") {
		t.Fatalf("root cause %s: the pod's own cause should win", r.RootCause.Category)
	}
	if got := strings.Join(r.RootCause.Contributing, "\n"); !strings.Contains(got, "Job context: Job report failed (BackoffLimitExceeded) because its pods failed 4 time(s), more than its backoffLimit of 3") {
		t.Errorf("root cause lacks the Job's context:\n%s", got)
	}
	rerun := false
	for _, a := range r.Actions {
		rerun = rerun || a.Kind == report.Immediate && strings.Contains(a.Description, "run the Job again")
	}
	if !rerun {
		t.Errorf("no action says the failed Job must be run again: %+v", r.Actions)
	}
}

func TestAddContext(t *testing.T) {
	best := rule.Finding{Category: "CrashLoop/Exit1", Verdict: report.Validated, Current: true, Title: "container app crashes", Evidence: []string{"E1"},
		Actions: []report.Action{{Kind: report.LongTerm, Description: "Roll back", Commands: []string{"kubectl rollout undo deployment/web -n shop"}}}}
	ctx := func(cat rule.Category, v report.Verdict, current, context bool) rule.Finding {
		return rule.Finding{Category: cat, Verdict: v, Current: current, Context: context, Evidence: []string{"E9"},
			Contributing: []string{"Revision 2 removed env X.", "Why: container app crashes."},
			Actions: []report.Action{
				{Kind: report.Immediate, Description: "Roll back to revision 1.", Commands: []string{"kubectl rollout undo deployment/web -n shop --to-revision=1"}},
				{Kind: report.Check, Description: "Compare revisions.", Commands: []string{"kubectl rollout history deployment/web -n shop"}},
			}}
	}
	tests := []struct {
		name    string
		other   rule.Finding
		added   bool
		actions int
	}{
		{"validated current context", ctx("Rollout/Stuck/PodsFailing", report.Validated, true, true), true, 1},
		{"not a context finding", ctx("Rollout/Stuck/PodsFailing", report.Validated, true, false), false, 1},
		{"inconclusive", ctx("Rollout/Stuck/PodsFailing", report.Inconclusive, true, true), false, 1},
		{"history", ctx("Rollout/Stuck/PodsFailing", report.Validated, false, true), false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := []rule.Finding{best, tt.other}
			r := &report.Report{}
			applyFinding(r, &fs[0], symptomSet{lines: []string{"x"}})
			addContext(r, &fs[0], fs)
			got := strings.Join(r.RootCause.Contributing, "\n")
			if tt.added != strings.Contains(got, "Rollout context: Revision 2 removed env X.") {
				t.Errorf("context added = %v, want %v: %q", !tt.added, tt.added, got)
			}
			if strings.Contains(got, "Why:") {
				t.Errorf("a fact restating the root cause was carried: %q", got)
			}
			if tt.added != slices.Contains(r.RootCause.Evidence, "E9") {
				t.Errorf("evidence %v: context evidence added = %v", r.RootCause.Evidence, !tt.added)
			}
			if len(r.Actions) != tt.actions {
				t.Errorf("%d actions, want %d: %+v", len(r.Actions), tt.actions, r.Actions)
			}
			if tt.added && r.Actions[0].Description != "Roll back to revision 1." {
				t.Errorf("the precise rollback did not replace the generic one: %+v", r.Actions)
			}
			if len(fs[0].Contributing) != 0 || len(fs[0].Evidence) != 1 {
				t.Errorf("the winning finding itself was modified: %+v", fs[0])
			}
		})
	}
}

// TestWorkloadContext: each workload finding that defers to its pods' own
// cause hands its view of the fault to the root cause.
func TestWorkloadContext(t *testing.T) {
	missingEnv := func(pod string, previous bool) bundle.ContainerLog {
		return bundle.ContainerLog{Namespace: "shop", Pod: pod, Container: "app", Previous: previous, Text: "FATAL config: required env DATABASE_URL is empty\n"}
	}
	onNode := func(p *corev1.Pod) { p.Spec.NodeName = "node-1" }
	tests := []struct {
		name   string
		bundle *bundle.Bundle
		want   string
	}{
		{
			name: "statefulset ordinal blocked by a crashing pod",
			bundle: bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 1, 0)}
				b.Pods = []*corev1.Pod{bundletest.OwnedPod("db-0", bundletest.CtrlRef("StatefulSet", "db"), bundletest.Crashing(1, "Error"))}
				b.Logs = []bundle.ContainerLog{missingEnv("db-0", true)}
			}),
			want: "StatefulSet context: StatefulSet db is stuck at 0/3 ready: with podManagementPolicy OrderedReady it creates db-1, db-2 only once db-0 (ordinal 0) is Ready.",
		},
		{
			name: "daemonset unavailable on a node where its pod crashes",
			bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(1, 1, 0)}
				b.Pods = []*corev1.Pod{bundletest.OwnedPod("agent-x", bundletest.CtrlRef("DaemonSet", "agent"), bundletest.Crashing(1, "Error"), onNode)}
				b.Logs = []bundle.ContainerLog{missingEnv("agent-x", true)}
			}),
			want: "DaemonSet context: DaemonSet agent is available on 0 of its 1 nodes; its failing pods: agent-x (node node-1).",
		},
		{
			name:   "cronjob whose last run failed",
			bundle: symCronJob(nil, symFailedCronRun("nightly-2", 30*time.Minute)),
			want:   "CronJob context: CronJob nightly: the last 1 run(s) failed",
		},
		{
			name: "cronjob blocked by a crash-looping run",
			bundle: symCronJob(func(cj *batchv1.CronJob) {
				cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: "shop", Name: "nightly-1"}}
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-3 * time.Hour)}
			}, symRunningCronRun("nightly-1", 3*time.Hour)),
			want: "CronJob context: CronJob nightly skips its runs: job nightly-1 has been active since",
		},
	}
	// The CronJob runs' pods: one failed pod per run, whose log names the cause.
	for _, j := range tests[2].bundle.Jobs {
		tests[2].bundle.Pods = append(tests[2].bundle.Pods, bundletest.OwnedPod(j.Name+"-p", bundletest.CtrlRef("Job", j.Name), bundletest.FailedPod(1, "Error")))
		tests[2].bundle.Logs = append(tests[2].bundle.Logs, missingEnv(j.Name+"-p", false))
	}
	tests[3].bundle.Pods = []*corev1.Pod{bundletest.OwnedPod("nightly-1-p", bundletest.CtrlRef("Job", "nightly-1"), bundletest.Crashing(1, "Error"))}
	tests[3].bundle.Logs = []bundle.ContainerLog{missingEnv("nightly-1-p", true)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Investigate(tt.bundle, Options{Now: bundletest.Now})
			if !strings.Contains(r.RootCause.Culprit, "DATABASE_URL") {
				t.Errorf("root cause %s (%q): want the pod's missing env", r.RootCause.Category, r.Title)
			}
			if got := strings.Join(r.RootCause.Contributing, "\n"); !strings.Contains(got, tt.want) {
				t.Errorf("root cause contributing lacks %q:\n%s", tt.want, got)
			}
			if !r.Ongoing {
				t.Errorf("the report is not ongoing")
			}
		})
	}
}

func hasEvidence(r *report.Report, id string) bool {
	for _, e := range r.Evidence {
		if e.ID == id {
			return true
		}
	}
	return false
}
