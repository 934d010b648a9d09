package mcpserve

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The output cap (Options.MaxOutput) bounds a result's structured content
// as it bounds its text: the JSON of each is at most the cap. What does not
// fit is cut, and the result says so ("truncated"): free text first (each
// field to a share of the cap), then the lists, from their end.

// jsonLen is how many bytes v takes as JSON, as the SDK encodes it.
func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// clip cuts s to at most n bytes, on a character boundary, marking the cut.
func clip(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	const mark = "…"
	n -= len(mark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n < 0 {
		n = 0
	}
	return s[:n] + mark, true
}

// clipAll clips every string behind ps to n bytes; it reports whether it cut
// any.
func clipAll(n int, ps ...*string) bool {
	cut := false
	for _, p := range ps {
		var c bool
		*p, c = clip(*p, n)
		cut = cut || c
	}
	return cut
}

// capList drops items from the end of *items until size() is at most max,
// and reports whether it dropped any. The first cut is computed from the
// items' sizes, so a list of 60,000 is not marshalled 60,000 times.
func capList[E any](items *[]E, max int, size func() int) bool {
	if size() <= max || len(*items) == 0 {
		return false
	}
	all := *items
	*items = all[:0]
	// An emptied list may be omitted (omitempty): leave room for its key.
	budget := max - size() - 32
	used, keep := 2, 0
	for _, it := range all {
		n := jsonLen(it) + 1
		if used+n > budget {
			break
		}
		used += n
		keep++
	}
	*items = all[:keep]
	for size() > max && len(*items) > 0 {
		*items = (*items)[:len(*items)-1]
	}
	return true
}

// capString cuts *p until size() is at most max, marking the cut as
// capText does; it reports whether it cut.
func capString(p *string, max int, size func() int) bool {
	cut := false
	for i := 0; size() > max && *p != "" && i < 8; i++ {
		over := size() - max
		keep := len(*p) - over - 96 // the truncation notice
		if keep <= 0 {
			*p = ""
			return true
		}
		*p, _ = capText(*p, keep)
		cut = true
	}
	if size() > max && *p != "" {
		*p, cut = "", true
	}
	return cut
}

// fieldShare is the most one free-text field of a structured result keeps
// once the whole does not fit: a share of the cap, so that one runaway
// field cannot crowd out the others.
func fieldShare(max int) int { return max / 8 }

// fitTriage makes a triage's (or show_incident's) structured content fit
// max: size measures the whole result, out being part of it. The report
// copy goes first (the text content carries the report too), then the
// free text, then the proposed fixes and the evidence.
func fitTriage(out *TriageOutput, max int, size func() int) {
	if size() <= max {
		return
	}
	out.Truncated = true
	if capString(&out.Report, max, size) && size() <= max {
		return
	}
	share := fieldShare(max)
	clipAll(share, &out.RootCause, &out.Culprit, &out.FailureReason, &out.Category, &out.Workspace)
	for i := range out.Evidence {
		e := &out.Evidence[i]
		clipAll(share/4, &e.ID, &e.Fact, &e.Source, &e.Command)
	}
	for i := range out.ProposedFixes {
		f := &out.ProposedFixes[i]
		clipAll(share/4, &f.Kind, &f.Description, &f.Risk)
		for j := range f.Commands {
			clipAll(share/4, &f.Commands[j])
		}
	}
	capList(&out.ProposedFixes, max, size)
	capList(&out.Evidence, max, size)
}

// fitList makes list_incidents' structured content fit max.
func fitList(out *ListOutput, max int) {
	size := func() int { return jsonLen(out) }
	if size() <= max {
		return
	}
	out.Truncated = true
	share := fieldShare(max) / 4
	for i := range out.Incidents {
		in := &out.Incidents[i]
		clipAll(share, &in.RootCause, &in.FailureReason, &in.Cluster, &in.Resource.Name)
	}
	capList(&out.Incidents, max, size)
}

// fitNamespace makes triage_namespace's structured content fit max.
func fitNamespace(out *NamespaceOutput, max int) {
	size := func() int { return jsonLen(out) }
	if size() <= max {
		return
	}
	out.OutputTruncated = true
	share := fieldShare(max) / 4
	for i := range out.Failing {
		f := &out.Failing[i]
		clipAll(share, &f.Cause, &f.Culprit, &f.Error, &f.Resource.Name, &f.Target)
	}
	for i := range out.Warnings {
		clipAll(share, &out.Warnings[i])
	}
	capList(&out.Warnings, max, size)
	capList(&out.Failing, max, size)
}

// fitEvidence makes get_evidence's structured content fit max: a listing
// keeps the first files (in path order) and says how many there are.
func fitEvidence(out *EvidenceOutput, max int) {
	size := func() int { return jsonLen(out) }
	if size() <= max {
		return
	}
	out.Truncated = true
	out.FilesTotal = len(out.Files)
	clipAll(fieldShare(max), &out.File)
	capList(&out.Files, max, size)
}

// oversized reports whether a result still exceeds the cap after its tool
// fitted it: a programming error, which the middleware answers with an
// error rather than an answer over the cap.
func oversized(structured any, max int) bool {
	if structured == nil {
		return false
	}
	if raw, ok := structured.(json.RawMessage); ok {
		return len(strings.TrimSpace(string(raw))) > max
	}
	return jsonLen(structured) > max
}
