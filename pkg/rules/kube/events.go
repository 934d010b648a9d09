package kube

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// RecentWarning is how old a warning may be and still describe today.
const RecentWarning = time.Hour

func WarningEvents(b *bundle.Bundle) []corev1.Event {
	var out []corev1.Event
	for _, e := range b.Events {
		if e.Type == corev1.EventTypeWarning {
			out = append(out, e)
		}
	}
	return out
}

func EventEvidence(c *rule.Pass, e corev1.Event) string {
	kind := strings.ToLower(e.InvolvedObject.Kind)
	return c.Evidence(
		fmt.Sprintf("Event %s %s ×%d (last seen %s): %s", e.Type, e.Reason, max(e.Count, 1), Stamp(bundle.EventTime(&e)), e.Message),
		fmt.Sprintf("event on %s/%s", kind, e.InvolvedObject.Name),
		fmt.Sprintf("kubectl get events -n %s --field-selector involvedObject.name=%s,reason=%s", e.InvolvedObject.Namespace, e.InvolvedObject.Name, e.Reason))
}

// EventsWith returns the events about uid with one of the reasons, oldest
// first.
func EventsWith(c *rule.Pass, uid types.UID, reasons ...string) []corev1.Event {
	var out []corev1.Event
	for _, e := range c.B.EventsFor(string(uid)) {
		for _, r := range reasons {
			if e.Reason == r {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
