package term

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/rangetable"
)

// Characters a reader cannot see. A terminal, a markdown viewer or Slack
// draws nothing for them, yet they are text: an assistant reading an MCP
// result or a report reads Unicode tag characters (U+E0020–U+E007E mirror
// ASCII) as words, a zero-width space makes "kube\u200bctl" look like
// kubectl, a bidi control reorders what follows. Clean shows each as
// <U+XXXX> where it stood, so a human sees that something was hidden and
// an assistant reads a marker instead of the hidden words; the tag
// characters are not decoded, since the words they spell are the payload.
//
// The set is Unicode's Default_Ignorable_Code_Point (format characters,
// variation selectors and the other ignorables, Hangul fillers included)
// with every format character kept in, minus the prepended concatenation
// marks (visible signs such as U+0600), plus the line and paragraph
// separators (U+2028, U+2029), which break lines some readers never show.
var hiddenTable = rangetable.Merge(unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point, unicode.Zl, unicode.Zp)

// Hidden reports whether r is a character a reader cannot see, whatever it
// stands next to (Clean keeps some in the sequences that need them).
func Hidden(r rune) bool {
	return r >= 0xad && unicode.Is(hiddenTable, r) && !unicode.Is(unicode.Prepended_Concatenation_Mark, r)
}

// collapseRun is how many hidden characters in a row are shown one marker
// each; a longer run (tag characters spelling a sentence, variation
// selectors smuggling bytes) is one marker with its length, so hiding text
// cannot make the output much longer than the input.
const collapseRun = 3

// markHidden is where the run of hidden characters starting with r at
// s[i:] ends, and the markers that show it.
func markHidden(s string, i int, r rune) (end int, markers string) {
	first, last, n := r, r, 0
	end = i
	for end < len(s) {
		c, size := utf8.DecodeRuneInString(s[end:])
		if !Hidden(c) {
			break
		}
		last, n, end = c, n+1, end+size
	}
	if n > collapseRun {
		return end, fmt.Sprintf("<%d hidden characters, U+%04X...U+%04X>", n, first, last)
	}
	var b strings.Builder
	for _, c := range s[i:end] {
		fmt.Fprintf(&b, "<U+%04X>", c)
	}
	return end, b.String()
}

// keptSequence is the length of the sequence starting with the hidden
// character r at s[i:] that ordinary text needs, or 0. The decisions look
// at what was kept before, not at what was dropped, so Clean is idempotent.
//
//   - ZWJ and ZWNJ (U+200D, U+200C) between two visible non-ASCII
//     characters: emoji ZWJ sequences (👩‍💻), Indic conjuncts, Persian
//     words. Between ASCII letters they only disguise a word.
//   - One variation selector after a visible base: emoji presentation
//     (❤️, 1️⃣), CJK ideographic variants, Mongolian forms. A second one in a
//     row selects nothing and is how bytes are smuggled after an emoji.
//   - The tag characters of an emoji flag after U+1F3F4 (🏴 + "gbsct" +
//     CANCEL TAG): lower-case letters and digits, a few, then U+E007F.
func keptSequence(s string, i int, r rune, size int, prev rune) int {
	switch {
	case r == 0x200c || r == 0x200d:
		next, _ := utf8.DecodeRuneInString(s[i+size:])
		if (visibleNonASCII(prev) || isVariationSelector(prev)) && visibleNonASCII(next) {
			return size
		}
	case isVariationSelector(r):
		if visibleNonASCII(prev) || prev >= '0' && prev <= '9' || prev == '#' || prev == '*' {
			return size
		}
	case prev == 0x1f3f4 && r >= 0xe0020 && r <= 0xe007e:
		const maxFlagTags = 7 // ISO 3166-2 subdivisions: "gbsct", "usca"
		j, n := i, 0
		for j < len(s) && n <= maxFlagTags {
			c, sz := utf8.DecodeRuneInString(s[j:])
			switch {
			case c == 0xe007f && n > 0:
				return j + sz - i
			case c >= 0xe0030 && c <= 0xe0039, c >= 0xe0061 && c <= 0xe007a:
				j, n = j+sz, n+1
			default:
				return 0
			}
		}
	}
	return 0
}

func isVariationSelector(r rune) bool { return unicode.Is(unicode.Variation_Selector, r) }

// visibleNonASCII reports a character past ASCII that a reader sees: not
// hidden, not a control, valid UTF-8.
func visibleNonASCII(r rune) bool {
	return r >= 0xa0 && r != utf8.RuneError && !Hidden(r)
}
