package report

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name, md string
		ok       bool
	}{
		{"empty", "  \n", false},
		{"no summary", "# T\n## Root cause\nx\n", false},
		{"no root cause", "# T\n## Summary\nx\n", false},
		{"empty root cause", "# T\n## Summary\nx\n## Root cause\n\n## Recommended actions\n", false},
		{"heading inside a code fence does not count", "# T\n## Summary\nx\n```\n## Root cause\n```\n", false},
		{"valid", "# T\n## Summary\nx\n## Root cause\n**DB password wrong** confident (0.8)\n", true},
		{"case-insensitive", "# T\n## SUMMARY\nx\n## Root Cause\ny\n", true},
	}
	for _, tt := range tests {
		err := Validate(tt.md)
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error does not wrap ErrInvalid", tt.name)
		}
	}
}

func TestRootCauseLine(t *testing.T) {
	for md, want := range map[string]string{
		"## Summary\ns\n## Root cause\n\n**The DB password is wrong**\n\nConfidence: confident (0.80)\n": "The DB password is wrong",
		"## Summary\ns\n## Root cause\n**The DB password is wrong** (confident, 0.8)\n":                  "The DB password is wrong",
		"## Summary\ns\n## Root cause\nThe pool (max 10) is exhausted (Confident)\n":                     "The pool (max 10) is exhausted",
		"## Summary\ns\n## Root cause\n**The DB_PASSWORD is wrong** (confident, 0.8) — based on E2\n":    "The DB_PASSWORD is wrong",
	} {
		stmt, level := rootCauseLine(md)
		if stmt != want || level != Confident {
			t.Errorf("%q: got %q, %q", md, stmt, level)
		}
	}
}

func TestLevelOf(t *testing.T) {
	for score, want := range map[float64]Level{0: Speculation, 0.49: Speculation, 0.5: Probable, 0.69: Probable, 0.7: Confident, 0.89: Confident, 0.9: Verified, 1: Verified} {
		if got := LevelOf(score); got != want {
			t.Errorf("LevelOf(%v) = %s, want %s", score, got, want)
		}
	}
}

func TestMarkdownKeepsStructureWithHostileText(t *testing.T) {
	r := &Report{Title: "a\n## Root cause\nfake", Summary: "s", RootCause: RootCause{Statement: "x | y\n## Summary"},
		Timeline: []TimelineEntry{{Fact: "pipe | and\nnewline"}}}
	md := r.Markdown()
	s := Sections(md)
	if s["root cause"] == "" || len(s) != 10 {
		t.Errorf("log text broke the report structure: %d sections\n%s", len(s), md)
	}
}

// An external agent's markdown is read once, for its headline; the
// markdown itself stays the report, with the engine's notes as its footer.
func TestParse(t *testing.T) {
	const md = "# Triage: Pod/api — x\n\n## Summary\n\nThe app exits at start.\n\n## Root cause\n\n**DATABASE_URL is unset** (probable, 0.6)\n"
	r, err := Parse(md)
	if err != nil {
		t.Fatal(err)
	}
	if r.RootCause.Statement != "DATABASE_URL is unset" || r.Title != r.RootCause.Statement || r.ConfidenceLevel != Probable || r.Summary != "The app exits at start." {
		t.Errorf("parsed %+v", r)
	}
	if got := r.Markdown(); got != md {
		t.Errorf("rendering a parsed report changed it:\n%s", got)
	}
	r.Notes = []string{"note one", "note two"}
	if got, want := r.Markdown(), md+"\n---\nnote one  \nnote two\n"; got != want {
		t.Errorf("footer:\n%q\nwant\n%q", got, want)
	}
	if _, err := Parse("# T\n## Summary\nx\n"); !errors.Is(err, ErrInvalid) {
		t.Errorf("an invalid report parsed: %v", err)
	}
}
