package term

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("a", 4<<20)
	for _, tc := range []struct {
		name, in, quote, abbrev string
	}{
		{"empty", "", `""`, ""},
		{"short, as %q", "pod/web\x1b[0m", `"pod/web\x1b[0m"`, "pod/web\x1b[0m"},
		{"exactly the limit", strings.Repeat("b", QuoteMax), `"` + strings.Repeat("b", QuoteMax) + `"`, strings.Repeat("b", QuoteMax)},
		{"one byte over", strings.Repeat("b", QuoteMax+1), `"` + strings.Repeat("b", QuoteMax) + `"…(65 bytes)`, strings.Repeat("b", QuoteMax) + "…(65 bytes)"},
		{"four MiB", long, `"` + long[:QuoteMax] + `"…(4194304 bytes)`, long[:QuoteMax] + "…(4194304 bytes)"},
		// é is two bytes: the prefix stops before the one it would split.
		{"never splits a character", strings.Repeat("a", QuoteMax-1) + "éé", `"` + strings.Repeat("a", QuoteMax-1) + `"…(67 bytes)`, strings.Repeat("a", QuoteMax-1) + "…(67 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quote(tc.in); got != tc.quote {
				t.Errorf("Quote = %.120q, want %.120q", got, tc.quote)
			}
			if got := Abbrev(tc.in); got != tc.abbrev {
				t.Errorf("Abbrev = %.120q, want %.120q", got, tc.abbrev)
			}
		})
	}
}
