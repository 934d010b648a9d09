package clusterwatch

import (
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// One fault, one severity, whoever reports it: the scan and the cluster
// source's transitions (stateFault), the cluster source's Warning events
// (eventFault) and an MCP events-mode notification (fault.Parse, which
// sends a crash loop's BackOff at level info) all rate it from the shared
// table, and the table rates a failed Job critical as
// kubernetes-mcp-server does.
func TestSeverityOneTable(t *testing.T) {
	crashLoop := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
		Name: "app", RestartCount: 5, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
	}}}}
	failedJob := &batchv1.Job{Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{
		Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit",
	}}}}
	for _, tc := range []struct {
		faultType, want string
		state           func() (string, string)
		reason, kind    string
	}{
		{fault.TypeCrashLoop, fault.SeverityCritical, func() (string, string) {
			ft, s, _ := stateFault(crashLoop, podKind)
			return ft, s
		}, "BackOff", "Pod"},
		{fault.TypeJobFailure, fault.SeverityCritical, func() (string, string) {
			ft, s, _ := stateFault(failedJob, jobKind)
			return ft, s
		}, "BackoffLimitExceeded", "Job"},
	} {
		t.Run(tc.faultType, func(t *testing.T) {
			if s, ok := fault.SeverityOf(tc.faultType); !ok || s != tc.want {
				t.Fatalf("table: %s = %q, want %q", tc.faultType, s, tc.want)
			}
			if ft, s := tc.state(); ft != tc.faultType || s != tc.want {
				t.Errorf("scan: %s %s, want %s %s", ft, s, tc.faultType, tc.want)
			}
			e := &corev1.Event{Type: corev1.EventTypeWarning, Reason: tc.reason, Message: "m",
				InvolvedObject: corev1.ObjectReference{Kind: tc.kind, Name: "x", Namespace: "shop"}}
			if _, ft, s, _, ok := eventFault(e); !ok || ft != tc.faultType || s != tc.want {
				t.Errorf("cluster event: %s %s, want %s %s", ft, s, tc.faultType, tc.want)
			}
			frame := fmt.Sprintf(`{"logger":"kubernetes/events","level":"info","data":{"cluster":"c","event":{"namespace":"shop","type":"Warning","reason":%q,"message":"m","involvedObject":{"kind":%q,"name":"x"}}}}`, tc.reason, tc.kind)
			ev, err := fault.Parse([]byte(frame))
			if err != nil {
				t.Fatal(err)
			}
			if ev.FaultType != tc.faultType || ev.Severity != tc.want {
				t.Errorf("MCP events mode: %s %s, want %s %s", ev.FaultType, ev.Severity, tc.faultType, tc.want)
			}
		})
	}
}
