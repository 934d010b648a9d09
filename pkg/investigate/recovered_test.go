package investigate

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestRecoveredCrash: one crash beyond the restart window, running and
// ready since, is healthy now with the crash named as history; a second
// crash, a recent one, or a container not ready since keeps the crash as
// the root cause (docs/DESIGN.md §7).
func TestRecoveredCrash(t *testing.T) {
	tests := []struct {
		name     string
		restarts int32
		code     int32
		ago      time.Duration
		ready    bool
		state    string // healthy, historical, or "" for anything but healthy
	}{
		{"once, days ago, ready since", 1, 1, 72 * time.Hour, true, "healthy"},
		{"twice, days ago", 2, 1, 72 * time.Hour, true, "historical"},
		{"once, within the restart window", 1, 1, 40 * time.Minute, true, "historical"},
		{"once, days ago, not ready", 1, 1, 72 * time.Hour, false, ""},
		// A SIGKILL under the pod's 64Mi limit may be an OOM kill the
		// runtime did not record: the limit still stands.
		{"a SIGKILL under a memory limit, days ago", 1, 137, 72 * time.Hour, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := bundletest.Pod("web-1", func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{
					Name: "app", Image: p.Spec.Containers[0].Image, RestartCount: tt.restarts, Ready: tt.ready,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: bundletest.TS(-tt.ago + time.Second)}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
						ExitCode: tt.code, Reason: "Error", StartedAt: bundletest.TS(-tt.ago - time.Minute), FinishedAt: bundletest.TS(-tt.ago)}},
				}}
				cond := corev1.ConditionFalse
				if tt.ready {
					cond = corev1.ConditionTrue
				}
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}, {Type: corev1.ContainersReady, Status: cond}}
			})
			b := bundletest.PodBundle(p, func(b *bundle.Bundle) {
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-1", Container: "app", Previous: true,
					Text: "Error: connect ECONNREFUSED 10.96.0.20:5432\n"}}
			})
			r := Investigate(b, Options{Now: bundletest.Now})
			got := "historical"
			switch {
			case r.Healthy:
				got = "healthy"
			case r.Ongoing:
				got = "ongoing"
			}
			if tt.state == "" && got != "healthy" {
				return
			}
			if got != tt.state {
				t.Fatalf("state %s, want %s: %q (%s)", got, tt.state, r.Title, r.RootCause.Category)
			}
			md := r.Markdown()
			if tt.code == 1 && !strings.Contains(md, "ECONNREFUSED") {
				t.Errorf("the report does not quote the crash's log line:\n%s", md)
			}
			if strings.Contains(r.Title, "crashes") {
				t.Errorf("a crash that ended is told in the present tense: %q", r.Title)
			}
			if tt.state == "healthy" && !strings.Contains(r.RootCause.Statement, "crashed once") {
				t.Errorf("the healthy report does not name the crash as history: %q", r.RootCause.Statement)
			}
		})
	}
}

// TestRecoveredAcrossPodsIsAPattern: the same one-off crash in several
// pods of a workload, merged into one finding, is no recovery.
func TestRecoveredAcrossPodsIsAPattern(t *testing.T) {
	f := rule.Finding{Rule: "pod/crashloop", Category: "CrashLoop/Exit2", Verdict: report.Validated, Hypothesis: "h", Recovered: true}
	a, b := f, f
	a.Subject, b.Subject = "web-1/app", "web-2/app"
	if got := merge([]rule.Finding{a, b}); len(got) != 1 || got[0].Recovered {
		t.Errorf("merged %+v, want one finding that is not Recovered", got)
	}
	if got := merge([]rule.Finding{a}); len(got) != 1 || !got[0].Recovered {
		t.Errorf("one pod's one-off crash: %+v, want Recovered", got)
	}
}
