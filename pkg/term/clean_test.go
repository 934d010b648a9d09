package term

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"plain text", "Back-off restarting failed container", "Back-off restarting failed container"},
		{"empty", "", ""},
		{"newlines and tabs kept", "a\tb\nc\n\n", "a\tb\nc\n\n"},
		{"UTF-8 kept", "naïve — ü ✓ 日本語 …", "naïve — ü ✓ 日本語 …"},
		{"emoji kept", "boom 💥 👩‍💻 🇩🇪", "boom 💥 👩‍💻 🇩🇪"},
		{"bidi override dropped", "run evil\u202egnp.sh", "run evilgnp.sh"},
		{"bidi isolates dropped", "a\u2066b\u2069c\u202ad\u202c", "abcd"},
		{"Arabic and Hebrew kept", "مرحبا שלום", "مرحبا שלום"},
		{"U+FFFD kept", "bad \uFFFD byte", "bad \uFFFD byte"},
		{"SGR colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"CSI with parameters", "a\x1b[38;5;196;1mb\x1b[2J\x1b[1;1Hc", "abc"},
		{"CSI private parameters", "\x1b[?1049hscreen\x1b[?25l", "screen"},
		{"CSI with an intermediate byte", "x\x1b[1 qy", "xy"},
		{"CSI broken off by a newline", "a\x1b[31\nb", "a\nb"},
		{"CSI at the end", "a\x1b[", "a"},
		{"OSC ended by BEL", "\x1b]0;pwned\x07title", "title"},
		{"OSC ended by ST", "\x1b]0;pwned\x1b\\title", "title"},
		{"OSC ended by C1 ST", "\x1b]0;pwned\u009ctitle", "title"},
		{"OSC 8 hyperlink keeps its text", "see \x1b]8;;https://evil.example/\x07docs\x1b]8;;\x07.", "see docs."},
		{"OSC 52 clipboard", "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07ok", "ok"},
		{"OSC left open ends with its line", "a\x1b]0;pwned\nnext line", "a\nnext line"},
		{"OSC left open at the end", "a\x1b]0;pwned", "a"},
		{"OSC cut by another escape", "\x1b]0;x\x1b[31mred", "red"},
		{"DCS", "\x1bP1$r0m\x1b\\after", "after"},
		{"APC", "\x1b_payload\x1b\\after", "after"},
		{"lone ESC at the end", "text\x1b", "text"},
		{"lone ESC before a newline", "a\x1b\nb", "a\nb"},
		{"lone ESC before UTF-8", "a\x1bü", "aü"},
		{"ESC ESC", "a\x1b\x1b[0mb", "ab"},
		{"two-byte escape", "\x1b7saved\x1b8\x1bc", "saved"},
		{"charset designation", "\x1b(Bascii\x1b)0", "ascii"},
		{"C0 controls", "a\x00b\x07c\x08d\re\x0bf\x0cg\x7fh", "abcdefgh"},
		{"CRLF", "line\r\nline\r\n", "line\nline\n"},
		{"C1 as UTF-8", "a\u0085b\u0090\u009cc\u0080d", "abcd"},
		{"C1 CSI as UTF-8", "a\u009b31mred\u009b0m", "ared"},
		{"C1 OSC as UTF-8", "\u009d0;pwned\u0007title", "title"},
		{"C1 OSC ended by C1 ST", "\u009d0;pwned\u009ctitle", "title"},
		{"C1 as raw bytes", "a\x9b31mb\x85c", "a31mbc"},
		{"other bytes that are not UTF-8 kept", "caf\xe9 \xff", "caf\xe9 \xff"},
		{"U+00A0 and later kept", "a\u00a0b\u00ffc", "a\u00a0b\u00ffc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Clean(tt.in)
			if got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Clean(got); again != got {
				t.Errorf("Clean is not idempotent: Clean(%q) = %q", got, again)
			}
			if i := strings.IndexFunc(got, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }); i >= 0 {
				t.Errorf("Clean(%q) = %q keeps a control character at %d", tt.in, got, i)
			}
		})
	}
}

// Clean hands clean text back as it is, without copying it.
func TestCleanDoesNotCopyCleanText(t *testing.T) {
	in := strings.Repeat("# Report\n\n| a | b |\tAll fine 👍\n", 100)
	if got := Clean(in); got != in {
		t.Errorf("Clean changed clean text: %q", got)
	}
	if allocs := testing.AllocsPerRun(10, func() { _ = Clean(in) }); allocs != 0 {
		t.Errorf("Clean of clean text allocates %v times", allocs)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"\x1b]0;x\x07", "\x1b[31m", "\u009b1m", "a\x1bb", "\xc2", "\x1b]", "é\r\n", "\xc2\x01\x9b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Clean(s)
		for i, r := range got {
			switch {
			case r == utf8.RuneError && got[i] >= 0x80 && got[i] <= 0x9f:
				t.Errorf("Clean(%q) = %q keeps byte %#x, a C1 control on an 8-bit terminal", s, got, got[i])
			case unicode.IsControl(r) && r != '\n' && r != '\t':
				t.Errorf("Clean(%q) = %q keeps control character %U", s, got, r)
			}
		}
		if again := Clean(got); again != got {
			t.Errorf("Clean is not idempotent: Clean(%q) = %q, Clean of that = %q", s, got, again)
		}
	})
}
