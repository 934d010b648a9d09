package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

// Capture is a saved workspace read back without a cluster: its evidence
// as a bundle, the object it is about and the moment it was captured, and
// the records that said so. Any of incident.json, context/event.json and
// the saved report may be missing (a workspace captured by hand, shared in
// part, or a corpus directory): only context/ must be there.
type Capture struct {
	Dir        string
	Bundle     *bundle.Bundle
	Target     fault.Resource
	CapturedAt time.Time

	Incident *incident.Incident // incident.json
	Event    *fault.Event       // context/event.json
	Report   *report.Report     // output/investigation.json, when it decodes
	Markdown []byte             // output/investigation.md
}

// OpenOptions are what a corpus records beside the evidence instead of a
// workspace's own records (test/scenarios' scenario.json): when set, they
// are the target and the capture time.
type OpenOptions struct {
	Target     fault.Resource
	CapturedAt time.Time
}

// Open reads the saved workspace dir through Files: a link, a special or
// an oversized file anywhere it reads is refused, the error naming it.
func Open(ctx context.Context, dir string, opts OpenOptions) (*Capture, error) {
	files := Files(dir)
	c := &Capture{Dir: dir}
	incData, incErr := files.ReadFile(ctx, IncidentFile)
	ctxInfo, ctxErr := files.Stat(ctx, ContextDir)
	for _, err := range []error{incErr, ctxErr} {
		if errors.Is(err, safefile.ErrRefused) {
			return nil, err // it names the file
		}
	}
	switch {
	case incErr != nil && ctxErr != nil:
		return nil, fmt.Errorf("%s is not an incident workspace: it has neither %s nor %s/", dir, IncidentFile, ContextDir)
	case ctxErr != nil || !ctxInfo.IsDir():
		return nil, fmt.Errorf("workspace %s has no %s/ to replay: its evidence was never collected or was removed", dir, ContextDir)
	}
	if incErr == nil {
		if err := json.Unmarshal(incData, &c.Incident); err != nil {
			return nil, fmt.Errorf("workspace %s: corrupt %s: %w", dir, IncidentFile, err)
		}
	}
	data, err := optional(ctx, files, EventFile)
	if err != nil {
		return nil, err
	}
	if data != nil {
		if err := json.Unmarshal(data, &c.Event); err != nil {
			return nil, fmt.Errorf("workspace %s: corrupt %s: %w", dir, EventFile, err)
		}
	}
	if data, err = optional(ctx, files, ReportJSONFile); err != nil {
		return nil, err
	}
	if data != nil {
		// An agent wrote it: unreadable only means there is nothing to
		// borrow the time from.
		_ = json.Unmarshal(data, &c.Report)
	}
	if c.Markdown, err = optional(ctx, files, ReportFile); err != nil {
		return nil, err
	}

	c.Target, c.CapturedAt = opts.Target, opts.CapturedAt
	if c.Target.Kind == "" {
		if c.Target, err = c.target(); err != nil {
			return nil, err
		}
	}
	if c.CapturedAt.IsZero() {
		if c.CapturedAt, err = c.capturedAt(); err != nil {
			return nil, err
		}
	}
	c.Bundle, err = bundle.Load(files.FS(ctx, ContextDir), c.Target)
	switch {
	case errors.Is(err, safefile.ErrRefused):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("workspace %s: load %s/: %w", dir, ContextDir, err)
	}
	return c, nil
}

// optional reads a record that may be missing or unreadable (nil, nil),
// but not refused: a link, a pipe or an oversized file is an error.
func optional(ctx context.Context, files safefile.Dir, name string) ([]byte, error) {
	data, err := files.ReadFile(ctx, name)
	switch {
	case errors.Is(err, safefile.ErrRefused):
		return nil, err
	case err != nil:
		return nil, nil
	}
	return data, nil
}

// target is the triaged resource, from the first record that names it.
func (c *Capture) target() (fault.Resource, error) {
	switch {
	case c.Incident != nil && c.Incident.Resource.Kind != "":
		return c.Incident.Resource, nil
	case c.Event != nil && c.Event.Resource != nil && c.Event.Resource.Kind != "":
		return *c.Event.Resource, nil
	case c.Report != nil && c.Report.Resource.Kind != "":
		r := c.Report.Resource
		return fault.Resource{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, Namespace: r.Namespace}, nil
	}
	return fault.Resource{}, fmt.Errorf("workspace %s: none of %s, %s or %s names the triaged resource", c.Dir, IncidentFile, EventFile, ReportJSONFile)
}

// BuiltinReport is the saved report when the builtin investigator wrote it.
func (c *Capture) BuiltinReport() *report.Report {
	if c.Report != nil && c.Report.Agent == report.BuiltinAgent && !c.Report.Time.IsZero() {
		return c.Report
	}
	return nil
}

// capturedAt is the moment the investigation is replayed as of. The
// builtin report records the exact instant it read the fresh evidence;
// otherwise incident.json's startedAt is when collection had finished and
// the agent began; then the incident's creation, then the fault's time.
// (cluster-info.json records no time.)
func (c *Capture) capturedAt() (time.Time, error) {
	if r := c.BuiltinReport(); r != nil {
		return r.Time, nil
	}
	if c.Incident != nil {
		if c.Incident.StartedAt != nil && !c.Incident.StartedAt.IsZero() {
			return *c.Incident.StartedAt, nil
		}
		if !c.Incident.CreatedAt.IsZero() {
			return c.Incident.CreatedAt, nil
		}
	}
	if c.Report != nil && !c.Report.Time.IsZero() {
		return c.Report.Time, nil
	}
	if c.Event != nil && !c.Event.Timestamp.IsZero() {
		return c.Event.Timestamp, nil
	}
	return time.Time{}, fmt.Errorf("workspace %s: no record says when its evidence was captured (%s, %s and %s have no time)", c.Dir, IncidentFile, ReportJSONFile, EventFile)
}

// IncidentID and Severity are the incident's, as the saved records give
// them (a replay reports as the incident it replays).
func (c *Capture) IncidentID() string {
	switch {
	case c.Incident != nil:
		return c.Incident.IncidentID
	case c.Report != nil:
		return c.Report.IncidentID
	}
	return ""
}

func (c *Capture) Severity() string {
	var s string
	switch {
	case c.Incident != nil:
		s = c.Incident.Severity
	case c.Report != nil:
		s = c.Report.Severity
	}
	if s == "" && c.Event != nil {
		s = c.Event.Severity
	}
	return s
}
