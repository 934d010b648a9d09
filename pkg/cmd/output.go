package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
)

// What a triage run writes: the report (or -o json) on stdout and nothing
// else, so `kubectl triage pod/x > report.md` gives a clean file; progress on
// stderr, drawn as one live line on a terminal (pkg/term).

// Output formats of the triage command (-o).
const (
	outputMarkdown = "markdown"
	outputJSON     = "json"
)

var outputFormats = []string{outputMarkdown, outputJSON}

// validateOutput checks -o.
func validateOutput(format string) error {
	if format == "" || slices.Contains(outputFormats, format) {
		return nil
	}
	return fmt.Errorf("unknown output format %q: use %s", format, strings.Join(outputFormats, " or "))
}

// progress returns the progress callback: a no-op with --quiet, otherwise
// stderr's reporter, made on first use. On a terminal that draws a live
// line, o.ErrOut is switched to write through the reporter, so warnings
// printed directly and LOG_LEVEL logs land above the line instead of in it.
// On a terminal, warnings and the incident's ID and workspace stay on
// screen (progress.Event.Keep); the other steps only pass through the live
// line.
func (o *TriageOptions) progress() progress.Func {
	if o.Quiet {
		return progress.Discard
	}
	if o.progressLine == nil {
		getEnv := o.getEnv
		if getEnv == nil {
			getEnv = os.Getenv
		}
		t := term.Detect(o.ErrOut, getEnv)
		o.progressLine = term.NewProgress(o.ErrOut, t, term.ProgressOptions{})
		if t.Redraw {
			o.ErrOut = o.progressLine.Writer()
		}
	}
	// Progress quotes the fault and the cluster: it is redacted like
	// everything else that reaches a terminal (the reporter cleans it).
	return func(ev progress.Event) {
		msg, _ := redact.Text(ev.String())
		o.progressLine.Line(msg, ev.Keep())
	}
}

// stopProgress clears the live line; anything printed after it (the report,
// an error) starts on a clean line.
func (o *TriageOptions) stopProgress() {
	if o.progressLine != nil {
		o.progressLine.Stop()
	}
}

// finish prints the outcome and maps it to the exit code. With -o json the
// document is printed whatever the outcome, so a script always has one to
// read once an incident exists; the exit code still tells the outcome.
func (o *TriageOptions) finish(res *triage.Result) error {
	o.stopProgress()
	inc := res.Incident
	code := res.ExitCode() // the engine maps the outcome (and an unrecorded one) to the code
	if o.Output == outputJSON {
		if err := writeTriageJSON(o.Out, res); err != nil {
			return err
		}
	}
	if res.RecordErr != nil {
		// The record on disk says something else (or nothing): the run is
		// not a success whatever the agent did, and the user must know
		// where its results are.
		if inc.Status == incident.Resolved && o.Output != outputJSON {
			fmt.Fprint(o.Out, term.Clean(res.Markdown))
		}
		where := "the workspace is " + inc.Workspace
		if inc.Report != nil {
			where = "the report is at " + inc.Report.Path
		}
		return &exitError{code: code, err: fmt.Errorf("incident %s ended %s, but %v; %s", inc.IncidentID, inc.Status, res.RecordErr, where)}
	}
	switch inc.Status {
	case incident.Resolved:
		if o.Output != outputJSON {
			// The report quotes log lines and an agent wrote it: none of
			// their escape sequences reach the terminal, or a file it is
			// piped to. The workspace keeps it cleaned the same way.
			fmt.Fprint(o.Out, term.Clean(res.Markdown))
		}
		o.progress()(progress.Stepf("Incident %s resolved: %s", inc.IncidentID, inc.Report.RootCause))
		return nil
	case incident.AgentFailed:
		return &exitError{code: code, err: fmt.Errorf("the %s agent produced no valid report (%s); see %s", inc.Agent.Name, inc.FailureReason, inc.Workspace)}
	}
	return &exitError{code: code, err: fmt.Errorf("incident %s failed: %s; workspace %s", inc.IncidentID, inc.FailureReason, inc.Workspace)}
}

// TriageOutput is `kubectl triage -o json`: the incident's outcome and the
// report, as one document.
type TriageOutput struct {
	IncidentID      string          `json:"incidentId"`
	Status          incident.Status `json:"status"`
	FailureReason   string          `json:"failureReason,omitempty"`
	Resource        fault.Resource  `json:"resource"`
	Cluster         string          `json:"cluster,omitempty"`
	Context         string          `json:"context,omitempty"`
	FaultType       string          `json:"faultType"`
	Severity        string          `json:"severity"`
	RootCause       string          `json:"rootCause,omitempty"`
	Confidence      float64         `json:"confidence,omitempty"`
	ConfidenceLevel string          `json:"confidenceLevel,omitempty"`
	Agent           string          `json:"agent"`
	Workspace       string          `json:"workspace"`
	// ReportPath is output/investigation.md in the workspace, when valid.
	ReportPath string `json:"reportPath,omitempty"`
	// Report is the markdown report itself, when valid.
	Report string `json:"report,omitempty"`
}

// newTriageOutput flattens a run's result, from the incident's Summary,
// cleaned (the values list, the watch lines and Slack show).
func newTriageOutput(res *triage.Result) TriageOutput {
	s := incident.Summarize(res.Incident).Clean()
	return TriageOutput{
		IncidentID:      s.IncidentID,
		Status:          s.Status,
		FailureReason:   s.FailureReason,
		Resource:        s.Resource,
		Cluster:         s.Cluster,
		Context:         s.Context,
		FaultType:       s.FaultType,
		Severity:        s.Severity,
		RootCause:       s.RootCause,
		Confidence:      s.Confidence,
		ConfidenceLevel: s.ConfidenceLevel,
		Agent:           s.Agent,
		Workspace:       s.Workspace,
		ReportPath:      s.ReportPath,
		Report:          res.Markdown,
	}
}

func writeTriageJSON(w io.Writer, res *triage.Result) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "    ") // as kubectl -o json
	enc.SetEscapeHTML(false)  // the report's <, > and & stay readable
	if err := enc.Encode(newTriageOutput(res)); err != nil {
		return fmt.Errorf("write the result as JSON: %w", err)
	}
	if _, err := w.Write(escapeHidden(escapeC1(buf.Bytes()))); err != nil {
		return fmt.Errorf("write the result as JSON: %w", err)
	}
	return nil
}

// escapeC1 rewrites the C1 control characters (U+0080–U+009F) in JSON text
// as \u escapes: encoding/json leaves them raw, some terminals act on them,
// and YAML refuses them. The document means the same: outside its strings
// JSON is ASCII, and in UTF-8 the byte 0xC2 only ever leads a character.
func escapeC1(data []byte) []byte {
	if bytes.IndexByte(data, 0xc2) < 0 {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	for {
		i := bytes.IndexByte(data, 0xc2)
		if i < 0 || i+1 == len(data) {
			break
		}
		if c := data[i+1]; c >= 0x80 && c <= 0x9f {
			out = fmt.Appendf(append(out, data[:i]...), `\u%04x`, c)
		} else {
			out = append(out, data[:i+2]...)
		}
		data = data[i+2:]
	}
	return append(out, data...)
}

// escapeHidden rewrites the characters a reader cannot see (term.Hidden:
// bidi controls, zero-width and tag characters) in JSON or YAML text as \u
// escapes: a terminal would show the rest of the line reordered, or hide
// words, so `-o json` of a hostile event could read as something else.
// They only occur inside strings: in JSON and in YAML's double-quoted
// scalars the escape means the same character. Joiners and variation
// selectors are left as they are: emoji and scripts need them, and they
// neither reorder nor hide a word.
func escapeHidden(data []byte) []byte {
	i := bytes.IndexFunc(data, func(r rune) bool { return term.Hidden(r) && !joinsOrSelects(r) })
	if i < 0 {
		return data
	}
	out := bytes.NewBuffer(make([]byte, 0, len(data)+16))
	out.Write(data[:i])
	for data = data[i:]; len(data) > 0; {
		r, size := utf8.DecodeRune(data)
		switch {
		case !term.Hidden(r) || joinsOrSelects(r):
			out.Write(data[:size])
		case r > 0xffff: // tag characters: a UTF-16 surrogate pair
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(out, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(out, `\u%04x`, r)
		}
		data = data[size:]
	}
	return out.Bytes()
}

func joinsOrSelects(r rune) bool {
	return r == 0x200c || r == 0x200d || unicode.Is(unicode.Variation_Selector, r)
}
