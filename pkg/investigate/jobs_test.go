package investigate

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	noderules "github.com/kubectl-triage/kubectl-triage/pkg/rules/node"
)

// retryingJob is Job report, not finished, with failed pods so far.
func retryingJob(failed, active, limit int32, mutate ...func(*batchv1.Job)) *batchv1.Job {
	j := newJob("report", "", "", failed, func(j *batchv1.Job) {
		j.Spec.BackoffLimit = i32(limit)
		j.Status.Active = active
	})
	for _, m := range mutate {
		m(j)
	}
	return j
}

func TestJobRetrying(t *testing.T) {
	jobPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return ownedPod(name, ctrlRef("Job", "report"), mutate...)
	}
	refused := "2026-11-21T14:40:01Z dial tcp 10.0.0.5:5432: connect: connection refused\n"
	threeFailed := func(b *bundle.Bundle) {
		b.Jobs = []*batchv1.Job{retryingJob(3, 1, 6)}
		b.Pods = []*corev1.Pod{jobPod("report-aaaaa", failedPod(1, "Error")), jobPod("report-bbbbb", failedPod(1, "Error")),
			jobPod("report-ccccc", failedPod(1, "Error")), jobPod("report-ddddd", healthy)}
	}
	logs := []func(*bundle.Bundle){podLogs("report-aaaaa", refused), podLogs("report-bbbbb", refused), podLogs("report-ccccc", refused)}
	runWorkloadCases(t, []workloadCase{
		{
			name:         "the failed pods' own cause is the root cause, the Job its context",
			bundle:       workloadBundle("Job", "report", append([]func(*bundle.Bundle){threeFailed}, logs...)...),
			wantCategory: "ContainerFailed/Exit1/ConnectionRefused",
			wantCulprit:  []string{"10.0.0.5:5432"},
			wantRule:     "Job/Retrying",
			wantText: []string{"Job context: Job report is retrying: 3 of the 6 failures its backoffLimit allows; 1 pod(s) active.",
				"Job context: At the 7th failure, 4 more from now, the Job controller marks the Job Failed (BackoffLimitExceeded)",
				`kubectl patch job report -n shop --type=merge -p '{"spec":{"suspend":true}}'`, "report-aaaaa, report-bbbbb, report-ccccc"},
		},
		{
			name:         "without a pod rule the Job names the exit and the log line",
			bundle:       workloadBundle("Job", "report", append([]func(*bundle.Bundle){threeFailed}, logs...)...),
			wantCategory: "Job/Retrying/ConnectionRefused",
			wantCulprit:  []string{"log line of pod/report-", "10.0.0.5:5432"},
			wantTitle:    []string{"job report is retrying (3 of the 6 failures its backoffLimit allows)", "exits with code 1"},
			wantText:     []string{"At the 7th failure", "kubectl logs report-"},
			minConf:      0.9,
			isolated:     true,
		},
		{
			name: "failed pods gone: the counts are all there is",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(2, 1, 3)}
			}),
			wantCategory: "Job/Retrying",
			wantCulprit:  []string{"job/report (2 failed pod(s), backoffLimit 3)"},
			wantTitle:    []string{"2 of the 3 failures", "pods are gone"},
			wantText:     []string{"At the 4th failure, 2 more from now"},
		},
		{
			name: "between two attempts, with a deadline",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(2, 0, 6, func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = i64(7200) })}
			}),
			wantCategory: "Job/Retrying",
			wantText:     []string{"no pod runs right now: the controller waits about 20s", "activeDeadlineSeconds (7200s) ends it at 2026-11-21 16:00:00 UTC (in 1h)"},
		},
		{
			name: "restartPolicy OnFailure: the restarts of the running pod count",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(0, 1, 6, func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure })}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", crashing(1, "Error"), func(p *corev1.Pod) {
					p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
				})}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "report-aaaaa", Container: "app", Previous: true, Text: "FATAL: S3_BUCKET is not set\n"}}
			}),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantRule:     "Job/Retrying",
			wantText:     []string{"5 container restart(s) of its running pods and 0 failed pod(s) so far, against a backoffLimit of 6", "After 1 more restart(s) (6 in all)"},
		},
		{
			name: "indexed job with a limit per index",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(1, 2, 6, func(j *batchv1.Job) {
					mode := batchv1.IndexedCompletion
					j.Spec.CompletionMode, j.Spec.BackoffLimitPerIndex, j.Spec.BackoffLimit = &mode, i32(1), nil
					failed := "2"
					j.Status.FailedIndexes = &failed
				})}
			}),
			wantCategory: "Job/Retrying",
			wantText:     []string{"backoffLimitPerIndex 1", "status.failedIndexes: 2"},
		},
		{
			name: "a failed Job is not retrying",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{newJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
			}),
			wantRule: "Job/BackoffLimitExceeded",
			noRule:   "Job/Retrying",
			anyRoot:  true,
		},
		{
			name: "a Job the controller is failing is not retrying",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(4, 1, 3, func(j *batchv1.Job) {
					j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
				})}
			}),
			noRule:  "Job/Retrying",
			anyRoot: true,
		},
		{
			name: "a suspended Job is not retrying",
			bundle: workloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{retryingJob(2, 0, 6, func(j *batchv1.Job) { j.Spec.Suspend = boolPtr(true) })}
			}),
			noRule:  "Job/Retrying",
			anyRoot: true,
		},
	})
}

func TestCronRunsPileUp(t *testing.T) {
	cjRef := ctrlRef("CronJob", "nightly")
	run := func(name string, age time.Duration) *batchv1.Job {
		j := completeJob(name, age, cjRef)
		j.Status.Succeeded, j.Status.Active, j.Status.Conditions = 0, 1, nil
		return j
	}
	// Four runs of "*/10 * * * *" started 35, 25, 15 and 5 minutes ago are
	// all still active; the last one to complete took 38 minutes.
	pileUp := func(policy batchv1.ConcurrencyPolicy, newestPod ...func(*corev1.Pod)) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			cj := newCronJob("*/10 * * * *", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = policy })
			cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-5 * time.Minute)}
			done := completeJob("nightly-0", 75*time.Minute, cjRef)
			done.Status.CompletionTime = &metav1.Time{Time: now.Add(-37 * time.Minute)}
			b.Jobs = []*batchv1.Job{done}
			for i, age := range []time.Duration{35, 25, 15, 5} {
				j := run("nightly-"+string(rune('1'+i)), age*time.Minute)
				b.Jobs = append(b.Jobs, j)
				cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{Kind: "Job", Namespace: "shop", Name: j.Name, UID: j.UID})
			}
			b.CronJobs = []*batchv1.CronJob{cj}
			b.Pods = []*corev1.Pod{ownedPod("nightly-4-aaaaa", ctrlRef("Job", "nightly-4"), append([]func(*corev1.Pod){healthy}, newestPod...)...)}
			b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "nightly-4-aaaaa", Container: "app", Text: "2026-11-21T14:59:00Z exporting page 41 of 300\n"}}
		}
	}
	runWorkloadCases(t, []workloadCase{
		{
			name:         "runs outlive the period and pile up",
			bundle:       workloadBundle("CronJob", "nightly", pileUp("")),
			wantCategory: "CronJob/RunsPileUp",
			wantCulprit:  []string{"concurrencyPolicy: Allow", `schedule "*/10 * * * *" (every 10m)`, "4 jobs active", "the oldest (nightly-1) for 35m"},
			wantTitle:    []string{"4 jobs active at once, running for 35m, 25m, 15m and 5m", "starts one every 10m"},
			wantText: []string{"Allow (the default)", "job nightly-0, took 38m", `exporting page 41 of 300`,
				`{"spec":{"concurrencyPolicy":"Forbid"}}`, `{"spec":{"concurrencyPolicy":"Replace"}}`, `{"spec":{"jobTemplate":{"spec":{"activeDeadlineSeconds":540}}}}`,
				"kubectl delete job nightly-1 -n shop", "never completes"},
			minConf: 0.85,
		},
		{
			name:         "explicit Allow",
			bundle:       workloadBundle("CronJob", "nightly", pileUp(batchv1.AllowConcurrent)),
			wantCategory: "CronJob/RunsPileUp",
		},
		{
			name: "a crash-looping run: the pod's cause wins, the pile-up is context",
			bundle: workloadBundle("CronJob", "nightly", pileUp("", crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
			}), func(b *bundle.Bundle) {
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "nightly-4-aaaaa", Container: "app", Previous: true, Text: "open /etc/export/config.yaml: no such file or directory\n"}}
			}),
			wantCategory: "CrashLoop/Exit1/MissingFile",
			wantRule:     "CronJob/RunsPileUp",
			wantText:     []string{"CronJob context: CronJob nightly piles up runs: 4 jobs active at once", `{"spec":{"concurrencyPolicy":"Forbid"}}`},
		},
		{
			// The collector reads the pods of the oldest active runs too:
			// a pod cause there explains the pile-up, even when the newest
			// run is busy and healthy.
			name:         "the oldest run's pod crashes, the newest is busy: the crash wins",
			bundle:       workloadBundle("CronJob", "nightly", pileUp(""), oldRunCrashes("nightly-1", "open /etc/export/config.yaml: no such file or directory\n")),
			wantCategory: "CrashLoop/Exit1/MissingFile",
			wantCulprit:  []string{"/etc/export/config.yaml"},
			wantRule:     "CronJob/RunsPileUp",
			wantText:     []string{"pod nightly-1-aaaaa of the oldest run fails (CrashLoop/Exit1/MissingFile), which keeps it from finishing"},
		},
		{
			name: "two runs' pods fail: the pile-up quotes the oldest run's cause",
			bundle: workloadBundle("CronJob", "nightly", pileUp(""),
				oldRunCrashes("nightly-3", "FATAL: EXPORT_BUCKET is not set\n"),
				oldRunCrashes("nightly-2", "open /etc/export/config.yaml: no such file or directory\n")),
			wantRule: "CronJob/RunsPileUp",
			wantText: []string{"pod nightly-2-aaaaa of run nightly-2 fails (CrashLoop/Exit1/MissingFile)"},
			anyRoot:  true,
		},
		{
			name:     "Forbid does not pile up",
			bundle:   workloadBundle("CronJob", "nightly", pileUp(batchv1.ForbidConcurrent)),
			noRule:   "CronJob/RunsPileUp",
			wantRule: "CronJob/ConcurrencyBlocked",
			anyRoot:  true,
		},
		{
			name: "one long run is no pile-up",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("*/10 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-5 * time.Minute)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: "shop", Name: "nightly-1"}}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{run("nightly-1", 35*time.Minute)}
			}),
			noRule:  "CronJob/RunsPileUp",
			anyRoot: true,
		},
		{
			name: "a suspended CronJob starts no more runs",
			bundle: workloadBundle("CronJob", "nightly", pileUp(""), func(b *bundle.Bundle) {
				b.CronJobs[0].Spec.Suspend = boolPtr(true)
			}),
			noRule:  "CronJob/RunsPileUp",
			anyRoot: true,
		},
	})
}

// oldRunCrashes adds a crash-looping pod, whose previous instance logged
// line, to the run named job.
func oldRunCrashes(job, line string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		p := ownedPod(job+"-aaaaa", ctrlRef("Job", job), crashing(1, "Error"), func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
		})
		b.Pods = append(b.Pods, p)
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: p.Name, Container: "app", Previous: true, Text: line})
	}
}

// bareReplicaSet is ReplicaSet web-abc with no Deployment, 2 replicas and
// none ready, whose pods are built by mutate.
func bareReplicaSet(mutate ...func(*corev1.Pod)) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		rs := newReplicaSet("web-abc", 1, time.Hour, podTemplate("shop/web:2.4.0"), 2, 0)
		rs.OwnerReferences = nil
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: rs.Labels}
		b.ReplicaSets = []*appsv1.ReplicaSet{rs}
		for _, name := range []string{"web-abc-aaaaa", "web-abc-bbbbb"} {
			b.Pods = append(b.Pods, ownedPod(name, ctrlRef("ReplicaSet", "web-abc"), mutate...))
		}
	}
}

func TestReplicaSetPods(t *testing.T) {
	missingEnv := func(b *bundle.Bundle) {
		for _, p := range []string{"web-abc-aaaaa", "web-abc-bbbbb"} {
			b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: p, Container: "app", Previous: true, Text: "FATAL: KAFKA_BROKERS is not set\n"})
		}
	}
	probeFails := func(b *bundle.Bundle) {
		b.Events = []corev1.Event{objEvent("Pod", "web-abc-aaaaa", "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, time.Minute)}
	}
	runWorkloadCases(t, []workloadCase{
		{
			name:         "bare replicaset: the pods' crash is the root cause, the ReplicaSet its context",
			bundle:       workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(crashing(1, "Error")), missingEnv),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantCulprit:  []string{"KAFKA_BROKERS"},
			wantRule:     "ReplicaSet/PodsNotReady/PodsFailing",
			wantText: []string{"ReplicaSet context: ReplicaSet web-abc has 0/2 replicas ready (2 created); its pods web-abc-aaaaa, web-abc-bbbbb are not Ready.",
				"ReplicaSet context: No Deployment owns it", "kubectl delete pods -n shop -l app=web,pod-template-hash=abc",
				"kubectl describe replicaset web-abc -n shop"},
		},
		{
			name: "replicaset of a deployment: the fix goes to the deployment",
			bundle: workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(crashing(1, "Error")), missingEnv, func(b *bundle.Bundle) {
				b.ReplicaSets[0].OwnerReferences = []metav1.OwnerReference{ctrlRef("Deployment", "web")}
				b.Deployments = []*appsv1.Deployment{newDeployment(2)}
			}),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantText:     []string{"ReplicaSet context: It is revision 1 of deployment/web", "kubectl describe deployment web -n shop"},
		},
		{
			name:         "unready pods no pod rule explains",
			bundle:       workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(runningUnready), probeFails),
			wantCategory: "ReplicaSet/PodsNotReady/NotReady",
			wantCulprit:  []string{"replicaset/web-abc pod web-abc-aaaaa"},
			wantTitle:    []string{"0/2 replicas ready", "Readiness probe failed"},
			isolated:     true,
		},
		{
			name:         "pending pods",
			bundle:       workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(pendingNoDecision)),
			wantCategory: "ReplicaSet/PodsNotReady/Pending",
			isolated:     true,
		},
		{
			name: "all ready",
			bundle: workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(healthy), func(b *bundle.Bundle) {
				b.ReplicaSets[0].Status.ReadyReplicas = 2
			}),
			healthy: true,
		},
		{
			name: "OOM kill: the limit is raised on the ReplicaSet, whose pods must then be replaced",
			bundle: workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(crashing(137, "OOMKilled"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}
			})),
			wantCategory: "OOMKilled",
			wantText:     []string{"kubectl set resources replicaset/web-abc -n shop -c app --limits=memory=1Gi", kube.ReplicaSetTemplateRisk},
		},
	})
}

// A ReplicaSet has no rollout to undo: its crash finding proposes none.
func TestReplicaSetTargetProposesNoRolloutUndo(t *testing.T) {
	b := workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(crashing(1, "Error")), func(b *bundle.Bundle) {
		b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-abc-aaaaa", Container: "app", Previous: true, Text: "FATAL: KAFKA_BROKERS is not set\n"}}
	})
	md := Investigate(b, Options{Now: now}).Markdown()
	if strings.Contains(md, "rollout undo") || strings.Contains(md, "rollout restart") {
		t.Errorf("a ReplicaSet target's report proposes a rollout command:\n%s", md)
	}
}

// A bare ReplicaSet does not roll a template change out: the scheduling
// fixes on its template say that its pending pods must be deleted, and
// give the command that does it, instead of "starts a rollout".
func TestReplicaSetTargetSchedulingFixes(t *testing.T) {
	const deletePending = "kubectl delete pods -n shop -l 'app=web,pod-template-hash=abc' --field-selector=status.phase=Pending"
	pending := func(msg string, mutate ...func(*corev1.Pod)) func(*bundle.Bundle) {
		return bareReplicaSet(append([]func(*corev1.Pod){unscheduled(msg, "100m")}, mutate...)...)
	}
	for _, tt := range []struct {
		name   string
		bundle *bundle.Bundle
		want   string // root cause category prefix
		fix    string // a command of the fix that carries the ReplicaSet's risk
	}{
		{
			name:   "request larger than every node",
			bundle: workloadBundle("ReplicaSet", "web-abc", pending("0/2 nodes are available: 2 Insufficient memory.", scRequest(corev1.ResourceMemory, "64Gi")), scNodes(scNode("a"), scNode("b"))),
			want:   "Unschedulable/InsufficientMemory",
			fix:    "kubectl set resources replicaset/web-abc -n shop -c app --requests=memory=",
		},
		{
			name: "untolerated taint",
			bundle: workloadBundle("ReplicaSet", "web-abc", pending("0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}."),
				scNodes(scNode("gpu-1", scTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)), scNode("gpu-2", scTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)))),
			want: "Unschedulable/Taint",
			fix:  `"path":"/spec/template/spec/tolerations"`,
		},
		{
			name: "nodeSelector no node carries",
			bundle: workloadBundle("ReplicaSet", "web-abc", pending("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
				func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "nvme"} }),
				scNodes(scNode("a", scLabels("disktype", "ssd")), scNode("b", scLabels("disktype", "ssd")))),
			want: "Unschedulable/NodeSelector",
			fix:  `kubectl patch replicaset/web-abc -n shop -p '{"spec":{"template":{"spec":{"nodeSelector":{"disktype":"ssd"}}}}}'`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Investigate(tt.bundle, Options{Now: now})
			if !strings.HasPrefix(r.RootCause.Category, tt.want) {
				t.Fatalf("root cause %q, want %q: %s", r.RootCause.Category, tt.want, r.Title)
			}
			found := false
			for _, a := range r.Actions {
				if strings.Contains(a.Risk, "rollout") {
					t.Errorf("action %q says its change starts a rollout: %q", a.Description, a.Risk)
				}
				if slices.ContainsFunc(a.Commands, func(c string) bool { return strings.Contains(c, tt.fix) }) {
					found = true
					if !strings.Contains(a.Risk, kube.ReplicaSetPendingRisk) || !slices.Contains(a.Commands, deletePending) {
						t.Errorf("fix %q: risk %q, commands %q; want the ReplicaSet's risk and %q", a.Description, a.Risk, a.Commands, deletePending)
					}
				}
			}
			if !found {
				t.Errorf("no fix runs %q: %+v", tt.fix, r.Actions)
			}
		})
	}
}

// A pod of a bare ReplicaSet evicted for using more than it requested: the
// request is raised on the ReplicaSet, whose running pods keep the old
// request until they are replaced.
func TestReplicaSetTargetEvictionFix(t *testing.T) {
	msg := "The node was low on resource: memory. Threshold quantity: 100Mi, available: 92Mi. Container app was using 1200Mi, request is 128Mi, has larger consumption of memory. "
	b := workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(ntEvicted(msg)))
	// The eviction is past (the ReplicaSet's finding explains the pods
	// not Ready with it): its own finding carries the fix.
	fs := noderules.PodNode.Check(testPass(b))
	if len(fs) == 0 || !strings.HasPrefix(string(fs[0].Category), "Node/MemoryPressure/Evicted") {
		t.Fatalf("findings %+v, want an eviction", fs)
	}
	found := false
	for _, a := range fs[0].Actions {
		if strings.Contains(a.Risk, "rollout") {
			t.Errorf("action %q says its change starts a rollout: %q", a.Description, a.Risk)
		}
		if slices.Contains(a.Commands, "kubectl set resources replicaset/web-abc -n shop -c app --requests=memory=1200Mi") {
			found = true
			if want := "a larger request needs room on the nodes; " + kube.ReplicaSetTemplateRisk; a.Risk != want {
				t.Errorf("risk %q, want %q", a.Risk, want)
			}
		}
	}
	if !found {
		t.Errorf("no fix raises the request on the ReplicaSet: %+v", fs[0].Actions)
	}
}

// An image that does not exist, set on a bare ReplicaSet: its pods wait for
// the old image until they are deleted.
func TestReplicaSetTargetImageFix(t *testing.T) {
	image := "registry.example.com/shop/web:9.9.9"
	b := workloadBundle("ReplicaSet", "web-abc", bareReplicaSet(func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = image
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + image + `"`}}}}}
	}), func(b *bundle.Bundle) {
		for _, p := range b.Pods {
			b.Events = append(b.Events, objEvent("Pod", p.Name, "Warning", "Failed", `Failed to pull image "`+image+`": rpc error: code = NotFound desc = failed to pull and unpack image "`+image+`": not found`, 3, time.Minute))
		}
	})
	r := Investigate(b, Options{Now: now})
	if !strings.HasPrefix(r.RootCause.Category, "ImagePull/NotFound") {
		t.Fatalf("root cause %q, want ImagePull/NotFound: %s", r.RootCause.Category, r.Title)
	}
	if len(r.Actions) == 0 || r.Actions[0].Risk != kube.ReplicaSetPendingRisk {
		t.Errorf("actions %+v, want the first to carry %q", r.Actions, kube.ReplicaSetPendingRisk)
	}
}
