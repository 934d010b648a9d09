package term

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// QuoteMax is how many bytes of an argument a message quotes.
const QuoteMax = 64

// Quote is s for an error message, as %q prints it; an argument longer
// than QuoteMax bytes is quoted by its first QuoteMax bytes (never split
// within a character) and its length, "\"abc…\"…(4194304 bytes)", so a
// hostile or mistaken megabyte of input is not echoed back whole.
func Quote(s string) string {
	head, cut := prefix(s)
	if !cut {
		return strconv.Quote(s)
	}
	return strconv.Quote(head) + fmt.Sprintf("…(%d bytes)", len(s))
}

// Abbrev is Quote without the quotes: for a message that shows s as it is.
func Abbrev(s string) string {
	head, cut := prefix(s)
	if !cut {
		return s
	}
	return head + fmt.Sprintf("…(%d bytes)", len(s))
}

func prefix(s string) (string, bool) {
	if len(s) <= QuoteMax {
		return s, false
	}
	n := QuoteMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
