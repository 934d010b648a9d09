package triage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
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
	// Read as every reader reads a workspace (no link, no pipe, bounded):
	// the agent has exited, but what it left there is its own.
	md, err := r.ws.Files().ReadFile(context.Background(), workspace.ReportFile)
	if err != nil {
		return nil, err
	}
	rep, err := report.Parse(string(md))
	if err != nil {
		return nil, err
	}
	if data := r.readJSONReport(); data != nil {
		data.Source = rep.Source // the agent's markdown stays the report
		// What the checks mark is in the markdown: its evidence, actions
		// and stance, at their lines.
		data.Evidence, data.Actions, data.OnBuiltin = rep.Evidence, rep.Actions, rep.OnBuiltin
		if len(data.RootCause.Evidence) == 0 {
			data.RootCause.Evidence = rep.RootCause.Evidence
		}
		rep = data
	}
	return rep, nil
}

// writeReport writes output/investigation.md (and, for a report that came
// as data, output/investigation.json) and returns the markdown. The report
// crosses redact.Report, as data and as markdown, before anything is
// written or returned: no credential it quotes, no escape sequence that
// `cat investigation.md` would run later and no hidden text stays in the
// file, on stdout, in -o json or in an MCP result.
func (r *runner) writeReport(rep *report.Report) (string, error) {
	md := redact.Report(rep)
	files := []atomicfile.File{{Path: r.ws.MustPath(workspace.ReportFile), Data: []byte(md), Perm: 0o600}}
	if rep.Source == "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return "", fmt.Errorf("encode report: %w", err)
		}
		files = append(files, atomicfile.File{Path: r.ws.MustPath(workspace.ReportJSONFile), Data: append(data, '\n'), Perm: 0o600})
	}
	if err := atomicfile.WriteFiles(files); err != nil {
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
	ref.RootCause = redact.Clean(rep.RootCause.Statement)
	if rep.Confidence > 0 {
		ref.ConfidenceLevel = string(report.LevelOf(rep.Confidence))
	}
	return ref
}

// readJSONReport reads output/investigation.json when an external agent
// wrote one; one that is refused (a link, a pipe, too large) is ignored,
// with a warning.
func (r *runner) readJSONReport() *report.Report {
	data, err := r.ws.Files().ReadFile(context.Background(), workspace.ReportJSONFile)
	if errors.Is(err, safefile.ErrRefused) {
		r.progress(progress.Warnf("the agent's %v", err))
	}
	if err != nil {
		return nil
	}
	var rep report.Report
	if json.Unmarshal(data, &rep) != nil || rep.RootCause.Statement == "" {
		return nil
	}
	return &rep
}

// sealOutput passes what the agent left in output/ (its report, in
// markdown and as data) through redact.Clean in place, whatever the
// outcome: an agent that quotes a credential or hidden text has it masked
// in the workspace before the report is read, printed, served or uploaded,
// and a failed or cancelled run leaves no raw attempt behind. The agent's
// processes are gone by then; a file that is not a regular one (a symlink
// the agent planted) is left for the readers, which do not follow it.
func (r *runner) sealOutput() {
	for _, f := range []struct {
		rel   string
		clean func([]byte) []byte
	}{
		{workspace.ReportFile, func(b []byte) []byte { return []byte(redact.Clean(string(b))) }},
		{workspace.ReportJSONFile, redact.CleanJSON},
	} {
		p := r.ws.MustPath(f.rel)
		data, err := r.ws.Files().ReadFile(context.Background(), f.rel)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, safefile.ErrRefused):
			continue // nothing there, or a link or pipe the readers will refuse too
		case err != nil:
			os.Remove(p)
			r.log.Error("read the agent's report to redact it; removed it", "file", f.rel, "error", err)
			continue
		}
		if clean := f.clean(data); !bytes.Equal(clean, data) {
			if err := atomicfile.Write(p, clean, 0o600); err != nil {
				// Fail closed: no report rather than an unredacted one.
				os.Remove(p)
				r.log.Error("redact the agent's report; removed it", "file", f.rel, "error", err)
			}
		}
	}
}
