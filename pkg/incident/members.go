package incident

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// Member is a fault grouped into an incident instead of being triaged on
// its own: it shares the incident's cause (Cause, e.g. "Node//worker-3")
// and arrived within watch's --group-window.
type Member struct {
	Resource  fault.Resource `json:"resource"`
	FaultType string         `json:"faultType"`
	Severity  string         `json:"severity,omitempty"`
	EventID   string         `json:"eventId,omitempty"`
	Timestamp time.Time      `json:"timestamp,omitzero"`
	Cause     string         `json:"cause,omitempty"`
}

// membersMarker starts the report's section on grouped faults, so that a
// later update replaces it rather than adding another.
const membersMarker = "<!-- kubectl-triage: grouped faults -->"

// maxListedMembers bounds the report's list; incident.json has them all.
const maxListedMembers = 50

// AddMembers records members in the incident whose workspace is ws (its
// incident.json), and lists them in its report (when it has one) in a
// section of their own. Members already recorded (same event) are not
// added twice. The record is rewritten atomically.
func AddMembers(ws safefile.Dir, members []Member) (*Incident, error) {
	path := filepath.Join(ws.Where(), FileName)
	inc, err := Read(context.Background(), ws)
	if err != nil {
		return nil, fmt.Errorf("record grouped faults: %w", err)
	}
	seen := map[string]bool{}
	for _, m := range inc.Members {
		seen[m.EventID] = true
	}
	added := 0
	for _, m := range members {
		if m.EventID != "" && seen[m.EventID] {
			continue
		}
		seen[m.EventID] = true
		// Like the rest of the record, what came from the cluster is
		// stored redacted.
		m.Resource.Name, _ = redact.Text(m.Resource.Name)
		m.FaultType, _ = redact.Text(m.FaultType)
		inc.Members = append(inc.Members, m)
		added++
	}
	if added == 0 {
		return inc, nil
	}
	if err := Save(path, inc); err != nil {
		return nil, fmt.Errorf("record grouped faults: %w", err)
	}
	if inc.Report != nil && inc.Report.Path != "" {
		if err := writeMembersSection(ws, inc.Report.Path, inc.Members); err != nil {
			return inc, fmt.Errorf("list grouped faults in the report: %w", err)
		}
	}
	return inc, nil
}

// writeMembersSection replaces the report's grouped-faults section (or
// appends one): a line saying how many faults the incident stands for,
// then one line per member.
func writeMembersSection(ws safefile.Dir, report string, members []Member) error {
	rel, err := filepath.Rel(ws.Where(), report)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("the report %s is not in the workspace %s", report, ws.Where())
	}
	data, err := ws.ReadFile(context.Background(), filepath.ToSlash(rel))
	if err != nil {
		return err
	}
	if i := bytes.Index(data, []byte(membersMarker)); i >= 0 {
		data = data[:i]
	}
	data = append(bytes.TrimRight(data, "\n"), "\n\n"...)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## Grouped faults\n\n", membersMarker)
	fmt.Fprintf(&b, "This incident also stands for %d other fault(s) that share its cause and were not triaged on their own:\n\n", len(members))
	for i, m := range members {
		if i == maxListedMembers {
			fmt.Fprintf(&b, "- … and %d more (all of them are in incident.json, `members`)\n", len(members)-i)
			break
		}
		what := m.Resource.Kind + "/" + m.Resource.Name
		if m.Resource.Namespace != "" {
			what = m.Resource.Namespace + "/" + what
		}
		line := fmt.Sprintf("%s %s (%s)", what, m.FaultType, m.Severity)
		if m.Cause != "" {
			line += ", via " + m.Cause
		}
		fmt.Fprintf(&b, "- %s\n", term.Clean(line))
	}
	return atomicfile.Write(report, append(data, b.String()...), 0o600)
}
