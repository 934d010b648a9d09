package applog

import (
	"regexp"
	"slices"
	"strings"
)

// Two signals of two sides that do not agree, whatever the program: a line
// that names versions and says they do not go together (a database
// written by another engine version, an extension outside the range the
// application supports), and a server's refusal of a request's shape (an
// HTTP 400 naming a key or field it does not know: the client speaks
// another version of the server's API). Each program words its own check,
// so the wording is matched by its parts: a compatibility phrase and the
// versions it is about.
const (
	SigVersion     Signal = "VersionMismatch" // two versions named as incompatible
	SigAPIMismatch Signal = "APIMismatch"     // a server rejects a key or field of the request (HTTP 400)
)

// versionPhraseRe is what a compatibility check says of the versions it
// compares.
var versionPhraseRe = regexp.MustCompile(`(?i)\b(?:in|not )compatible\b|\bonly supports?\b|\b(?:is|are) not supported\b|\bunsupported (?:\w+ )?version\b|\bversion (?:\S+ )?(?:is )?unsupported\b|\brequires? (?:at least|version|>=|a newer|an older)|\btoo (?:old|new|recent)\b|\bversion mismatch\b|\bmismatched versions?\b`)

// versionNumberRe is a dotted version (1.48.2, v0.4, >=0.2), not an
// address (four parts) nor a time or a decimal inside a longer number.
var versionNumberRe = regexp.MustCompile(`(?:^|[^\w.])[v>=<~^]*(\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)(?:[^\w.]|\.(?:\s|$)|$)`)

// versionWordRe: the line speaks of a version.
var versionWordRe = regexp.MustCompile(`(?i)\bversions?\b`)

// apiMismatchRe is a server's 400 naming what of the request it does not
// know (Elasticsearch's "unknown key [template] in the template",
// "contains an unknown parameter [_type]", a JSON API's "unknown field").
var apiMismatchRe = regexp.MustCompile(`(?i)\b400\b[^\n]{0,120}?\b(?:unknown|unrecognized|unsupported) (?:key|field|parameter|param|property|setting)s?\b|\b(?:unknown|unrecognized|unsupported) (?:key|field|parameter|param|property)s? \[[^\]\n]+\][^\n]{0,160}?\b(?:status"?[:=]\s*)?400\b`)

// Versions are the distinct dotted versions a line names, in order.
func Versions(line string) []string {
	var out []string
	for _, m := range versionNumberRe.FindAllStringSubmatch(line, -1) {
		v := strings.TrimSuffix(m[1], ".")
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// versionMismatch: a compatibility phrase about versions, two of them
// named, or one with the word version.
func versionMismatch(s string) bool {
	if !versionPhraseRe.MatchString(s) {
		return false
	}
	n := len(Versions(s))
	return n >= 2 || n == 1 && versionWordRe.MatchString(s)
}

// APIMismatchSubject is what of the request the server rejects, as its
// 400 words it ("unknown key [template]"); "" when the line is no such
// refusal.
func APIMismatchSubject(line string) string {
	if !apiMismatchRe.MatchString(line) {
		return ""
	}
	return rejectedWhatRe.FindString(line)
}

// rejectedWhatRe is the refusal's own words and the name it quotes.
var rejectedWhatRe = regexp.MustCompile(`(?i)\b(?:unknown|unrecognized|unsupported) (?:key|field|parameter|param|property|setting)s?(?: \[[^\]\n]+\]| "[^"\n]+"| '[^'\n]+'| \\"[^"\n\\]+\\")?`)

func init() {
	signalTable = append(signalTable,
		signalRule{SigVersion, 41, []string{"compatib", "support", "require", "too old", "too new", "too recent", "mismatch"}, versionPhraseRe},
		signalRule{SigAPIMismatch, 41, []string{"unknown", "unrecognized", "unsupported"}, apiMismatchRe})
}
