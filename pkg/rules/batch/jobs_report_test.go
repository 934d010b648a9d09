package batch_test

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
)

// retryingJob is Job report, not finished, with failed pods so far.
func retryingJob(failed, active, limit int32, mutate ...func(*batchv1.Job)) *batchv1.Job {
	j := bundletest.NewJob("report", "", "", failed, func(j *batchv1.Job) {
		j.Spec.BackoffLimit = bundletest.I32(limit)
		j.Status.Active = active
	})
	for _, m := range mutate {
		m(j)
	}
	return j
}

func TestJobRetrying(t *testing.T) {
	jobPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return bundletest.OwnedPod(name, bundletest.CtrlRef("Job", "report"), mutate...)
	}
	refused := "2026-11-21T14:40:01Z dial tcp 10.0.0.5:5432: connect: connection refused\n"
	threeFailed := func(b *bundle.Bundle) {
		b.Jobs = []*batchv1.Job{retryingJob(3, 1, 6)}
		b.Pods = []*corev1.Pod{jobPod("report-aaaaa", bundletest.FailedPod(1, "Error")), jobPod("report-bbbbb", bundletest.FailedPod(1, "Error")),
			jobPod("report-ccccc", bundletest.FailedPod(1, "Error")), jobPod("report-ddddd", bundletest.Healthy)}
	}
	logs := []func(*bundle.Bundle){bundletest.PodLogs("report-aaaaa", refused), bundletest.PodLogs("report-bbbbb", refused), bundletest.PodLogs("report-ccccc", refused)}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name:         "the failed pods' own cause is the root cause, the Job its context",
			Bundle:       bundletest.WorkloadBundle("Job", "report", append([]func(*bundle.Bundle){threeFailed}, logs...)...),
			WantCategory: "ContainerFailed/Exit1/ConnectionRefused",
			WantCulprit:  []string{"10.0.0.5:5432"},
			WantRule:     "Job/Retrying",
			WantText: []string{"Job context: Job report is retrying: 3 of the 6 failures its backoffLimit allows; 1 pod(s) active.",
				"Job context: At the 7th failure, 4 more from now, the Job controller marks the Job Failed (BackoffLimitExceeded)",
				`kubectl patch job report -n shop --type=merge -p '{"spec":{"suspend":true}}'`, "report-aaaaa, report-bbbbb, report-ccccc"},
		},
		{
			Name:         "without a pod rule the Job names the exit and the log line",
			Bundle:       bundletest.WorkloadBundle("Job", "report", append([]func(*bundle.Bundle){threeFailed}, logs...)...),
			WantCategory: "Job/Retrying/ConnectionRefused",
			WantCulprit:  []string{"log line of pod/report-", "10.0.0.5:5432"},
			WantTitle:    []string{"job report is retrying (3 of the 6 failures its backoffLimit allows)", "exits with code 1"},
			WantText:     []string{"At the 7th failure", "kubectl logs report-"},
			MinConf:      0.9,
			Isolated:     true,
		},
		{
			Name: "failed pods gone: the counts are all there is",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(2, 1, 3)}
			}),
			WantCategory: "Job/Retrying",
			WantCulprit:  []string{"job/report (2 failed pod(s), backoffLimit 3)"},
			WantTitle:    []string{"2 of the 3 failures", "pods are gone"},
			WantText:     []string{"At the 4th failure, 2 more from now"},
		},
		{
			Name: "between two attempts, with a deadline",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(2, 0, 6, func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = bundletest.I64(7200) })}
			}),
			WantCategory: "Job/Retrying",
			WantText:     []string{"no pod runs right now: the controller waits about 20s", "activeDeadlineSeconds (7200s) ends it at 2026-11-21 16:00:00 UTC (in 1h)"},
		},
		{
			Name: "restartPolicy OnFailure: the restarts of the running pod count",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(0, 1, 6, func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure })}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
					p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
				})}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "report-aaaaa", Container: "app", Previous: true, Text: "FATAL: S3_BUCKET is not set\n"}}
			}),
			WantCategory: "CrashLoop/Exit1/MissingEnv",
			WantRule:     "Job/Retrying",
			WantText:     []string{"5 container restart(s) of its running pods and 0 failed pod(s) so far, against a backoffLimit of 6", "After 1 more restart(s) (6 in all)"},
		},
		{
			Name: "indexed job with a limit per index",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(1, 2, 6, func(j *batchv1.Job) {
					mode := batchv1.IndexedCompletion
					j.Spec.CompletionMode, j.Spec.BackoffLimitPerIndex, j.Spec.BackoffLimit = &mode, bundletest.I32(1), nil
					failed := "2"
					j.Status.FailedIndexes = &failed
				})}
			}),
			WantCategory: "Job/Retrying",
			WantText:     []string{"backoffLimitPerIndex 1", "status.failedIndexes: 2"},
		},
		{
			Name: "a failed Job is not retrying",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
			}),
			WantRule: "Job/BackoffLimitExceeded",
			NoRule:   "Job/Retrying",
			AnyRoot:  true,
		},
		{
			Name: "a Job the controller is failing is not retrying",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(4, 1, 3, func(j *batchv1.Job) {
					j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
				})}
			}),
			NoRule:  "Job/Retrying",
			AnyRoot: true,
		},
		{
			Name: "a suspended Job is not retrying",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(2, 0, 6, func(j *batchv1.Job) { j.Spec.Suspend = bundletest.BoolPtr(true) })}
			}),
			NoRule:  "Job/Retrying",
			AnyRoot: true,
		},
	})
}

func TestCronRunsPileUp(t *testing.T) {
	cjRef := bundletest.CtrlRef("CronJob", "nightly")
	run := func(name string, age time.Duration) *batchv1.Job {
		j := bundletest.CompleteJob(name, age, cjRef)
		j.Status.Succeeded, j.Status.Active, j.Status.Conditions = 0, 1, nil
		return j
	}
	// Four runs of "*/10 * * * *" started 35, 25, 15 and 5 minutes ago are
	// all still active; the last one to complete took 38 minutes.
	pileUp := func(policy batchv1.ConcurrencyPolicy, newestPod ...func(*corev1.Pod)) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			cj := bundletest.NewCronJob("*/10 * * * *", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = policy })
			cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-5 * time.Minute)}
			done := bundletest.CompleteJob("nightly-0", 75*time.Minute, cjRef)
			done.Status.CompletionTime = &metav1.Time{Time: bundletest.Now.Add(-37 * time.Minute)}
			b.Jobs = []*batchv1.Job{done}
			for i, age := range []time.Duration{35, 25, 15, 5} {
				j := run("nightly-"+string(rune('1'+i)), age*time.Minute)
				b.Jobs = append(b.Jobs, j)
				cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{Kind: "Job", Namespace: "shop", Name: j.Name, UID: j.UID})
			}
			b.CronJobs = []*batchv1.CronJob{cj}
			b.Pods = []*corev1.Pod{bundletest.OwnedPod("nightly-4-aaaaa", bundletest.CtrlRef("Job", "nightly-4"), append([]func(*corev1.Pod){bundletest.Healthy}, newestPod...)...)}
			b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "nightly-4-aaaaa", Container: "app", Text: "2026-11-21T14:59:00Z exporting page 41 of 300\n"}}
		}
	}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name:         "runs outlive the period and pile up",
			Bundle:       bundletest.WorkloadBundle("CronJob", "nightly", pileUp("")),
			WantCategory: "CronJob/RunsPileUp",
			WantCulprit:  []string{"concurrencyPolicy: Allow", `schedule "*/10 * * * *" (every 10m)`, "4 jobs active", "the oldest (nightly-1) for 35m"},
			WantTitle:    []string{"4 jobs active at once, running for 35m, 25m, 15m and 5m", "starts one every 10m"},
			WantText: []string{"Allow (the default)", "job nightly-0, took 38m", `exporting page 41 of 300`,
				`{"spec":{"concurrencyPolicy":"Forbid"}}`, `{"spec":{"concurrencyPolicy":"Replace"}}`, `{"spec":{"jobTemplate":{"spec":{"activeDeadlineSeconds":540}}}}`,
				"kubectl delete job nightly-1 -n shop", "never completes"},
			MinConf: 0.85,
		},
		{
			Name:         "explicit Allow",
			Bundle:       bundletest.WorkloadBundle("CronJob", "nightly", pileUp(batchv1.AllowConcurrent)),
			WantCategory: "CronJob/RunsPileUp",
		},
		{
			Name: "a crash-looping run: the pod's cause wins, the pile-up is context",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", pileUp("", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
			}), func(b *bundle.Bundle) {
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "nightly-4-aaaaa", Container: "app", Previous: true, Text: "open /etc/export/config.yaml: no such file or directory\n"}}
			}),
			WantCategory: "CrashLoop/Exit1/MissingFile",
			WantRule:     "CronJob/RunsPileUp",
			WantText:     []string{"CronJob context: CronJob nightly piles up runs: 4 jobs active at once", `{"spec":{"concurrencyPolicy":"Forbid"}}`},
		},
		{
			// The collector reads the pods of the oldest active runs too:
			// a pod cause there explains the pile-up, even when the newest
			// run is busy and healthy.
			Name:         "the oldest run's pod crashes, the newest is busy: the crash wins",
			Bundle:       bundletest.WorkloadBundle("CronJob", "nightly", pileUp(""), oldRunCrashes("nightly-1", "open /etc/export/config.yaml: no such file or directory\n")),
			WantCategory: "CrashLoop/Exit1/MissingFile",
			WantCulprit:  []string{"/etc/export/config.yaml"},
			WantRule:     "CronJob/RunsPileUp",
			WantText:     []string{"pod nightly-1-aaaaa of the oldest run fails (CrashLoop/Exit1/MissingFile), which keeps it from finishing"},
		},
		{
			Name: "two runs' pods fail: the pile-up quotes the oldest run's cause",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", pileUp(""),
				oldRunCrashes("nightly-3", "FATAL: EXPORT_BUCKET is not set\n"),
				oldRunCrashes("nightly-2", "open /etc/export/config.yaml: no such file or directory\n")),
			WantRule: "CronJob/RunsPileUp",
			WantText: []string{"pod nightly-2-aaaaa of run nightly-2 fails (CrashLoop/Exit1/MissingFile)"},
			AnyRoot:  true,
		},
		{
			Name:     "Forbid does not pile up",
			Bundle:   bundletest.WorkloadBundle("CronJob", "nightly", pileUp(batchv1.ForbidConcurrent)),
			NoRule:   "CronJob/RunsPileUp",
			WantRule: "CronJob/ConcurrencyBlocked",
			AnyRoot:  true,
		},
		{
			Name: "one long run is no pile-up",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("*/10 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-5 * time.Minute)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: "shop", Name: "nightly-1"}}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{run("nightly-1", 35*time.Minute)}
			}),
			NoRule:  "CronJob/RunsPileUp",
			AnyRoot: true,
		},
		{
			Name: "a suspended CronJob starts no more runs",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", pileUp(""), func(b *bundle.Bundle) {
				b.CronJobs[0].Spec.Suspend = bundletest.BoolPtr(true)
			}),
			NoRule:  "CronJob/RunsPileUp",
			AnyRoot: true,
		},
	})
}

// oldRunCrashes adds a crash-looping pod, whose previous instance logged
// line, to the run named job.
func oldRunCrashes(job, line string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		p := bundletest.OwnedPod(job+"-aaaaa", bundletest.CtrlRef("Job", job), bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
		})
		b.Pods = append(b.Pods, p)
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: p.Name, Container: "app", Previous: true, Text: line})
	}
}
