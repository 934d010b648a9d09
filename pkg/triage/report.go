package triage

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// reportOf is the run's report as data. The builtin agent returns it. An
// external agent writes markdown to output/investigation.md (its runner
// made sure the file holds its best attempt): this is the one place that
// markdown is read back, parsed once by report.Parse, with the agent's own
// investigation.json, when it wrote a valid one, for the headline fields.
func (r *runner) reportOf(out *agent.Outcome) (*report.Report, error) {
	if out.Report != nil {
		if err := out.Report.Check(); err != nil {
			return nil, err
		}
		return out.Report, nil
	}
	md, err := os.ReadFile(r.ws.MustPath(workspace.ReportFile))
	if err != nil {
		return nil, err
	}
	rep, err := report.Parse(string(md))
	if err != nil {
		return nil, err
	}
	if data := readJSONReport(r.ws); data != nil {
		data.Source = rep.Source // the agent's markdown stays the report
		rep = data
	}
	return rep, nil
}

// writeReport writes output/investigation.md (and, for a report that came
// as data, output/investigation.json) and returns the markdown. The
// markdown crosses the same passes as everything else: no credential it
// quotes, and no escape sequence that `cat investigation.md` would run
// later, stays in the file.
func (r *runner) writeReport(rep *report.Report) (string, error) {
	md, _ := redact.Text(term.Clean(rep.Markdown()))
	if rep.Source == "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return "", fmt.Errorf("encode report: %w", err)
		}
		if err := atomicfile.Write(r.ws.MustPath(workspace.ReportJSONFile), append(data, '\n'), 0o600); err != nil {
			return "", err
		}
	}
	if err := atomicfile.Write(r.ws.MustPath(workspace.ReportFile), []byte(md), 0o600); err != nil {
		return "", err
	}
	return md, nil
}

// reportRef is the report's headline as incident.json carries it. The
// confidence band follows the score whenever there is one (DESIGN.md §7),
// so every rendering of the incident (list, watch lines, Slack, -o json)
// shows the same band.
func reportRef(path string, rep *report.Report) *incident.ReportRef {
	ref := &incident.ReportRef{Path: path, Confidence: rep.Confidence, ConfidenceLevel: string(rep.ConfidenceLevel)}
	ref.RootCause, _ = redact.Text(term.Clean(rep.RootCause.Statement))
	if rep.Confidence > 0 {
		ref.ConfidenceLevel = string(report.LevelOf(rep.Confidence))
	}
	return ref
}

// readJSONReport reads output/investigation.json when an external agent
// wrote one.
func readJSONReport(ws *workspace.Workspace) *report.Report {
	data, err := os.ReadFile(ws.MustPath(workspace.ReportJSONFile))
	if err != nil {
		return nil
	}
	var rep report.Report
	if json.Unmarshal(data, &rep) != nil || rep.RootCause.Statement == "" {
		return nil
	}
	return &rep
}
