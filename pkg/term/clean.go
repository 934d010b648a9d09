package term

import (
	"strings"
	"unicode/utf8"
)

// Clean returns s without what a terminal would act on instead of showing:
// C0 control characters other than newline and tab, DEL, C1 control
// characters (U+0080–U+009F), and escape sequences as a whole (CSI, OSC,
// DCS, SOS, PM, APC, and two- or three-byte escapes), in their 7-bit (ESC)
// and their UTF-8 C1 forms. What a reader would not see (bidi controls,
// zero-width and other format characters, tag characters; see Hidden) is
// shown as <U+XXXX> instead, a long run of it as one marker with its length,
// except where ordinary text needs it (emoji sequences, joiners between
// letters of scripts that use them). Other text, UTF-8 included, is kept as
// it is.
//
// Text from the cluster (messages, container log lines) and from agents
// (reports) is printed on the user's terminal; unfiltered, it could retitle
// the window, rewrite the screen or plant a hyperlink. An OSC, DCS, SOS, PM
// or APC string ends at BEL or ST; one left open ends with its line, so a
// stray introducer drops at most a line. A byte that is not UTF-8 is dropped
// when an 8-bit terminal would read it as a C1 control, and kept otherwise.
func Clean(s string) string {
	// Bytes that are not UTF-8 are kept, so dropping what stood between two
	// of them can join them into a character: clean again until nothing
	// changes (clean text is returned as it is, without a copy).
	for {
		out := clean(s)
		if out == s {
			return out
		}
		s = out
	}
}

func clean(s string) string {
	var b strings.Builder
	kept := 0 // s[kept:i] is clean and not yet copied to b
	for i := 0; i < len(s); {
		c := s[i]
		if (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		notUTF8 := r == utf8.RuneError && size == 1
		var end int     // s[i:end] is dropped
		var repl string // and replaced with this
		switch {
		case c == esc:
			end = escapeEnd(s, i+1)
		case r >= 0x80 && r <= 0x9f:
			end = c1End(s, i+size, r)
		case notUTF8 && c >= 0x80 && c <= 0x9f:
			end = i + 1
		case Hidden(r):
			if n := keptSequence(s, i, r, size, lastRune(&b, s[kept:i])); n > 0 {
				i += n // part of a visible sequence
				continue
			}
			end, repl = markHidden(s, i, r)
		case c >= 0x80:
			i += size // text, or a byte no terminal acts on
			continue
		default: // C0, DEL
			end = i + 1
		}
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[kept:i])
		b.WriteString(repl)
		kept, i = end, end
	}
	if kept == 0 {
		return s
	}
	b.WriteString(s[kept:])
	return b.String()
}

// lastRune is the last character Clean has kept so far: the end of pending
// (kept, not yet copied), else of what b holds; 0 at the start.
func lastRune(b *strings.Builder, pending string) rune {
	if pending == "" {
		pending = b.String()
	}
	if pending == "" {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(pending)
	return r
}

const (
	esc = 0x1b
	bel = 0x07
)

// escapeEnd is where the escape sequence whose ESC precedes s[i] ends.
func escapeEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return csiEnd(s, i+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC
		return stringEnd(s, i+1)
	}
	// ECMA-35/48: intermediate bytes, then a final byte (ESC ( B, ESC 7,
	// ESC c). Without a final byte only the ESC and intermediates go.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// c1End is where the C1 control r, followed by s[i:], ends: the C1 forms of
// CSI and of the string introducers take their sequence along.
func c1End(s string, i int, r rune) int {
	switch r {
	case 0x9b: // CSI
		return csiEnd(s, i)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return stringEnd(s, i)
	}
	return i
}

// csiEnd is where a control sequence whose introducer precedes s[i] ends:
// parameter and intermediate bytes, then the final byte. One that breaks
// off ends where it breaks.
func csiEnd(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// stringEnd is where a control string (OSC and the like) whose introducer
// precedes s[i] ends: after BEL or ST (ESC \ or U+009C), before another
// ESC, or, left open, before the end of its line.
func stringEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case bel:
			return i + 1
		case '\n':
			return i
		case esc:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case 0xc2:
			if i+1 < len(s) && s[i+1] == 0x9c {
				return i + 2
			}
		}
	}
	return i
}
