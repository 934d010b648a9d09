package redact

import (
	"bytes"
	"encoding/json"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// Clean is text as kubectl-triage prints, stores, sends or serves it when
// it came from the cluster, an agent or a log (a report, a summary line, a
// root cause): credentials masked (Text) and nothing left that a terminal
// would act on or a reader could not see (term.Clean). It is the one pass
// every report and summary crosses, whoever wrote it; idempotent, so a
// reader may apply it again to what was already cleaned when written.
func Clean(s string) string {
	out, _ := Text(term.Clean(s))
	return out
}

// CleanJSON is Clean for a JSON document (an agent's investigation.json):
// every string goes through Clean, and one under a sensitive key is
// masked as Object masks it. Escapes are decoded first, so \u202e or a
// credential spelt with escapes does not pass as text. A document that
// changes is re-indented; one that does not parse is cleaned as text.
func CleanJSON(data []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return []byte(Clean(string(data)))
	}
	w := walker{clean: true}
	if m, ok := v.(map[string]any); ok {
		w.object(m, "")
	} else {
		v = w.value("", v)
	}
	if w.n == 0 && w.cleaned == 0 {
		return data
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return []byte(Clean(string(data)))
	}
	return buf.Bytes()
}

// Report is Clean for a report: every text of it is cleaned in place
// (report.MapText), so the report as data (investigation.json, -o json,
// MCP results) says what its markdown says, and the markdown is returned
// cleaned whole as well, since a credential can straddle two fields. The
// engine writes this markdown; replay renders with it to compare.
func Report(rep *report.Report) string {
	rep.MapText(Clean)
	return Clean(rep.Markdown())
}
