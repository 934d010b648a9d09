package pod

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestRunningErrors: a Ready container whose current log repeats one
// error record is the finding, naming the record; errors that do not
// repeat, or lines without a declared level, are not.
func TestRunningErrors(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	bundleWith := func(log string) *bundle.Bundle {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "promtail-x7k2p", Namespace: "logging", UID: "p1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "promtail", Image: "grafana/promtail:2.9.2"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "promtail", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-3 * time.Hour))}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: string(p.UID)}, Pods: []*corev1.Pod{p},
			Logs: []bundle.ContainerLog{{Namespace: p.Namespace, Pod: p.Name, Container: "promtail", Text: log}}}
	}
	stamped := func(n int, format string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			at := now.Add(time.Duration(i-n) * 20 * time.Second).Format(time.RFC3339Nano)
			fmt.Fprintf(&b, "%s "+format+"\n", at, at, i)
		}
		return b.String()
	}
	// Promtail pushing to a Loki Service that does not exist (grafana/loki
	// issue threads: "final error sending batch ... no such host").
	promtail := `level=error ts=%s caller=client.go:430 component=client host=loki-gateway:80 msg="final error sending batch" status=-1 tenant= error="Post \"http://loki-gateway/loki/api/v1/push\": dial tcp: lookup loki-gateway on 10.96.0.10:53: no such host" batch=%d`
	f := ruletest.Root(ruletest.Run(RunningErrors, bundleWith(stamped(12, promtail)), now))
	if f == nil || !strings.HasPrefix(string(f.Category), string(rule.Running.Sub("Errors"))) || !strings.Contains(f.Culprit, "lookup loki-gateway") {
		t.Fatalf("finding %+v", f)
	}
	if !strings.Contains(f.Title, "Ready") || !strings.Contains(f.Title, "12 times") {
		t.Errorf("title %q", f.Title)
	}
	for name, log := range map[string]string{
		"distinct one-off errors": stamped(1, `level=error ts=%s msg="reading positions file" batch=%d`) + stamped(1, `level=error ts=%s msg="target deleted" batch=%d`) + stamped(1, `level=error ts=%s msg="config reload" batch=%d`),
		"lines without a level":   stamped(10, `%s retrying: request failed, attempt %d`),
		"infos":                   stamped(10, `level=info ts=%s msg="Successfully sent batch" batch=%d`),
	} {
		if f := ruletest.Root(ruletest.Run(RunningErrors, bundleWith(log), now)); f != nil {
			t.Errorf("%s: finding %q: %s", name, f.Category, f.Title)
		}
	}
}
