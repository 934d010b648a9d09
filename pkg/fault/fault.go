// Package fault is the input side of a triage: a fault event, as
// kubernetes-mcp-server sends it or as synthesised from a resource the user
// picked (DESIGN.md §5).
package fault

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Severities of the current faults vocabulary.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// Resource names the object a fault is about.
type Resource struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
	UID        string `json:"uid,omitempty"`
}

// Event is a fault in the flat `faults` wire shape. Raw keeps the bytes the
// event arrived as (or was synthesised to); they go to context/event.json
// unmodified.
type Event struct {
	SubscriptionID string    `json:"subscriptionId,omitempty"`
	Cluster        string    `json:"cluster,omitempty"`
	FaultID        string    `json:"faultId,omitempty"`
	FaultType      string    `json:"faultType"`
	Severity       string    `json:"severity"`
	Resource       *Resource `json:"resource"`
	Context        string    `json:"context,omitempty"`
	Timestamp      time.Time `json:"timestamp"`

	// EventID identifies this received event for tracing; it is not part of
	// the wire shape.
	EventID string          `json:"-"`
	Raw     json.RawMessage `json:"-"`
}

// ResourceName and the helpers below answer the same whatever shape the event
// arrived in.
func (e *Event) ResourceName() string {
	if e.Resource == nil {
		return ""
	}
	return e.Resource.Name
}

func (e *Event) ResourceKind() string {
	if e.Resource == nil {
		return ""
	}
	return e.Resource.Kind
}

func (e *Event) Namespace() string {
	if e.Resource == nil {
		return ""
	}
	return e.Resource.Namespace
}

// Synthesize builds the flat event for a resource the user picked, and its
// raw bytes, so a picked resource and a received fault enter the same
// pipeline.
func Synthesize(cluster string, res Resource, faultType, severity, context string, at time.Time) (*Event, error) {
	ev := &Event{
		Cluster:   cluster,
		FaultID:   "manual-" + uuid.NewString()[:8],
		FaultType: faultType,
		Severity:  severity,
		Resource:  &res,
		Context:   context,
		Timestamp: at.UTC().Truncate(time.Second),
		EventID:   uuid.NewString(),
	}
	raw, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return nil, err
	}
	ev.Raw = raw
	return ev, nil
}
