package health

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// benignWarning is a warning event that describes a known-harmless state:
// the recent-warnings fallback notes it instead of failing on it
// (docs/DESIGN.md §7, the health model). Each one is declared here, once,
// with what makes that event the harmless case: the same reason in another
// situation stays a fault.
type benignWarning struct {
	reason string
	// harmless says, from the event and the bundle, why this event is the
	// harmless case, or "" when it is not.
	harmless func(b *bundle.Bundle, e corev1.Event) string
}

var benignWarnings = []benignWarning{
	// The API server's own repair loop found an allocation out of step and
	// is fixing it itself ("Cluster IP [IPv4]: 10.0.0.46 is not allocated;
	// repairing", pkg/registry/core/service/ipallocator/controller in
	// https://github.com/kubernetes/kubernetes): nothing for a human to do.
	{reason: "ClusterIPNotAllocated", harmless: selfRepairing},
	{reason: "PortNotAllocated", harmless: selfRepairing},
	// The CronJob controller warns about every unfinished Job it owns but
	// did not schedule (pkg/controller/cronjob/cronjob_controllerv2.go in
	// https://github.com/kubernetes/kubernetes). A run started by hand is
	// such a Job: kubectl create job --from=cronjob/<name>, Argo CD's
	// create-job action (argoproj/argo-cd
	// resource_customizations/batch/CronJob/actions/create-job/action.lua)
	// and Stakater Reloader's CreateJobFromCronjob (stakater/Reloader
	// internal/pkg/callbacks/rolling_upgrade.go) all annotate it
	// cronjob.kubernetes.io/instantiate=manual. Reported as a false alarm in
	// https://github.com/ReallyLiri/kubescout/issues/13 and
	// https://github.com/kubernetes/kubernetes/issues/120181.
	{reason: "UnexpectedJob", harmless: manualCronRun},
}

func selfRepairing(_ *bundle.Bundle, e corev1.Event) string {
	if strings.Contains(e.Message, "repairing") {
		return "the API server's repair loop is fixing the allocation itself"
	}
	return ""
}

// annManualRun marks a Job made from a CronJob's template by hand.
const annManualRun = "cronjob.kubernetes.io/instantiate"

var unexpectedJobRe = regexp.MustCompile(`did not create or forgot: (?P<job>[a-z0-9][-a-z0-9.]*)`)

func manualCronRun(b *bundle.Bundle, e corev1.Event) string {
	m, ok := submatch.Find(unexpectedJobRe, e.Message)
	if !ok {
		return ""
	}
	for _, j := range b.Jobs {
		if j.Name == m.Get("job") && j.Namespace == e.InvolvedObject.Namespace && j.Annotations[annManualRun] == "manual" {
			return "job " + j.Name + " was started by hand (" + annManualRun + "=manual, as kubectl create job --from=cronjob/" + e.InvolvedObject.Name +
				" makes it); the controller warns about every Job it did not schedule itself, which is harmless"
		}
	}
	return ""
}

// Harmless says why a warning event is harmless, or "" when it is not
// a declared harmless case.
func Harmless(b *bundle.Bundle, e corev1.Event) string {
	for _, w := range benignWarnings {
		if w.reason == e.Reason {
			if why := w.harmless(b, e); why != "" {
				return why
			}
		}
	}
	return ""
}
