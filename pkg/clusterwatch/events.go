package clusterwatch

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// existingEventWindow bounds which Warning events of the initial list are
// emitted with IncludeExisting, and which events are too old to emit at
// all: the apiserver keeps events for an hour by default (--event-ttl).
const existingEventWindow = time.Hour

// eventFault is the fault a Warning event reports: its resource, fault type,
// severity and context. ok is false for an event that is not a fault: not a
// Warning, the apiserver's own noise, or about no object.
func eventFault(e *corev1.Event) (res fault.Resource, faultType, severity, context string, ok bool) {
	if e.Type != corev1.EventTypeWarning || bundle.SelfRepair(e) {
		return fault.Resource{}, "", "", "", false
	}
	ref := e.InvolvedObject
	if ref.Kind == "" || ref.Name == "" {
		return fault.Resource{}, "", "", "", false
	}
	ns := ref.Namespace
	if ns == "" && e.Namespace != metav1.NamespaceDefault {
		// An empty reference namespace means a cluster-scoped object,
		// whose events are recorded in "default"; elsewhere it is an
		// incomplete reference to an object of the event's namespace.
		ns = e.Namespace
	}
	res = fault.Resource{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, Namespace: ns, UID: string(ref.UID)}
	// The same names Classify gives the states (BackOff → CrashLoop,
	// FailedScheduling → Unschedulable, ...), so that downstream dedup
	// (cluster/namespace/kind/name/faultType) sees a state fault and the
	// warnings about it as one.
	faultType = fault.ReasonFaultType(e.Reason, e.Message, ref.Kind)
	// The shared table, as the scan and MCP notifications are rated; a
	// reason of its own is a warning (it is a Warning event).
	severity = fault.SeverityWarning
	if s, ok := fault.SeverityOf(faultType); ok && fault.SeverityRank(s) > fault.SeverityRank(severity) {
		severity = s
	}
	// As fault.Parse words the context of a nested event.
	context = e.Message
	if e.Reason != "" {
		context = e.Reason + ": " + e.Message
	}
	return res, faultType, severity, context, true
}

// recurred reports whether an update of an event is a new occurrence (the
// recorder bumps count and lastTimestamp instead of creating an event),
// rather than a change of its metadata.
func recurred(oldEvent, newEvent *corev1.Event) bool {
	return bundle.EventCount(newEvent) > bundle.EventCount(oldEvent) || bundle.EventTime(newEvent).After(bundle.EventTime(oldEvent))
}
