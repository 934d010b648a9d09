package testcluster

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"
)

// AuditEvent is the part of an audit.k8s.io/v1 Event tests care about.
type AuditEvent struct {
	Verb        string // get, list, watch, create, update, patch, delete, ...
	RequestURI  string
	User        string
	UserAgent   string
	Code        int // HTTP status of the response
	Resource    string
	Subresource string
	Namespace   string
	Name        string
	Stage       string // ResponseComplete or Panic
	Time        time.Time
}

// auditLine mirrors the JSON of audit.k8s.io/v1 Event (decoded locally to
// avoid depending on k8s.io/apiserver).
type auditLine struct {
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// AuditMark returns the current size of the audit log, to pass to
// AuditSince. The apiserver runs with --audit-log-mode=blocking, so every
// request answered before this call is already accounted for.
func (c *Cluster) AuditMark() int64 {
	fi, err := os.Stat(c.AuditLogPath)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// AuditSince returns the completed requests (stage ResponseComplete or
// Panic) logged after mark, made by user ("" = any user), in log order.
// Filter by c.UserName to ignore the harness's own (admin) requests.
func (c *Cluster) AuditSince(t testing.TB, mark int64, user string) []AuditEvent {
	t.Helper()
	f, err := os.Open(c.AuditLogPath)
	if err != nil {
		t.Fatalf("open audit log: %v", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < mark {
		t.Fatalf("audit log shrank below mark %d (rotated or truncated?)", mark)
	}
	// Start one byte early to tell whether mark sits on a line boundary; a
	// mark taken mid-write skips the partial line.
	start := max(mark-1, 0)
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		t.Fatalf("seek audit log: %v", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read audit log: %v", err)
	}
	if mark > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}

	var events []AuditEvent
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // a line still being written
		}
		line := data[:i]
		data = data[i+1:]
		var l auditLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("parse audit line %q: %v", line, err)
		}
		if l.Stage != "ResponseComplete" && l.Stage != "Panic" {
			continue
		}
		if user != "" && l.User.Username != user {
			continue
		}
		ev := AuditEvent{
			Verb:       l.Verb,
			RequestURI: l.RequestURI,
			User:       l.User.Username,
			UserAgent:  l.UserAgent,
			Stage:      l.Stage,
			Time:       l.StageTimestamp,
		}
		if l.ResponseStatus != nil {
			ev.Code = l.ResponseStatus.Code
		}
		if r := l.ObjectRef; r != nil {
			ev.Resource, ev.Subresource, ev.Namespace, ev.Name = r.Resource, r.Subresource, r.Namespace, r.Name
		}
		events = append(events, ev)
	}
	return events
}
