package batch_test

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
)

func TestJobFailed(t *testing.T) {
	jobPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return bundletest.OwnedPod(name, bundletest.CtrlRef("Job", "report"), mutate...)
	}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name: "backoff limit: failed pods exit with a missing env line",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", bundletest.FailedPod(1, "Error")), jobPod("report-bbbbb", bundletest.FailedPod(1, "Error"))}
			}, bundletest.PodLogs("report-aaaaa", "2026-11-21T14:40:00Z loading\n2026-11-21T14:40:01Z FATAL: S3_BUCKET is not set\n"), bundletest.PodLogs("report-bbbbb", "FATAL: S3_BUCKET is not set\n")),
			WantCategory: "Job/BackoffLimitExceeded/MissingEnv",
			WantCulprit:  []string{"S3_BUCKET"},
			WantTitle:    []string{"exits with code 1", "environment variable S3_BUCKET"},
			WantText:     []string{"more than its backoffLimit of 3", "report-aaaaa, report-bbbbb"},
			MinConf:      0.9,
			Isolated:     true,
		},
		{
			Name: "backoff limit: a pod-level finding explains the failed pods",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", bundletest.FailedPod(1, "Error"))}
			}, bundletest.PodLogs("report-aaaaa", "FATAL: S3_BUCKET is not set\n")),
			WantRule: "Job/BackoffLimitExceeded",
			AnyRoot:  true,
		},
		{
			Name: "backoff limit with the exit code only",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", bundletest.FailedPod(2, "Error"))}
			}),
			WantCategory: "Job/BackoffLimitExceeded/Exit2",
			WantTitle:    []string{"code 2 (misuse or invalid arguments)"},
			Isolated:     true,
		},
		{
			Name: "backoff limit, pods gone",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
			}),
			WantCategory: "Job/BackoffLimitExceeded",
			WantCulprit:  []string{"job/report spec.backoffLimit"},
			WantText:     []string{"4 failed", "pods are gone"},
		},
		{
			Name: "deadline exceeded, pods gone",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "DeadlineExceeded", "Job was active longer than specified deadline", 1, func(j *batchv1.Job) {
					j.Spec.ActiveDeadlineSeconds = bundletest.I64(600)
				})}
			}),
			WantCategory: "Job/DeadlineExceeded",
			WantCulprit:  []string{"spec.activeDeadlineSeconds"},
			WantTitle:    []string{"(600s)", "0 of 1 completions"},
		},
		{
			Name: "evicted pod",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", func(p *corev1.Pod) {
					p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi."}
				})}
			}),
			WantCategory: "Job/BackoffLimitExceeded/Evicted",
			WantTitle:    []string{"ephemeral-storage"},
			Isolated:     true,
		},
		{
			// The kubelet's admission, wording as in
			// https://github.com/Project-HAMi/HAMi/issues/71 (HAMi's device
			// plugin gone): the node is the cause, the Job gave up on it.
			Name: "backoff limit: every pod rejected by one node's device plugin",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				rejected := func(p *corev1.Pod) {
					p.Spec.NodeName = "node-1"
					p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("4")}
					p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "UnexpectedAdmissionError",
						Message: "Pod was rejected: Allocate failed due to rpc error: code = Unavailable desc = error reading from server: EOF, which is unexpected"}
				}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", rejected), jobPod("report-bbbbb", rejected)}
			}),
			WantCategory: "Node/Rejected/UnexpectedAdmissionError/DevicePlugin",
			WantCulprit:  []string{"node/node-1 nvidia.com/gpu", "error reading from server: EOF"},
			WantTitle:    []string{"both failed pods of job/report were rejected by node node-1"},
			WantText:     []string{"kubectl cordon node-1", "must be run again", "gRPC Unavailable"},
			WantRule:     "Job/BackoffLimitExceeded",
		},
		{
			Name: "pod failure policy",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "PodFailurePolicy", `Container app for pod shop/report-aaaaa failed with exit code 42 matching FailJob rule at index 0`, 1)}
			}),
			WantCategory: "Job/PodFailurePolicy",
			WantTitle:    []string{"exit code 42"},
		},
		{
			Name: "OnFailure job crash-looping: the pod cause wins",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 0)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
				})}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "report-aaaaa", Container: "app", Previous: true, Text: "dial tcp 10.0.0.5:5432: connect: connection refused\n"}}
			}),
			WantCategory: "CrashLoop/Exit1/ConnectionRefused",
			WantRule:     "Job/BackoffLimitExceeded",
		},
		{
			Name: "running job is not failed",
			Bundle: bundletest.WorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				j := bundletest.NewJob("report", "", "", 0)
				j.Status.Active = 1
				b.Jobs = []*batchv1.Job{j}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", bundletest.Healthy)}
			}),
			Healthy: true,
		},
	})
}

func TestCronJob(t *testing.T) {
	cjRef := bundletest.CtrlRef("CronJob", "nightly")
	cronPod := func(jobName, name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return bundletest.OwnedPod(name, bundletest.CtrlRef("Job", jobName), mutate...)
	}
	failedRun := func(name string, age time.Duration) *batchv1.Job {
		j := bundletest.NewJob(name, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)
		j.OwnerReferences = []metav1.OwnerReference{cjRef}
		j.CreationTimestamp = bundletest.TS(-age)
		j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: bundletest.Now.Add(-age).Format(time.RFC3339)}
		return j
	}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name: "last runs failed",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-13 * time.Hour)}
				cj.Status.LastSuccessfulTime = &metav1.Time{Time: bundletest.Now.Add(-61 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				older := failedRun("nightly-1", 37*time.Hour)
				older.CreationTimestamp = bundletest.TS(-13 * time.Hour) // recreated: only the scheduled time orders the runs
				b.Jobs = []*batchv1.Job{older, failedRun("nightly-2", 13*time.Hour), bundletest.CompleteJob("nightly-0", 61*time.Hour, cjRef)}
				b.Pods = []*corev1.Pod{cronPod("nightly-2", "nightly-2-aaaaa", bundletest.FailedPod(1, "Error"))}
			}, bundletest.PodLogs("nightly-2-aaaaa", "open /etc/report/config.yaml: no such file or directory\n")),
			WantCategory: "CronJob/FailingJobs/MissingFile",
			WantCulprit:  []string{"/etc/report/config.yaml"},
			WantTitle:    []string{"last 2 run(s) failed", "nightly-0", "nightly-2"},
			MinConf:      0.8,
			Isolated:     true,
		},
		{
			Name: "last runs failed: a pod-level finding explains the pod",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-13 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{failedRun("nightly-2", 13*time.Hour)}
				b.Pods = []*corev1.Pod{cronPod("nightly-2", "nightly-2-aaaaa", bundletest.FailedPod(1, "Error"))}
			}, bundletest.PodLogs("nightly-2-aaaaa", "open /etc/report/config.yaml: no such file or directory\n")),
			WantRule: "CronJob/FailingJobs",
			AnyRoot:  true,
		},
		{
			Name: "failed run whose pods are gone",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-13 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{failedRun("nightly-2", 13*time.Hour)}
			}),
			WantCategory: "CronJob/FailingJobs",
			WantTitle:    []string{"no successful run", "pods are gone"},
		},
		{
			Name: "suspended for days",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.Suspend = bundletest.BoolPtr(true) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-72 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			WantCategory: "CronJob/Suspended",
			WantCulprit:  []string{"spec.suspend: true"},
			WantTitle:    []string{"72 scheduled run(s) skipped", "3d ago"},
			WantText:     []string{`kubectl patch cronjob nightly -n shop -p '{"spec":{"suspend":false}}'`, "about every 1h"},
		},
		{
			Name: "suspended a moment ago is deliberate",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.Suspend = bundletest.BoolPtr(true) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-30 * time.Minute)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			Healthy: true,
		},
		{
			Name: "too many missed start times",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("*/5 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-10 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{bundletest.ObjEvent("CronJob", "nightly", "Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew", 12, time.Minute)}
			}),
			WantCategory: "CronJob/MissedSchedules",
			WantCulprit:  []string{"startingDeadlineSeconds"},
			WantTitle:    []string{"more than 100", "119 run(s)"},
			WantText:     []string{`{"spec":{"startingDeadlineSeconds":150}}`},
		},
		{
			Name: "old controller wording",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("*/5 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-10 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{bundletest.ObjEvent("CronJob", "nightly", "Warning", "FailedNeedsStart", "Cannot determine if job needs to be started: too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.", 3, time.Minute)}
			}),
			WantCategory: "CronJob/MissedSchedules",
		},
		{
			Name: "start deadline too short",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = bundletest.I64(5) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-3 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{bundletest.ObjEvent("CronJob", "nightly", "Warning", "MissSchedule", "Missed scheduled time to start a job: Sat, 21 Nov 2026 14:00:00 +0000", 3, time.Hour)}
			}),
			WantCategory: "CronJob/MissedSchedules",
			WantTitle:    []string{"startingDeadlineSeconds 5"},
		},
		{
			Name: "schedule lags with no event",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("*/15 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-2 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			WantCategory: "CronJob/MissedSchedules",
			WantTitle:    []string{"7 run(s)", "no event says why"},
			WantText:     []string{"kube-controller-manager"},
		},
		{
			Name: "forbid blocked by a hung run",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("*/15 * * * *", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent })
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-6 * time.Hour)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "nightly-5", Namespace: "shop"}}
				b.CronJobs = []*batchv1.CronJob{cj}
				running := bundletest.NewJob("nightly-5", "", "", 0)
				running.OwnerReferences = []metav1.OwnerReference{cjRef}
				running.Status.Active = 1
				running.Status.StartTime = &metav1.Time{Time: bundletest.Now.Add(-6 * time.Hour)}
				b.Jobs = []*batchv1.Job{running}
				b.Pods = []*corev1.Pod{cronPod("nightly-5", "nightly-5-aaaaa", func(p *corev1.Pod) {
					p.Status.StartTime = &metav1.Time{Time: bundletest.Now.Add(-6 * time.Hour)}
				}, bundletest.Healthy)}
				b.Events = []corev1.Event{bundletest.ObjEvent("CronJob", "nightly", "Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid", 23, time.Minute)}
			}),
			WantCategory: "CronJob/ConcurrencyBlocked",
			WantCulprit:  []string{"job/nightly-5", "concurrencyPolicy: Forbid"},
			WantTitle:    []string{"24 schedule(s) skipped", "nightly-5-aaaaa has been running since", "has not completed"},
			WantText:     []string{"has no activeDeadlineSeconds", "kubectl delete job nightly-5 -n shop"},
		},
		{
			Name: "invalid time zone",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				b.CronJobs = []*batchv1.CronJob{bundletest.NewCronJob("0 2 * * *", func(cj *batchv1.CronJob) { tz := "Mars/Olympus"; cj.Spec.TimeZone = &tz })}
				b.Events = []corev1.Event{bundletest.ObjEvent("CronJob", "nightly", "Warning", "UnknownTimeZone", `invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus`, 30, time.Minute)}
			}),
			WantCategory: "CronJob/InvalidSchedule",
			WantCulprit:  []string{"Mars/Olympus"},
		},
		{
			Name: "healthy cronjob",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-40 * time.Minute)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{bundletest.CompleteJob("nightly-9", 40*time.Minute, cjRef)}
			}),
			Healthy: true,
		},
	})
}
