package e2e

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// Job, CronJob and bare ReplicaSet scenarios that are not failures yet: a
// Job still retrying below its backoffLimit, CronJob runs piling up under
// concurrencyPolicy Allow, and a ReplicaSet triaged directly whose pods
// crash. As in the other workload scenarios no controller runs: each setup
// writes what the controllers and the kubelet would have left behind.

func init() { register(jobScenarios...) }

var jobScenarios = []scenario{
	{
		// Three of the six failures backoffLimit allows have happened; the
		// fourth attempt runs. Every failed pod says why in its log.
		name: "jobs-job-retrying-below-backoff-limit",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.example.com/shop/import-catalog:4.2.0"
			j := wlJob(t, c, ns, "import-catalog", batchv1.JobSpec{BackoffLimit: ptr(int32(6)), Template: wlJobTemplate("importer", image)},
				batchv1.JobStatus{Failed: 3, Active: 1, Ready: ptr(int32(1)), Terminating: ptr(int32(0)), UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
					StartTime: ptr(wlAgo(14 * time.Minute))})
			for i, name := range []string{"import-catalog-2xk9p", "import-catalog-7hq4m", "import-catalog-c8w2n"} {
				wlJobPod(t, c, j, name, wlFailedPodStatus("importer", image, 1, time.Duration(12-4*i)*time.Minute))
				c.SetLogs(ns, name, "importer", false, "import-catalog 4.2.0: loading feed\nError: dial tcp 10.96.14.7:5432: connect: connection refused\n")
			}
			p := wlJobPod(t, c, j, "import-catalog-r4t6v", wlReadyStatus("importer", image, 2*time.Minute))
			c.SetLogs(ns, p.Name, "importer", false, "import-catalog 4.2.0: loading feed\n")
			for _, name := range []string{"import-catalog-2xk9p", "import-catalog-7hq4m", "import-catalog-c8w2n", "import-catalog-r4t6v"} {
				c.Event(t, testcluster.EventSpec{Object: j, Type: "Normal", Reason: "SuccessfulCreate", Component: "job-controller", Message: "Created pod: " + name})
			}
			return []string{"job/import-catalog"}
		},
		category: "ContainerFailed/Exit1/ConnectionRefused",
		culprit:  []string{"10.96.14.7:5432", "3 of the 6 failures", "backoffLimit"},
	},
	{
		// Runs take about 35 minutes, the schedule starts one every ten
		// and concurrencyPolicy Allow lets them overlap: four are active.
		name: "jobs-cronjob-allow-runs-pile-up",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			cj := wlCronJob(t, c, ns, "feed-sync", "*/10 * * * *", func(s *batchv1.CronJobSpec) { s.ConcurrencyPolicy = batchv1.AllowConcurrent }, batchv1.CronJobStatus{})
			image := "registry.example.com/ops/feed-sync:1.0"
			last := time.Now().UTC().Truncate(10 * time.Minute)
			if time.Since(last) < 2*time.Minute {
				last = last.Add(-10 * time.Minute)
			}
			var active []corev1.ObjectReference
			for i := range 4 {
				at := last.Add(-time.Duration(i) * 10 * time.Minute)
				j := wlJob(t, c, ns, fmt.Sprintf("feed-sync-%d", at.Unix()/60), *cj.Spec.JobTemplate.Spec.DeepCopy(),
					batchv1.JobStatus{Active: 1, Ready: ptr(int32(1)), StartTime: ptr(metav1.NewTime(at.Add(time.Second)))}, wlController("CronJob", cj))
				p := wlJobPod(t, c, j, j.Name+"-x2k9q", wlReadyStatus("task", image, time.Since(at)))
				c.SetLogs(ns, p.Name, "task", false, fmt.Sprintf("syncing feed page %d\n", 40*(4-i)))
				c.Event(t, testcluster.EventSpec{Object: cj, Type: "Normal", Reason: "SuccessfulCreate", Component: "cronjob-controller", First: at, Last: at,
					Message: "Created job " + j.Name})
				active = append(active, corev1.ObjectReference{Kind: "Job", Namespace: ns, Name: j.Name, UID: j.UID, APIVersion: "batch/v1"})
			}
			cj.Status = batchv1.CronJobStatus{LastScheduleTime: ptr(metav1.NewTime(last)), Active: active}
			c.SetObjectStatus(t, cj)
			return []string{"cronjob/feed-sync"}
		},
		category: "CronJob/RunsPileUp",
		culprit:  []string{"concurrencyPolicy: Allow", "4 jobs active", "every 10m"},
	},
	{
		// Seven runs of a ten-minute schedule are active. All are busy
		// and healthy but the second oldest, OOM-killed over and over for
		// an hour, which never finishes. Its pod is not the newest run's:
		// the collector must read the older active runs' pods to see it.
		// (The runs are created within a second here, so a collector
		// that took the Jobs' creation time for the run's would also
		// mistake which run is the newest.)
		name: "jobs-cronjob-pile-up-older-run-oom-killed",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			cj := wlCronJob(t, c, ns, "ledger-export", "*/10 * * * *", func(s *batchv1.CronJobSpec) {
				s.ConcurrencyPolicy = batchv1.AllowConcurrent
				s.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
				s.JobTemplate.Spec.Template.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}
			}, batchv1.CronJobStatus{})
			jobsCronRuns(t, c, cj, 7, func(i int, p *corev1.Pod) string {
				if i == 5 { // the second oldest
					p.Status = crashStatus("task", 137, "OOMKilled", 9)
					return ""
				}
				return fmt.Sprintf("exporting ledger page %d\n", 10*(7-i))
			})
			return []string{"cronjob/ledger-export"}
		},
		category: "OOMKilled",
		culprit:  []string{"container task", "256Mi", "fails (OOMKilled", "7 jobs active"},
	},
	{
		// A ReplicaSet created by hand (no Deployment) whose pods crash:
		// triaged directly, its pods must be read to say why.
		name: "jobs-replicaset-target-pods-crashloop",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.example.com/fin/ledger-worker:2.7.1"
			tmpl := wlTemplate("ledger-worker", "worker", image)
			tmpl.Labels["pod-template-hash"] = "6d8f9c7b5"
			rs := &appsv1.ReplicaSet{
				ObjectMeta: metav1.ObjectMeta{Name: "ledger-worker-6d8f9c7b5", Namespace: ns, Labels: maps.Clone(tmpl.Labels)},
				Spec:       appsv1.ReplicaSetSpec{Replicas: ptr(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(tmpl.Labels)}, Template: tmpl},
				Status:     appsv1.ReplicaSetStatus{ObservedGeneration: 1, Replicas: 2, FullyLabeledReplicas: 2},
			}
			c.Create(t, rs)
			for _, suffix := range []string{"h7k2x", "q9m4w"} {
				name := rs.Name + "-" + suffix
				p := c.CreatePod(t, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(tmpl.Labels), OwnerReferences: []metav1.OwnerReference{wlController("ReplicaSet", rs)}},
					Spec:       *tmpl.Spec.DeepCopy(),
					Status:     crashStatus("worker", 1, "Error", 7),
				})
				c.SetLogs(ns, name, "worker", true, "ledger-worker 2.7.1 starting\nFATAL: KAFKA_BROKERS is not set\n")
				c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 30, First: time.Now().Add(-25 * time.Minute), FieldPath: "spec.containers{worker}",
					Message: fmt.Sprintf("Back-off restarting failed container worker in pod %s_%s(%s)", name, ns, p.UID)})
			}
			return []string{"rs/ledger-worker-6d8f9c7b5"}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"KAFKA_BROKERS", "ReplicaSet context", "0/2"},
	},
}

// jobsCronRuns writes n runs of cj, one per period of its ten-minute
// schedule, all still active, each with one Ready pod that pod may change
// (i counts back from the newest run, 0); pod returns the log of the
// pod's container ("" for none). It sets the CronJob's status.active.
func jobsCronRuns(t *testing.T, c *testcluster.Cluster, cj *batchv1.CronJob, n int, pod func(i int, p *corev1.Pod) string) {
	t.Helper()
	image := cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image
	last := time.Now().UTC().Truncate(10 * time.Minute)
	if time.Since(last) < 2*time.Minute {
		last = last.Add(-10 * time.Minute)
	}
	var active []corev1.ObjectReference
	for i := n - 1; i >= 0; i-- { // created in the order the schedule started them
		at := last.Add(-time.Duration(i) * 10 * time.Minute)
		j := wlJob(t, c, cj.Namespace, fmt.Sprintf("%s-%d", cj.Name, at.Unix()/60), *cj.Spec.JobTemplate.Spec.DeepCopy(),
			batchv1.JobStatus{Active: 1, Ready: ptr(int32(1)), StartTime: ptr(metav1.NewTime(at.Add(time.Second)))}, wlController("CronJob", cj))
		p := &corev1.Pod{Status: wlReadyStatus("task", image, time.Since(at))}
		log := pod(i, p)
		p = wlJobPod(t, c, j, j.Name+"-x2k9q", p.Status)
		if log != "" {
			c.SetLogs(cj.Namespace, p.Name, "task", false, log)
		}
		active = append(active, corev1.ObjectReference{Kind: "Job", Namespace: cj.Namespace, Name: j.Name, UID: j.UID, APIVersion: "batch/v1"})
	}
	cj.Status = batchv1.CronJobStatus{LastScheduleTime: ptr(metav1.NewTime(last)), Active: active}
	c.SetObjectStatus(t, cj)
}

// TestRequestsCronJobRunsBounded: a CronJob's triage reads its newest and
// its oldest active runs and their pods within fixed bounds, so ten active
// runs and twenty cost the same number of requests; the pods of the runs
// come from one list by label selector in the namespace, and no Secret is
// read.
func TestRequestsCronJobRunsBounded(t *testing.T) {
	c := testcluster.Get(t)
	count := func(runs int) int {
		ns := c.Namespace(t)
		cj := wlCronJob(t, c, ns, "feed-sync", "*/10 * * * *", func(s *batchv1.CronJobSpec) { s.ConcurrencyPolicy = batchv1.AllowConcurrent }, batchv1.CronJobStatus{})
		jobsCronRuns(t, c, cj, runs, func(i int, _ *corev1.Pod) string { return fmt.Sprintf("syncing feed page %d\n", i) })
		if r := triage(t, c, ns, "cronjob/feed-sync"); r.code != 0 { // warm discovery for this cache dir
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		mark := c.AuditMark()
		r := triage(t, c, ns, "cronjob/feed-sync")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		n, podLists := 0, 0
		for _, e := range c.AuditSince(t, mark, c.UserName) {
			if e.Resource == "" {
				continue // discovery differs per fresh cache dir; objects do not
			}
			n++
			switch {
			case e.Resource == "secrets":
				t.Errorf("%s of secrets: %s", e.Verb, e.RequestURI)
			case e.Verb == "list" && e.Namespace == "" && e.Resource != "nodes":
				t.Errorf("cluster-wide list: %s", e.RequestURI)
			case e.Verb == "list" && e.Resource == "pods":
				podLists++
				if !strings.Contains(e.RequestURI, "labelSelector") {
					t.Errorf("unfiltered list of pods: %s", e.RequestURI)
				}
			}
		}
		if podLists != 1 {
			t.Errorf("%d runs: %d lists of pods, want 1", runs, podLists)
		}
		return n
	}
	ten, twenty := count(10), count(20)
	if ten != twenty {
		t.Errorf("object requests grew with the runs: %d for 10 active runs, %d for 20", ten, twenty)
	}
	t.Logf("%d object requests either way", ten)
}
