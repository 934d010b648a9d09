package kube

import (
	"fmt"
	"slices"
)

// ReplicaSetTemplateRisk: a ReplicaSet's controller does not roll a
// template change out.
const ReplicaSetTemplateRisk = "a ReplicaSet applies a template change only to the pods it creates from now on: delete its running pods to replace them"

// ReplicaSetPendingRisk: the same for pods that have not started (waiting
// to be scheduled, or for their image), which keep the old template and
// wait on.
const ReplicaSetPendingRisk = "a ReplicaSet applies a template change only to the pods it creates from now on: delete its pending pods so that it recreates them"

// JobTemplateRisk: a Job's pod template is immutable, so a fix to it
// recreates the Job.
const JobTemplateRisk = "a Job's pod template cannot change: replace --force deletes the Job and its pods, and the new Job runs its work again from the start"

// CronJobTemplateRisk: a CronJob's Jobs copy its template when they start,
// so a change reaches only the runs after it.
const CronJobTemplateRisk = "a CronJob applies a template change from its next run on (the runs already started keep the old one); create job starts a run now: make sure an extra run is safe"

// CronJobPendingRisk: the same for a run whose pods cannot start (or be
// created), which waits on with the old template until it is deleted.
const CronJobPendingRisk = "a CronJob applies a template change from its next run on: the stuck run keeps the old one, so delete it; create job starts a run now: make sure an extra run is safe"

// TemplateRisk is what changing the pod template of an owner of kind does
// to the pods it has: rollout (e.g. "the change starts a rollout") for a
// controller that rolls its pods, but neither a bare ReplicaSet, nor a Job
// (whose template is immutable), nor a CronJob (whose runs have their own
// copy) does.
func TemplateRisk(kind, rollout string) string {
	switch kind {
	case "replicaset":
		return ReplicaSetTemplateRisk
	case "job":
		return JobTemplateRisk
	case "cronjob":
		return CronJobTemplateRisk
	}
	return rollout
}

// PendingTemplateRisk is TemplateRisk for a fix of pods that have not
// started (unschedulable, or waiting for their image).
func PendingTemplateRisk(kind, rollout string) string {
	switch kind {
	case "replicaset":
		return ReplicaSetPendingRisk
	case "job":
		return JobTemplateRisk
	case "cronjob":
		return CronJobPendingRisk
	}
	return rollout
}

// TemplateCommands are the commands that make a change to the pod template
// of the owner kind/name in namespace ns take effect. edit changes the
// template in place (kubectl set, patch or edit), which is all a
// controller that rolls its pods needs; what says the change in words. A
// Job's template cannot change, so its manifest is edited and the Job
// recreated; a CronJob takes edit, and a run is started now rather than at
// the next schedule, after deleting stuckRun, the run whose pods wait with
// the old template ("" when none waits or it is unknown).
func TemplateCommands(kind, name, ns string, edit []string, what, stuckRun string) []string {
	switch kind {
	case "job":
		return RecreateJobCommands(name, ns, what)
	case "cronjob":
		out := slices.Clone(edit)
		if stuckRun != "" {
			out = append(out, fmt.Sprintf("kubectl delete job %s -n %s", stuckRun, ns))
		}
		return append(out, RunCronJobNow(name, ns))
	}
	return edit
}

// RecreateJobCommands edit a Job's manifest and recreate the Job from it.
// The API server refuses a Job that carries another Job's generated
// selector, hence what to remove.
func RecreateJobCommands(name, ns, what string) []string {
	return []string{
		fmt.Sprintf("kubectl get job %s -n %s -o yaml > %s.yaml   # %s; remove status, metadata.uid/resourceVersion, spec.selector and the controller-uid labels", name, ns, name, what),
		fmt.Sprintf("kubectl replace --force -f %s.yaml", name),
	}
}

const RecreateRisk = "replace --force deletes and recreates the pod"
