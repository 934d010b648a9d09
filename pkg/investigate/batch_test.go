package investigate

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

func TestJobFailed(t *testing.T) {
	jobPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return ownedPod(name, ctrlRef("Job", "report"), mutate...)
	}
	runWorkloadCases(t, []workloadCase{
		{
			name: "backoff limit: failed pods exit with a missing env line",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", failedPod(1, "Error")), jobPod("report-bbbbb", failedPod(1, "Error"))}
			}, podLogs("report-aaaaa", "2026-11-21T14:40:00Z loading\n2026-11-21T14:40:01Z FATAL: S3_BUCKET is not set\n"), podLogs("report-bbbbb", "FATAL: S3_BUCKET is not set\n")),
			wantCategory: "Job/BackoffLimitExceeded/MissingEnv",
			wantCulprit:  []string{"S3_BUCKET"},
			wantTitle:    []string{"exits with code 1", "environment variable S3_BUCKET"},
			wantText:     []string{"more than its backoffLimit of 3", "report-aaaaa, report-bbbbb"},
			minConf:      0.9,
			isolated:     true,
		},
		{
			name: "backoff limit: a pod-level finding explains the failed pods",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", failedPod(1, "Error"))}
			}, podLogs("report-aaaaa", "FATAL: S3_BUCKET is not set\n")),
			wantRule: "Job/BackoffLimitExceeded",
			anyRoot:  true,
		},
		{
			name: "backoff limit with the exit code only",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", failedPod(2, "Error"))}
			}),
			wantCategory: "Job/BackoffLimitExceeded/Exit2",
			wantTitle:    []string{"code 2 (misuse or invalid arguments)"},
			isolated:     true,
		},
		{
			name: "backoff limit, pods gone",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
			}),
			wantCategory: "Job/BackoffLimitExceeded",
			wantCulprit:  []string{"job/report spec.backoffLimit"},
			wantText:     []string{"4 failed", "pods are gone"},
		},
		{
			name: "deadline exceeded, pods gone",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "DeadlineExceeded", "Job was active longer than specified deadline", 1, func(j *batchv1.Job) {
					j.Spec.ActiveDeadlineSeconds = i64(600)
				})}
			}),
			wantCategory: "Job/DeadlineExceeded",
			wantCulprit:  []string{"spec.activeDeadlineSeconds"},
			wantTitle:    []string{"(600s)", "0 of 1 completions"},
		},
		{
			name: "evicted pod",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", func(p *corev1.Pod) {
					p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi."}
				})}
			}),
			wantCategory: "Job/BackoffLimitExceeded/Evicted",
			wantTitle:    []string{"ephemeral-storage"},
			isolated:     true,
		},
		{
			name: "pod failure policy",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "PodFailurePolicy", `Container app for pod shop/report-aaaaa failed with exit code 42 matching FailJob rule at index 0`, 1)}
			}),
			wantCategory: "Job/PodFailurePolicy",
			wantTitle:    []string{"exit code 42"},
		},
		{
			name: "OnFailure job crash-looping: the pod cause wins",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 0)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", crashing(1, "Error"), func(p *corev1.Pod) {
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
				})}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "report-aaaaa", Container: "app", Previous: true, Text: "dial tcp 10.0.0.5:5432: connect: connection refused\n"}}
			}),
			wantCategory: "CrashLoop/Exit1/ConnectionRefused",
			wantRule:     "Job/BackoffLimitExceeded",
		},
		{
			name: "running job is not failed",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				j := newJob("report", "", "", 0)
				j.Status.Active = 1
				b.Jobs = []*batchv1.Job{j}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", healthy)}
			}),
			healthy: true,
		},
	})
}

func TestCronJob(t *testing.T) {
	cjRef := ctrlRef("CronJob", "nightly")
	cronPod := func(jobName, name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return ownedPod(name, ctrlRef("Job", jobName), mutate...)
	}
	failedRun := func(name string, age time.Duration) *batchv1.Job {
		j := newJob(name, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)
		j.OwnerReferences = []metav1.OwnerReference{cjRef}
		j.CreationTimestamp = ts(-age)
		j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: now.Add(-age).Format(time.RFC3339)}
		return j
	}
	runWorkloadCases(t, []workloadCase{
		{
			name: "last runs failed",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-13 * time.Hour)}
				cj.Status.LastSuccessfulTime = &metav1.Time{Time: now.Add(-61 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				older := failedRun("nightly-1", 37*time.Hour)
				older.CreationTimestamp = ts(-13 * time.Hour) // recreated: only the scheduled time orders the runs
				b.Jobs = []*batchv1.Job{older, failedRun("nightly-2", 13*time.Hour), completeJob("nightly-0", 61*time.Hour, cjRef)}
				b.Pods = []*corev1.Pod{cronPod("nightly-2", "nightly-2-aaaaa", failedPod(1, "Error"))}
			}, podLogs("nightly-2-aaaaa", "open /etc/report/config.yaml: no such file or directory\n")),
			wantCategory: "CronJob/FailingJobs/MissingFile",
			wantCulprit:  []string{"/etc/report/config.yaml"},
			wantTitle:    []string{"last 2 run(s) failed", "nightly-0", "nightly-2"},
			minConf:      0.8,
			isolated:     true,
		},
		{
			name: "last runs failed: a pod-level finding explains the pod",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-13 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{failedRun("nightly-2", 13*time.Hour)}
				b.Pods = []*corev1.Pod{cronPod("nightly-2", "nightly-2-aaaaa", failedPod(1, "Error"))}
			}, podLogs("nightly-2-aaaaa", "open /etc/report/config.yaml: no such file or directory\n")),
			wantRule: "CronJob/FailingJobs",
			anyRoot:  true,
		},
		{
			name: "failed run whose pods are gone",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-13 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{failedRun("nightly-2", 13*time.Hour)}
			}),
			wantCategory: "CronJob/FailingJobs",
			wantTitle:    []string{"no successful run", "pods are gone"},
		},
		{
			name: "suspended for days",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.Suspend = boolPtr(true) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-72 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			wantCategory: "CronJob/Suspended",
			wantCulprit:  []string{"spec.suspend: true"},
			wantTitle:    []string{"72 scheduled run(s) skipped", "3d ago"},
			wantText:     []string{`kubectl patch cronjob nightly -n shop -p '{"spec":{"suspend":false}}'`, "about every 1h"},
		},
		{
			name: "suspended a moment ago is deliberate",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.Suspend = boolPtr(true) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-30 * time.Minute)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			healthy: true,
		},
		{
			name: "too many missed start times",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("*/5 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-10 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{objEvent("CronJob", "nightly", "Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew", 12, time.Minute)}
			}),
			wantCategory: "CronJob/MissedSchedules",
			wantCulprit:  []string{"startingDeadlineSeconds"},
			wantTitle:    []string{"more than 100", "119 run(s)"},
			wantText:     []string{`{"spec":{"startingDeadlineSeconds":150}}`},
		},
		{
			name: "old controller wording",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("*/5 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-10 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{objEvent("CronJob", "nightly", "Warning", "FailedNeedsStart", "Cannot determine if job needs to be started: too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.", 3, time.Minute)}
			}),
			wantCategory: "CronJob/MissedSchedules",
		},
		{
			name: "start deadline too short",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = i64(5) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-3 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{objEvent("CronJob", "nightly", "Warning", "MissSchedule", "Missed scheduled time to start a job: Sat, 21 Nov 2026 14:00:00 +0000", 3, time.Hour)}
			}),
			wantCategory: "CronJob/MissedSchedules",
			wantTitle:    []string{"startingDeadlineSeconds 5"},
		},
		{
			name: "schedule lags with no event",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("*/15 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-2 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			wantCategory: "CronJob/MissedSchedules",
			wantTitle:    []string{"7 run(s)", "no event says why"},
			wantText:     []string{"kube-controller-manager"},
		},
		{
			name: "forbid blocked by a hung run",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("*/15 * * * *", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-6 * time.Hour)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "nightly-5", Namespace: "shop"}}
				b.CronJobs = []*batchv1.CronJob{cj}
				running := newJob("nightly-5", "", "", 0)
				running.OwnerReferences = []metav1.OwnerReference{cjRef}
				running.Status.Active = 1
				running.Status.StartTime = &metav1.Time{Time: now.Add(-6 * time.Hour)}
				b.Jobs = []*batchv1.Job{running}
				b.Pods = []*corev1.Pod{cronPod("nightly-5", "nightly-5-aaaaa", func(p *corev1.Pod) {
					p.Status.StartTime = &metav1.Time{Time: now.Add(-6 * time.Hour)}
				}, healthy)}
				b.Events = []corev1.Event{objEvent("CronJob", "nightly", "Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid", 23, time.Minute)}
			}),
			wantCategory: "CronJob/ConcurrencyBlocked",
			wantCulprit:  []string{"job/nightly-5", "concurrencyPolicy: Forbid"},
			wantTitle:    []string{"24 schedule(s) skipped", "nightly-5-aaaaa has been running since", "has not completed"},
			wantText:     []string{"has no activeDeadlineSeconds", "kubectl delete job nightly-5 -n shop"},
		},
		{
			name: "invalid time zone",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				b.CronJobs = []*batchv1.CronJob{newCronJob("0 2 * * *", func(cj *batchv1.CronJob) { tz := "Mars/Olympus"; cj.Spec.TimeZone = &tz })}
				b.Events = []corev1.Event{objEvent("CronJob", "nightly", "Warning", "UnknownTimeZone", `invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus`, 30, time.Minute)}
			}),
			wantCategory: "CronJob/InvalidSchedule",
			wantCulprit:  []string{"Mars/Olympus"},
		},
		{
			name: "healthy cronjob",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-40 * time.Minute)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{completeJob("nightly-9", 40*time.Minute, cjRef)}
			}),
			healthy: true,
		},
	})
}
