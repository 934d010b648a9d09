package e2e

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// CronJob runs built by hand for the request-count test: as in the
// scenarios no controller runs, so the setup writes what the controllers
// and the kubelet would have left behind. (The scenarios themselves are
// captured directories in test/scenarios.)

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

// wlController is a controller ownerReference, as the controllers set it.
func wlController(kind string, obj metav1.Object) metav1.OwnerReference {
	api := "apps/v1"
	if kind == "Job" || kind == "CronJob" {
		api = "batch/v1"
	}
	yes := true
	return metav1.OwnerReference{APIVersion: api, Kind: kind, Name: obj.GetName(), UID: obj.GetUID(), Controller: &yes, BlockOwnerDeletion: &yes}
}

func wlAgo(d time.Duration) metav1.Time {
	return metav1.NewTime(time.Now().Add(-d).Truncate(time.Second))
}

func wlReadyStatus(container, image string, started time.Duration) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.21", StartTime: ptr(wlAgo(started)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:01", ContainerID: "containerd://r1",
			Ready: true, Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: wlAgo(started)}}}},
	}
}

// wlJob creates a Job (the API server generates its selector and labels)
// and writes its status.
func wlJob(t *testing.T, c *testcluster.Cluster, ns, name string, spec batchv1.JobSpec, status batchv1.JobStatus, owner ...metav1.OwnerReference) *batchv1.Job {
	t.Helper()
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: owner}, Spec: spec}
	if len(owner) > 0 && owner[0].Kind == "CronJob" && status.StartTime != nil {
		// The cronjob controller stamps the time the run was due.
		j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: status.StartTime.UTC().Format(time.RFC3339)}
	}
	c.Create(t, j)
	j.Status = status
	c.SetObjectStatus(t, j)
	return j
}

// wlJobPod creates a pod of a Job, labelled with the selector the API
// server generated for it.
func wlJobPod(t *testing.T, c *testcluster.Cluster, j *batchv1.Job, name string, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	labels := maps.Clone(j.Spec.Template.Labels)
	return c.CreatePod(t, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: j.Namespace, Labels: labels, OwnerReferences: []metav1.OwnerReference{wlController("Job", j)}},
		Spec:       *j.Spec.Template.Spec.DeepCopy(),
		Status:     status,
	})
}

// wlCronJob creates a CronJob and writes its status.
func wlCronJob(t *testing.T, c *testcluster.Cluster, ns, name, schedule string, mutate func(*batchv1.CronJobSpec), status batchv1.CronJobStatus) *batchv1.CronJob {
	t.Helper()
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.CronJobSpec{Schedule: schedule, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			BackoffLimit: ptr(int32(2)), Template: wlJobTemplate("task", "registry.example.com/ops/"+name+":1.0")}}}}
	if mutate != nil {
		mutate(&cj.Spec)
	}
	c.Create(t, cj)
	if status.LastScheduleTime != nil || len(status.Active) > 0 {
		cj.Status = status
		c.SetObjectStatus(t, cj)
	}
	return cj
}

// wlJobTemplate is a Job's pod template with one container.
func wlJobTemplate(container, image string, command ...string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: container, Image: image, Command: command}}}}
}
