package health

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestBenignWarnings: a warning declared harmless is noted, not failed,
// only in the situation that makes it harmless; the same reason otherwise
// is still a symptom.
func TestBenignWarnings(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	job := func(name string, ann map[string]string) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "qa", Annotations: ann}}
	}
	manual := map[string]string{annManualRun: "manual"}
	ev := func(kind, name, reason, msg string) corev1.Event {
		return corev1.Event{Type: corev1.EventTypeWarning, Reason: reason, Message: msg, Count: 8, LastTimestamp: metav1.NewTime(now.Add(-time.Minute)),
			InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: "qa", Name: name}}
	}
	for _, tc := range []struct {
		name string
		jobs []*batchv1.Job
		e    corev1.Event
		want Status
	}{{
		// https://github.com/ReallyLiri/kubescout/issues/13: kubectl create
		// job --from=cronjob/tester.
		name: "kubectl's manual run", jobs: []*batchv1.Job{job("tester-manual-l5h2l", manual)},
		e: ev("CronJob", "tester", "UnexpectedJob", "Saw a job that the controller did not create or forgot: tester-manual-l5h2l"), want: Note,
	}, {
		// Argo CD's create-job action names the run <cronjob>-<yymmddHHMM>
		// (argoproj/argo-cd
		// resource_customizations/batch/CronJob/actions/create-job/action.lua).
		name: "Argo CD's create-job action", jobs: []*batchv1.Job{job("nightly-report-2612011452", manual)},
		e: ev("CronJob", "nightly-report", "UnexpectedJob", "Saw a job that the controller did not create or forgot: nightly-report-2612011452"), want: Note,
	}, {
		// A Job the CronJob owns that nobody marked as a manual run: the
		// controller lost track of it, or something else makes Jobs for it.
		name: "unmarked job", jobs: []*batchv1.Job{job("tester-29384712", nil)},
		e: ev("CronJob", "tester", "UnexpectedJob", "Saw a job that the controller did not create or forgot: tester-29384712"), want: Fail,
	}, {
		name: "job not in the bundle", jobs: nil,
		e: ev("CronJob", "tester", "UnexpectedJob", "Saw a job that the controller did not create or forgot: tester-manual-l5h2l"), want: Fail,
	}, {
		name: "API server repairing a cluster IP",
		e:    ev("Service", "api", "ClusterIPNotAllocated", "Cluster IP [IPv4]: 10.0.0.46 is not allocated; repairing"), want: Note,
	}, {
		// The same repair loop's notice that asks a human to act
		// (pkg/registry/core/service/ipallocator/controller/repair.go).
		name: "an allocation it does not repair",
		e:    ev("Service", "api", "ClusterIPAlreadyAllocated", "Cluster IP [IPv4]:10.0.0.46 was assigned to multiple services; please recreate service"), want: Fail,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b := &bundle.Bundle{Jobs: tc.jobs, Events: []corev1.Event{tc.e}}
			got := recentWarnings.Run(rule.NewPass(b, now, nil))
			if len(got) != 1 || got[0].Status != tc.want {
				t.Fatalf("results %+v, want one %s", got, tc.want)
			}
			if tc.want == Note && !strings.Contains(got[0].Line, "harmless") {
				t.Errorf("note %q does not say why it is harmless", got[0].Line)
			}
		})
	}
}
