// Package term is kubectl triage's manners on a terminal: whether a stream
// is one, whether it may be coloured, and a progress line redrawn in place
// (see Progress). Everything degrades to plain text when the stream is a
// file or a pipe, so `kubectl triage pod/x > report.md` and CI logs stay
// clean.
package term

import (
	"io"
	"os"
	"strings"

	xterm "golang.org/x/term"
)

const (
	// EnvForceTTY, set to a true value (1, true, yes), makes every stream
	// count as a terminal: for terminals the check cannot see and for tests.
	// NO_COLOR and TERM=dumb still apply.
	EnvForceTTY = "KUBECTL_TRIAGE_FORCE_TTY"
	// EnvNoColor disables colour when set to anything but the empty string
	// (https://no-color.org).
	EnvNoColor = "NO_COLOR"

	defaultWidth = 80
)

// Terminal says what a stream can show.
type Terminal struct {
	// TTY is true when the stream is a terminal (or EnvForceTTY says so).
	TTY bool
	// Redraw is true when a line can be redrawn in place with \r and an
	// erase-line sequence: a TTY whose TERM is not "dumb".
	Redraw bool
	// Color is true when ANSI colours are welcome: Redraw, and NO_COLOR
	// unset or empty.
	Color bool

	file *os.File // for the width, when the stream is a real terminal
}

// Detect inspects w, usually os.Stderr or os.Stdout; anything but an
// *os.File on a terminal is plain text. getenv is os.Getenv outside tests.
func Detect(w io.Writer, getenv func(string) string) Terminal {
	var t Terminal
	if f, ok := w.(*os.File); ok && xterm.IsTerminal(int(f.Fd())) {
		t.TTY, t.file = true, f
	}
	if isTrue(getenv(EnvForceTTY)) {
		t.TTY = true
	}
	if !t.TTY || getenv("TERM") == "dumb" {
		return t
	}
	// A Windows console shows escape sequences literally unless asked to
	// interpret them.
	if t.file != nil && !enableVirtualTerminal(t.file) {
		return t
	}
	t.Redraw = true
	t.Color = getenv(EnvNoColor) == ""
	return t
}

func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Width is the terminal's width in columns, or 80 when it cannot be known.
func (t Terminal) Width() int {
	if t.file != nil {
		if w, _, err := xterm.GetSize(int(t.file.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return defaultWidth
}

// Style is an ANSI SGR attribute.
type Style string

const (
	Bold   Style = "1"
	Red    Style = "31"
	Green  Style = "32"
	Yellow Style = "33"
	Cyan   Style = "36"
)

// Paint wraps s in the styles when the terminal has colour, and returns it
// unchanged otherwise.
func (t Terminal) Paint(s string, styles ...Style) string {
	if !t.Color || len(styles) == 0 || s == "" {
		return s
	}
	codes := make([]string, len(styles))
	for i, st := range styles {
		codes[i] = string(st)
	}
	return "\x1b[" + strings.Join(codes, ";") + "m" + s + "\x1b[0m"
}

// Highlight colours a leading "error:" (red) or "warning:" (yellow) prefix
// of a message line, the way kubectl users read them.
func (t Terminal) Highlight(line string) string {
	if !t.Color {
		return line
	}
	for _, p := range []struct {
		prefix string
		style  Style
	}{{"error:", Red}, {"warning:", Yellow}} {
		if len(line) >= len(p.prefix) && strings.EqualFold(line[:len(p.prefix)], p.prefix) {
			return t.Paint(line[:len(p.prefix)], p.style, Bold) + line[len(p.prefix):]
		}
	}
	return line
}
