package bundle

// A Job's and a CronJob's runs and their pods, bounded whatever the history.

import (
	"context"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
)

// maxRunsWithPods bounds the CronJob runs whose pods are read: the newest
// run and the oldest active ones, which under concurrencyPolicy Allow may
// be many.
const maxRunsWithPods = 5

// cronJobChildren files the CronJob's newest Jobs and its active ones (a
// run that hangs is older than the newest few), and the pods of the newest
// run and of the oldest active runs. The pods come from one list with a
// set-based selector when the Jobs' selectors allow it, and share the
// MaxPods budget, so the cost does not grow with the runs.
func (c *collector) cronJobChildren(ctx context.Context, ns string) {
	c.count()
	jobs, err := c.cs.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		c.problem("jobs of cronjob "+c.b.Target.Name, err)
		return
	}
	var owned []*batchv1.Job
	for i := range jobs.Items {
		if ownedBy(&jobs.Items[i], types.UID(c.b.Target.UID)) {
			owned = append(owned, &jobs.Items[i])
		}
	}
	sort.SliceStable(owned, func(i, j int) bool { return RunTime(owned[i]).After(RunTime(owned[j])) })
	var listed []corev1.ObjectReference
	if len(c.b.CronJobs) > 0 {
		listed = c.b.CronJobs[0].Status.Active
	}
	// Oldest first: the run active longest says most about why runs do
	// not finish.
	var active []*batchv1.Job
	for i := len(owned) - 1; i >= 0 && len(active) < maxRunsWithPods; i-- {
		if jobActive(owned[i], listed) {
			active = append(active, owned[i])
		}
	}
	newest := owned[:min(len(owned), c.opts.MaxPods)]
	for _, j := range newest {
		c.addTyped(j, gvkJob)
	}
	for _, j := range active {
		c.addTyped(j, gvkJob) // once per uid: the newest are filed already
	}
	if len(owned) == 0 {
		return
	}
	runs := []*batchv1.Job{owned[0]}
	for _, j := range active {
		if j.UID != owned[0].UID && len(runs) < maxRunsWithPods {
			runs = append(runs, j)
		}
	}
	c.jobPods(ctx, ns, runs)
}

// RunTime is when a CronJob's run was due: the time the CronJob controller
// stamps on the Job, else when it started or was created (to the second,
// so runs created together tie).
func RunTime(j *batchv1.Job) time.Time {
	if v, ok := j.Annotations[batchv1.CronJobScheduledTimestampAnnotation]; ok {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t
		}
	}
	if j.Status.StartTime != nil {
		return j.Status.StartTime.Time
	}
	return j.CreationTimestamp.Time
}

// jobActive: the CronJob lists the Job as active, or the Job has not
// finished and runs pods.
func jobActive(j *batchv1.Job, listed []corev1.ObjectReference) bool {
	for _, ref := range listed {
		if ref.UID == j.UID {
			return true
		}
	}
	for _, cond := range j.Status.Conditions {
		if (cond.Type == batchv1.JobComplete || cond.Type == batchv1.JobFailed) && cond.Status == corev1.ConditionTrue {
			return false
		}
	}
	return j.Status.Active > 0
}

// jobPods files pods of the runs, at most MaxPods in all, taken in turns so
// that each run has its most telling pod (unhealthy first) in the bundle.
func (c *collector) jobPods(ctx context.Context, ns string, runs []*batchv1.Job) {
	uids := map[types.UID]bool{}
	for _, j := range runs {
		uids[j.UID] = true
	}
	byRun := map[types.UID][]*corev1.Pod{}
	for _, sel := range jobPodSelectors(runs) {
		for _, p := range c.listPods(ctx, ns, sel, func(p *corev1.Pod) bool {
			ref := controllerOf(p.OwnerReferences)
			return ref != nil && uids[ref.UID]
		}) {
			uid := controllerOf(p.OwnerReferences).UID
			byRun[uid] = append(byRun[uid], p)
		}
	}
	kept := 0
	for turn := 0; kept < c.opts.MaxPods; turn++ {
		more := false
		for _, j := range runs {
			if pods := byRun[j.UID]; turn < len(pods) && kept < c.opts.MaxPods {
				c.addTyped(pods[turn], gvkPod)
				kept++
				more = true
			}
		}
		if !more {
			return
		}
	}
}

// jobPodSelectors turns the runs' selectors into as few list selectors as
// it can. The Job controller selects a Job's pods by one controller-uid
// label, so runs selected by the same label key share one set-based
// selector ("batch.kubernetes.io/controller-uid in (…)"); a run with a
// manual selector is listed on its own.
func jobPodSelectors(runs []*batchv1.Job) []string {
	var out []string
	byKey := map[string][]string{}
	var keys []string
	for _, j := range runs {
		ls := j.Spec.Selector
		if ls == nil {
			continue
		}
		if len(ls.MatchLabels) == 1 && len(ls.MatchExpressions) == 0 {
			for k, v := range ls.MatchLabels {
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], v)
			}
			continue
		}
		if sel, err := metav1.LabelSelectorAsSelector(ls); err == nil && !sel.Empty() {
			out = append(out, sel.String())
		}
	}
	for _, k := range keys {
		req, err := labels.NewRequirement(k, selection.In, byKey[k])
		if err != nil {
			continue
		}
		out = append(out, labels.NewSelector().Add(*req).String())
	}
	return out
}
