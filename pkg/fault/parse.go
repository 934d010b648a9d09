package fault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Loggers of kubernetes-mcp-server's notifications/message frames.
const (
	LoggerFaults            = "kubernetes/faults"
	LoggerResourceFaults    = "kubernetes/resource-faults"
	LoggerEvents            = "kubernetes/events"
	LoggerSubscriptionError = "kubernetes/subscription_error"
)

// Wire shapes Parse recognises (Event.Shape).
const (
	// ShapeFlat is today's `faults` shape: resource{…}, faultId, faultType,
	// severity, context, timestamp.
	ShapeFlat = "flat"
	// ShapeFlatLegacy is the older `resource-faults` shape: ShapeFlat
	// without faultId.
	ShapeFlatLegacy = "flat-legacy"
	// ShapeNested is event{…, involvedObject, …} with optional logs[]: the
	// older `faults` shape, and `events` mode (Logger tells them apart).
	ShapeNested = "nested"
)

// Fault types derived from event reasons that Classify has no name for.
const (
	TypeProbeFailure = "ProbeFailure"
)

// Errors Parse wraps, so a caller (watch mode) can count them by kind with
// errors.Is. The messages read well on their own.
var (
	ErrInvalidJSON   = errors.New("fault event is not valid JSON")
	ErrMalformed     = errors.New("fault event is malformed")
	ErrNoResource    = errors.New("fault event has no resource: want resource{kind,name} or event.involvedObject")
	ErrUnknownLogger = errors.New("unknown notification logger")
	ErrNotFault      = errors.New("not a fault notification")
)

// K8sEvent is the Kubernetes event of the nested wire shapes.
type K8sEvent struct {
	Namespace      string            `json:"namespace,omitempty"`
	Timestamp      time.Time         `json:"timestamp,omitzero"`
	Type           string            `json:"type,omitempty"` // Warning | Normal
	Reason         string            `json:"reason,omitempty"`
	Message        string            `json:"message,omitempty"`
	InvolvedObject ObjectReference   `json:"involvedObject"`
	Count          int64             `json:"count,omitempty"`
	FirstTimestamp time.Time         `json:"firstTimestamp,omitzero"`
	LastTimestamp  time.Time         `json:"lastTimestamp,omitzero"`
	Labels         map[string]string `json:"labels,omitempty"`
}

// ObjectReference is an event's involvedObject.
type ObjectReference struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	UID        string `json:"uid,omitempty"`
	FieldPath  string `json:"fieldPath,omitempty"`
}

// LogSample is one container's log excerpt in the older nested faults shape.
type LogSample struct {
	Container string `json:"container,omitempty"`
	Previous  bool   `json:"previous,omitempty"`
	HasPanic  bool   `json:"hasPanic,omitempty"`
	Sample    string `json:"sample,omitempty"`
	Error     string `json:"error,omitempty"`
}

// resource is the involved object as a Resource; nil when it names nothing.
// A namespaced object whose reference lacks a namespace takes the event's.
func (k *K8sEvent) resource() *Resource {
	o := k.InvolvedObject
	if o.Kind == "" && o.Name == "" {
		return nil
	}
	r := &Resource{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, Namespace: o.Namespace, UID: o.UID}
	if r.Namespace == "" && !clusterScoped[o.Kind] {
		// Events about cluster-scoped objects (Nodes) live in "default":
		// the event's namespace is not theirs.
		r.Namespace = k.Namespace
	}
	return r
}

// clusterScoped are the built-in kinds that have no namespace.
var clusterScoped = map[string]bool{
	"Node": true, "Namespace": true, "PersistentVolume": true, "StorageClass": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true,
	"PriorityClass": true, "CSIDriver": true, "CSINode": true, "VolumeAttachment": true,
	"IngressClass": true, "RuntimeClass": true, "APIService": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"CertificateSigningRequest": true,
}

// SubscriptionError is a `kubernetes/subscription_error` notification: the
// server's watch behind a subscription failed. Degraded means the
// subscription lives on but may miss faults.
type SubscriptionError struct {
	SubscriptionID string          `json:"subscriptionId,omitempty"`
	Cluster        string          `json:"cluster,omitempty"`
	Message        string          `json:"error"`
	Degraded       bool            `json:"degraded"`
	Level          string          `json:"-"`
	Raw            json.RawMessage `json:"-"`
}

func (e *SubscriptionError) Error() string {
	s := "subscription " + e.SubscriptionID
	if e.Cluster != "" {
		s += " (cluster " + e.Cluster + ")"
	}
	s += " failed: " + e.Message
	if e.Degraded {
		s += " (degraded)"
	}
	return s
}

// Parse reads one fault event in any wire shape kubernetes-mcp-server sends
// (DESIGN.md §5): a bare event object (flat `faults` with faultId, flat
// `resource-faults`, nested `faults`, `events` mode), a whole
// notifications/message frame, or just its params {logger, level, data}.
//
// The event gets a new EventID; Raw holds the event object's bytes verbatim
// (the frame's `data` for a frame). A subscription_error notification is
// returned as a *SubscriptionError error; see ParseNotification.
func Parse(data []byte) (*Event, error) {
	ev, se, err := ParseNotification(data)
	if err != nil {
		return nil, err
	}
	if se != nil {
		return nil, se
	}
	return ev, nil
}

// ParseNotification is Parse that tells a fault event from a
// subscription_error notification: exactly one of the event, the
// subscription error and the error is non-nil.
func ParseNotification(data []byte) (*Event, *SubscriptionError, error) {
	// One pass tells the forms apart and, for a frame, takes its params.
	var probe struct {
		JSONRPC *string         `json:"jsonrpc"`
		Method  *string         `json:"method"`
		Params  *messageParams  `json:"params"`
		Logger  *string         `json:"logger"`
		Level   *string         `json:"level"`
		Data    json.RawMessage `json:"data"`
	}
	if err := decode(data, &probe); err != nil {
		return nil, nil, err
	}
	switch {
	case probe.JSONRPC != nil || probe.Method != nil:
		// A JSON-RPC frame.
		if probe.Method == nil || *probe.Method != "notifications/message" {
			m := "<none>"
			if probe.Method != nil {
				m = *probe.Method
			}
			return nil, nil, fmt.Errorf("%w: JSON-RPC method %q, want notifications/message", ErrNotFault, m)
		}
		if probe.Params == nil {
			return nil, nil, fmt.Errorf("%w: notifications/message frame has no params", ErrMalformed)
		}
		return parseMessage(probe.Params.Logger, probe.Params.Level, probe.Params.Data)
	case probe.Data != nil && (probe.Logger != nil || probe.Level != nil):
		// The params of a frame.
		return parseMessage(deref(probe.Logger), deref(probe.Level), probe.Data)
	}
	return parseEvent(bytes.Clone(data), "", "")
}

// ParseMessage parses the parts of a notifications/message the MCP client
// hands over: logger, level and the (re-marshalled) data. It is what a
// LoggingMessageHandler calls; data is copied.
func ParseMessage(logger, level string, data []byte) (*Event, *SubscriptionError, error) {
	return parseMessage(logger, level, bytes.Clone(data))
}

type messageParams struct {
	Logger string          `json:"logger"`
	Level  string          `json:"level"`
	Data   json.RawMessage `json:"data"`
}

// parseMessage owns data.
func parseMessage(logger, level string, data []byte) (*Event, *SubscriptionError, error) {
	switch logger {
	case "", LoggerFaults, LoggerResourceFaults, LoggerEvents, LoggerSubscriptionError:
	default:
		return nil, nil, fmt.Errorf("%w %q: want %s, %s, %s or %s", ErrUnknownLogger, logger,
			LoggerFaults, LoggerResourceFaults, LoggerEvents, LoggerSubscriptionError)
	}
	if isNull(data) {
		return nil, nil, fmt.Errorf("%w: notification has no data", ErrMalformed)
	}
	// Some servers send data as a JSON-encoded string.
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '"' {
		var s string
		if err := json.Unmarshal(d, &s); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalidJSON, err)
		}
		data = []byte(s)
	}
	if logger == LoggerSubscriptionError {
		se, err := parseSubscriptionError(data, level)
		return nil, se, err
	}
	return parseEvent(data, logger, level)
}

func parseSubscriptionError(data []byte, level string) (*SubscriptionError, error) {
	se := &SubscriptionError{}
	if err := decode(data, se); err != nil {
		return nil, err
	}
	se.Level, se.Raw = level, data
	return se, nil
}

// wireEvent is every top-level field of every event shape, decoded leniently
// where the server's vocabulary drifts (timestamps).
type wireEvent struct {
	SubscriptionID string        `json:"subscriptionId"`
	Cluster        string        `json:"cluster"`
	FaultID        string        `json:"faultId"`
	FaultType      string        `json:"faultType"`
	Severity       string        `json:"severity"`
	Resource       *Resource     `json:"resource"`
	Context        string        `json:"context"`
	Timestamp      wireTime      `json:"timestamp"`
	Event          *wireK8sEvent `json:"event"`
	Logs           []LogSample   `json:"logs"`
	// subscription_error fields, to recognise one sent without its logger.
	Error    *string `json:"error"`
	Degraded *bool   `json:"degraded"`
}

type wireK8sEvent struct {
	Namespace      string            `json:"namespace"`
	Timestamp      wireTime          `json:"timestamp"`
	Type           string            `json:"type"`
	Reason         string            `json:"reason"`
	Message        string            `json:"message"`
	InvolvedObject ObjectReference   `json:"involvedObject"`
	Count          int64             `json:"count"`
	FirstTimestamp wireTime          `json:"firstTimestamp"`
	LastTimestamp  wireTime          `json:"lastTimestamp"`
	Labels         map[string]string `json:"labels"`
}

// wireTime is an RFC 3339 time, or the zero time for anything else (absent,
// null, "", another format): a bad timestamp does not make a fault unusable.
type wireTime struct{ time.Time }

func (t *wireTime) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if v, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s)); err == nil {
			t.Time = v
		}
	}
	return nil
}

// parseEvent owns data, which becomes Raw.
func parseEvent(data []byte, logger, level string) (*Event, *SubscriptionError, error) {
	var w wireEvent
	if err := decode(data, &w); err != nil {
		return nil, nil, err
	}
	if w.Resource == nil && w.Event == nil && w.Error != nil {
		// A subscription_error whose logger was lost on the way.
		se, err := parseSubscriptionError(data, level)
		return nil, se, err
	}
	ev := &Event{
		SubscriptionID: w.SubscriptionID,
		Cluster:        w.Cluster,
		FaultID:        w.FaultID,
		FaultType:      w.FaultType,
		Severity:       w.Severity,
		Context:        w.Context,
		Timestamp:      w.Timestamp.Time,
		Logs:           w.Logs,
		Raw:            data,
		Logger:         logger,
		Level:          level,
	}
	if w.Event != nil {
		ev.Event = &K8sEvent{
			Namespace:      w.Event.Namespace,
			Timestamp:      w.Event.Timestamp.Time,
			Type:           w.Event.Type,
			Reason:         w.Event.Reason,
			Message:        w.Event.Message,
			InvolvedObject: w.Event.InvolvedObject,
			Count:          w.Event.Count,
			FirstTimestamp: w.Event.FirstTimestamp.Time,
			LastTimestamp:  w.Event.LastTimestamp.Time,
			Labels:         w.Event.Labels,
		}
	}
	// The flat resource wins; an incomplete one gives way to a complete
	// involvedObject.
	var involved *Resource
	if ev.Event != nil {
		involved = ev.Event.resource()
	}
	switch {
	case w.Resource != nil && (checkResource(w.Resource) == nil || checkResource(involved) != nil):
		ev.Resource = w.Resource
		ev.Shape = ShapeFlat
		if ev.FaultID == "" {
			ev.Shape = ShapeFlatLegacy
		}
	case ev.Event != nil:
		ev.Resource = involved
		ev.Shape = ShapeNested
	}
	if err := checkResource(ev.Resource); err != nil {
		return nil, nil, err
	}
	fill(ev)
	ev.EventID = uuid.NewString()
	return ev, nil, nil
}

func checkResource(r *Resource) error {
	switch {
	case r == nil:
		return ErrNoResource
	case strings.TrimSpace(r.Kind) == "":
		return fmt.Errorf("%w (kind is empty)", ErrNoResource)
	case strings.TrimSpace(r.Name) == "":
		return fmt.Errorf("%w (name is empty)", ErrNoResource)
	}
	return nil
}

// fill derives the flat fields a nested (or sparse) event lacks, so every
// shape answers FaultType, Severity, Context and Timestamp.
func fill(ev *Event) {
	k := ev.Event
	if ev.FaultType == "" && k != nil {
		ev.FaultType = ReasonFaultType(k.Reason, k.Message, ev.Resource.Kind)
	}
	if ev.Severity == "" {
		ev.Severity = deriveSeverity(ev.Level, k)
		// A Warning (or worse) about a fault type the table knows is rated
		// by the table, as the scan and the cluster source rate it: events
		// mode sends a crash loop's BackOff at level info, which alone
		// would make it a warning.
		if s, ok := SeverityOf(ev.FaultType); ok && SeverityRank(ev.Severity) >= SeverityRank(SeverityWarning) {
			ev.Severity = s
		}
	}
	if ev.Context == "" && k != nil {
		switch {
		case k.Reason != "" && k.Message != "":
			ev.Context = k.Reason + ": " + k.Message
		case k.Message != "":
			ev.Context = k.Message
		default:
			ev.Context = k.Reason
		}
	}
	if ev.Timestamp.IsZero() && k != nil {
		for _, t := range []time.Time{k.Timestamp, k.LastTimestamp, k.FirstTimestamp} {
			if !t.IsZero() {
				ev.Timestamp = t
				break
			}
		}
	}
}

// deriveSeverity is the severity of an event that states none: the higher of
// the frame's level and what the Kubernetes event type says (Warning →
// warning, Normal → info), else warning (a fault is something wrong).
// events mode sends Warning events at level info, hence the higher of both.
func deriveSeverity(level string, k *K8sEvent) string {
	best, rank := "", -1
	if r := SeverityRank(level); r >= 0 {
		best, rank = normalSeverity(level), r
	}
	if k != nil {
		var s string
		switch strings.ToLower(k.Type) {
		case "warning":
			s = SeverityWarning
		case "normal":
			s = SeverityInfo
		}
		if r := SeverityRank(s); r > rank {
			best, rank = s, r
		}
	}
	if rank < 0 {
		return SeverityWarning
	}
	return best
}

// ReasonFaultType names the fault a Kubernetes event reason points at, in the
// vocabulary of the flat faults shape where there is one, else the reason
// itself. message and kind refine a few ambiguous reasons (BackOff is both
// a crash loop and an image pull back-off).
func ReasonFaultType(reason, message, kind string) string {
	msg := strings.ToLower(message)
	switch reason {
	case "BackOff":
		if strings.Contains(msg, "pulling image") || strings.Contains(msg, "pull image") {
			return TypeImagePull
		}
		return TypeCrashLoop
	case "CrashLoopBackOff":
		return TypeCrashLoop
	case "ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName", "InspectFailed":
		return TypeImagePull
	case "Failed":
		switch {
		case strings.Contains(msg, "pull") || strings.Contains(msg, "image"):
			return TypeImagePull
		case kind == "Pod" && strings.HasPrefix(msg, "error:"):
			// kubelet's "Error: configmap \"x\" not found",
			// "Error: failed to create containerd task: …".
			return TypeConfigError
		}
	case "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
		return TypeConfigError
	case "FailedScheduling":
		return TypeUnschedulable
	case "OOMKilling", "OOMKilled", "SystemOOM":
		return TypeOOMKilled
	case "Unhealthy":
		return TypeProbeFailure
	case "NodeNotReady", "NodeHasDiskPressure", "NodeHasInsufficientMemory", "NodeHasInsufficientPID",
		"EvictionThresholdMet", "KubeletIsDown", "ContainerRuntimeIsDown", "KernelDeadlock", "Rebooted":
		return TypeNodeUnhealthy
	case "BackoffLimitExceeded", "DeadlineExceeded", "PodFailurePolicy", "MaxFailedIndexesExceeded":
		return TypeJobFailure
	case "ProgressDeadlineExceeded":
		return TypeDeploymentFailure
	}
	return reason
}

// Severity ranks on one ordered scale holding both vocabularies: the faults
// shape's info/warning/critical and the MCP (syslog) logging levels.
var severityRanks = map[string]int{
	"debug":     0,
	"info":      1,
	"notice":    2,
	"warning":   3,
	"error":     4,
	"critical":  5,
	"alert":     6,
	"emergency": 7,
}

var severityAliases = map[string]string{
	"warn": "warning", "err": "error", "crit": "critical", "emerg": "emergency",
	"information": "info", "informational": "info",
}

// SeverityRank places a severity of either vocabulary on one ordered scale:
// debug < info < notice < warning < error < critical < alert < emergency
// (case-insensitive; warn, err, crit, emerg accepted). Unknown or empty
// severities rank -1.
func SeverityRank(s string) int {
	if r, ok := severityRanks[s]; ok { // fast path: already canonical
		return r
	}
	if r, ok := severityRanks[normalSeverity(s)]; ok {
		return r
	}
	return -1
}

// normalSeverity is the canonical lower-case name of a known severity, or s
// lower-cased.
func normalSeverity(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if a, ok := severityAliases[s]; ok {
		return a
	}
	return s
}

// decode unmarshals one JSON object with errors that name what is wrong.
func decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("%w: %v", ErrInvalidJSON, err)
		case errors.As(err, &te) && te.Field == "":
			return fmt.Errorf("%w: got a JSON %s, want an object", ErrMalformed, te.Value)
		case errors.As(err, &te):
			return fmt.Errorf("%w: field %s is a JSON %s, want %s", ErrMalformed, te.Field, te.Value, jsonKind(te.Type.Kind().String()))
		}
		return fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	if isNull(data) {
		return fmt.Errorf("%w: got null, want an object", ErrMalformed)
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "struct", "map", "ptr":
		return "an object"
	case "slice", "array":
		return "an array"
	}
	return "a number"
}

func isNull(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || string(b) == "null"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
