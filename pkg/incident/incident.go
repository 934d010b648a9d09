// Package incident is the incident record (incident.json, DESIGN.md §4): the
// response to one fault, its lifecycle and the atomic store that keeps it.
package incident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

// Status is the incident's lifecycle state.
type Status string

const (
	Investigating Status = "investigating"
	Resolved      Status = "resolved"
	Failed        Status = "failed"
	AgentFailed   Status = "agent_failed"
)

// AgentState is the agent run's lifecycle state.
type AgentState string

const (
	AgentCreated   AgentState = "created"
	AgentStarting  AgentState = "starting"
	AgentRunning   AgentState = "running"
	AgentSuccess   AgentState = "success"
	AgentFailure   AgentState = "failed"
	AgentTimeout   AgentState = "timeout"
	AgentCancelled AgentState = "cancelled"
)

// Failure reasons recorded in failureReason for the failed status.
const (
	ReasonTimeout   = "timeout"
	ReasonCancelled = "cancelled"
	// ReasonInterrupted: the process running the incident ended without
	// recording an outcome (killed, crashed, the machine went down).
	ReasonInterrupted = "interrupted"
)

// FileName is the record's name inside a workspace.
const FileName = "incident.json"

// Agent describes the agent run.
type Agent struct {
	Name     string     `json:"name"`
	Command  []string   `json:"command,omitempty"`
	Model    string     `json:"model,omitempty"`
	State    AgentState `json:"state"`
	PID      int        `json:"pid,omitempty"`
	ExitCode *int       `json:"exitCode,omitempty"`
	Signal   string     `json:"signal,omitempty"`
}

// ReportRef points at the report and carries its headline.
type ReportRef struct {
	Path            string  `json:"path"`
	RootCause       string  `json:"rootCause,omitempty"`
	Confidence      float64 `json:"confidence,omitempty"`
	ConfidenceLevel string  `json:"confidenceLevel,omitempty"`
}

// Incident is the record kept in incident.json.
type Incident struct {
	IncidentID        string         `json:"incidentId"`
	TriggeringEventID string         `json:"triggeringEventId"`
	Status            Status         `json:"status"`
	FailureReason     string         `json:"failureReason,omitempty"`
	Cluster           string         `json:"cluster,omitempty"`
	Context           string         `json:"context,omitempty"`
	Namespace         string         `json:"namespace,omitempty"`
	Resource          fault.Resource `json:"resource"`
	FaultType         string         `json:"faultType"`
	Severity          string         `json:"severity"`
	Message           string         `json:"message,omitempty"`
	Timestamp         time.Time      `json:"timestamp"`
	CreatedAt         time.Time      `json:"createdAt"`
	StartedAt         *time.Time     `json:"startedAt,omitempty"`
	CompletedAt       *time.Time     `json:"completedAt,omitempty"`
	Agent             Agent          `json:"agent"`
	Sandbox           string         `json:"sandbox,omitempty"`
	Workspace         string         `json:"workspace"`
	Report            *ReportRef     `json:"report,omitempty"`
	// Effort, Claims and SecondOpinion are an external agent's: what the
	// run cost as its CLI reported it, how its report's claims held up
	// against what it read, and its root cause beside the builtin's (see
	// agentcheck.go).
	Effort        *effort.Effort `json:"effort,omitempty"`
	Claims        *Claims        `json:"claims,omitempty"`
	SecondOpinion *SecondOpinion `json:"secondOpinion,omitempty"`
	// Members are the other faults this incident stands for: watch grouped
	// them into it because they share its cause (see members.go).
	Members []Member `json:"members,omitempty"`
	// Redaction says that the fault's text went through the redaction pass
	// before anything of it was written: this record, context/event.json
	// and PROMPT.md hold the redacted form.
	Redaction *Redaction `json:"redaction,omitempty"`
	// Owner is the process that runs the incident (the plugin, whatever the
	// agent: the builtin one runs inside it). Once it is gone an incident
	// still investigating can never finish: it reads as failed, reason
	// interrupted (see Interrupted).
	Owner *owner.Process `json:"owner,omitempty"`
	// CancelledBy says who asked for the cancellation (kubectl triage
	// cancel): user, host and process.
	CancelledBy string `json:"cancelledBy,omitempty"`
	// Storage says where the finished workspace was copied in object
	// storage (watch --store), or why it could not be.
	Storage *StorageRef `json:"storage,omitempty"`
}

// StorageRef is where an incident's workspace went in object storage.
type StorageRef struct {
	// URL is the bucket as given to --store, without its query (no
	// credential or endpoint setting is ever recorded).
	URL string `json:"url"`
	// Path is the workspace's prefix in the bucket:
	// <cluster>/<yyyy>/<mm>/<dd>/<incident-id>/.
	Path string `json:"path"`
	// UploadedAt is set once every file is in the bucket; Error says why
	// the upload gave up (the local workspace is then kept).
	UploadedAt *time.Time `json:"uploadedAt,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// Redaction records what the redaction pass did to the triggering event.
type Redaction struct {
	Applied bool `json:"applied"`
	// EventValuesMasked counts the values masked in the event.
	EventValuesMasked int `json:"eventValuesMasked"`
}

// New makes the record for a fault, copying (flattening) what it needs so the
// event itself is never modified. What it copies is redacted first: the
// record is written to disk, quoted in the prompt and printed by status.
func New(id string, ev *fault.Event, contextName, agentName string, now time.Time) *Incident {
	ev, masked := redact.Event(ev)
	inc := &Incident{
		IncidentID:        id,
		TriggeringEventID: ev.EventID,
		Status:            Investigating,
		Cluster:           ev.Cluster,
		Context:           contextName,
		Namespace:         ev.Namespace(),
		FaultType:         ev.FaultType,
		Severity:          ev.Severity,
		Message:           ev.Context,
		Timestamp:         ev.Timestamp,
		CreatedAt:         now.UTC(),
		Agent:             Agent{Name: agentName, State: AgentCreated},
		Redaction:         &Redaction{Applied: true, EventValuesMasked: masked},
	}
	if ev.Resource != nil {
		inc.Resource = *ev.Resource
	}
	return inc
}

// ClusterName names the incident's cluster: the one its fault names, else
// the kubeconfig context it was triaged on (a single-cluster MCP server
// names none: it is the context's).
func (i *Incident) ClusterName() string {
	if i.Cluster != "" {
		return i.Cluster
	}
	return i.Context
}

// Interrupted reports whether the incident is still recorded as
// investigating although the process that owns it is gone, so nothing will
// ever finish it. MarkInterrupted turns it into the failed record it is.
func (i *Incident) Interrupted() bool {
	return i.Status == Investigating && i.Owner != nil && i.Owner.Gone()
}

// MarkInterrupted records (in memory) what an interrupted incident is:
// failed, reason interrupted. It reports whether it changed anything.
func (i *Incident) MarkInterrupted() bool {
	if !i.Interrupted() {
		return false
	}
	i.Status = Failed
	i.FailureReason = ReasonInterrupted
	return true
}

// Finished reports whether the incident reached a final status.
func (i *Incident) Finished() bool { return i.Status != Investigating }

// Save writes the record to path atomically: a temp file in the same
// directory, fsync, rename. A crash leaves the old or the new record, never a
// torn one.
func Save(path string, inc *Incident) error { return save(path, inc, atomicfile.Write) }

// SaveStep is Save for an intermediate state that a later Save supersedes:
// the record is as safe from a torn write, but its rename is not synced to
// the directory (atomicfile.Replace).
func SaveStep(path string, inc *Incident) error { return save(path, inc, atomicfile.Replace) }

// Encode is the record as Save writes it.
func Encode(inc *Incident) ([]byte, error) {
	data, err := json.MarshalIndent(inc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode incident %s: %w", inc.IncidentID, err)
	}
	return append(data, '\n'), nil
}

func save(path string, inc *Incident, write func(string, []byte, os.FileMode) error) error {
	data, err := Encode(inc)
	if err != nil {
		return err
	}
	err = write(path, data, 0o600)
	if errors.Is(err, syscall.ENOSPC) {
		// A full disk has no block for the temp file, but the record's own
		// (a few KB, rewritten in place) is already there: a run that
		// fails because the disk is full can still say so.
		if err2 := overwrite(path, data); err2 == nil {
			return nil
		}
	}
	return err
}

// overwrite rewrites an existing regular file in place, without truncating
// it first (which would give its blocks back), then cuts it to size.
func overwrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Sync()
}

// Read reads the record of the workspace ws: a link, a special file or
// one over ws's limit is refused (safefile).
func Read(ctx context.Context, ws safefile.Dir) (*Incident, error) {
	data, err := ws.ReadFile(ctx, FileName)
	if err != nil {
		return nil, err
	}
	return decode(data, filepath.Join(ws.Where(), FileName))
}

// Load reads the record at path, as Read does (safefile's default limit).
func Load(path string) (*Incident, error) {
	data, err := safefile.Dir{Base: filepath.Dir(path)}.ReadFile(context.Background(), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	return decode(data, path)
}

func decode(data []byte, path string) (*Incident, error) {
	var inc Incident
	if err := json.Unmarshal(data, &inc); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &inc, nil
}

// StoredAt is where the incident is in the object store (URL/path), once
// it got there; "" before, or when it was never stored.
func (inc *Incident) StoredAt() string {
	if inc == nil || inc.Storage == nil || inc.Storage.UploadedAt == nil {
		return ""
	}
	return inc.Storage.URL + "/" + inc.Storage.Path
}
