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

// Event is one fault event, whatever wire shape it arrived in (DESIGN.md §5).
// Its JSON form is the flat `faults` shape (plus `event`/`logs` when it came
// in a nested shape). Parse fills the flat fields from every shape, so
// Resource, FaultType, Severity, Context and Timestamp answer the same for
// all of them; Event and Logs keep the nested parts.
//
// Raw keeps the bytes the event arrived as (or was synthesised to); they go to
// context/event.json unmodified.
type Event struct {
	SubscriptionID string    `json:"subscriptionId,omitempty"`
	Cluster        string    `json:"cluster,omitempty"`
	FaultID        string    `json:"faultId,omitempty"`
	FaultType      string    `json:"faultType"`
	Severity       string    `json:"severity"`
	Resource       *Resource `json:"resource"`
	Context        string    `json:"context,omitempty"`
	Timestamp      time.Time `json:"timestamp"`

	// Event is the Kubernetes event of the nested shapes (older `faults`
	// servers and `events` mode); nil for the flat shapes.
	Event *K8sEvent `json:"event,omitempty"`
	// Logs are the log samples the older nested `faults` shape carries.
	Logs []LogSample `json:"logs,omitempty"`

	// EventID identifies this received event for tracing; it is not part of
	// the wire shape.
	EventID string          `json:"-"`
	Raw     json.RawMessage `json:"-"`
	// Logger and Level come from the MCP notification frame, when the event
	// arrived in one (e.g. "kubernetes/faults", "warning").
	Logger string `json:"-"`
	Level  string `json:"-"`
	// Shape is the wire shape Parse recognised (ShapeFlat, ShapeFlatLegacy,
	// ShapeNested); empty for synthesised events.
	Shape string `json:"-"`
	// Causes are CauseKeys of objects the source knows may have caused the
	// fault (a pod's NotReady node, its ReplicaSet, Deployment or Job):
	// watch groups faults that share one into one incident.
	Causes []string `json:"-"`
}

// ResourceName and the helpers below answer the same whatever shape the event
// arrived in (Parse fills Resource from event.involvedObject for the nested
// shapes).
func (e *Event) ResourceName() string {
	if r := e.resource(); r != nil {
		return r.Name
	}
	return ""
}

func (e *Event) ResourceKind() string {
	if r := e.resource(); r != nil {
		return r.Kind
	}
	return ""
}

// Namespace is the namespace of the resource ("" for cluster-scoped ones).
func (e *Event) Namespace() string {
	if r := e.resource(); r != nil {
		return r.Namespace
	}
	return ""
}

// resource is Resource, or for a hand-built nested event that never went
// through Parse, its involved object.
func (e *Event) resource() *Resource {
	if e.Resource != nil {
		return e.Resource
	}
	if e.Event != nil {
		return e.Event.resource()
	}
	return nil
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
