package redact

import "strings"

// Name/value pairs in free text: `NAME=value`, `Name: value`,
// `"name": "value"`, `--name value`.
//
// Pairs are found from their names rather than with regular expressions:
// every name IsSensitiveName accepts contains one of a few stems (tok, secr,
// pas, pw, key, cred, auth, cook, sig), so the scanner jumps from stem to
// stem, takes the name around it, and only then looks at what follows. On
// log text that is two orders of magnitude faster than running Go's regexp
// engine over every `word=` and `word:`, and it lets a non-sensitive pair
// never swallow a sensitive one inside its value
// (url=https://h/cb?access_token=…).

// stems lists, by lower-case first letter, the stems of sensitive names.
// TestStemsCoverSensitiveWords keeps it in step with names.go.
var stems = [256][]string{
	'a': {"auth"},
	'c': {"cred", "cook"},
	'k': {"key"},
	'p': {"pas", "pw"},
	's': {"secr", "sig"},
	't': {"tok"},
}

// nextStem returns the index of the first stem at or after i, or -1.
func nextStem(s string, i int) int {
	for ; i < len(s); i++ {
		for _, stem := range stems[s[i]|0x20] {
			if len(s)-i >= len(stem) && strings.EqualFold(s[i:i+len(stem)], stem) {
				return i
			}
		}
	}
	return -1
}

// nameAround returns the name containing s[i]: the run of name bytes
// [A-Za-z0-9_.-] around it, starting at its first letter or underscore.
func nameAround(s string, i int) (int, int) {
	start, end := i, i
	for start > 0 && isNameByte(s[start-1]) {
		start--
	}
	for start < i && !isUpper(s[start]) && !isLower(s[start]) && s[start] != '_' {
		start++
	}
	for end < len(s) && isNameByte(s[end]) {
		end++
	}
	return start, end
}

// findPairs masks the value of every pair whose name is sensitive.
func findPairs(s string, dst []edit) []edit {
	first := len(dst)
	for i := nextStem(s, 0); i >= 0; {
		start, end := nameAround(s, i)
		i = nextStem(s, end)
		if len(dst) > first && start < dst[len(dst)-1].end {
			continue // inside a value already masked
		}
		name := s[start:end]
		if !IsSensitiveName(name) {
			continue
		}
		a, b, ok := pairValue(s, start, end)
		if !ok {
			continue
		}
		a = skipAuthScheme(s, a, b)
		v := s[a:b]
		if a == b || alreadyMasked(v) || isReference(v) || isPathLike(v) || isObjectRef(name, v) ||
			strings.HasPrefix(v, "-----BEGIN ") { // a PEM block: findPEM's
			continue
		}
		dst = append(dst, edit{a, b, Mask})
	}
	return dst
}

// pairValue returns the span of the value paired with the name s[start:end],
// or false when the name is not followed by a value in any form.
func pairValue(s string, start, end int) (int, int, bool) {
	if p, ok := afterQuotedName(s, start, end); ok {
		return quotedPairValue(s, p)
	}
	if j := skipBlanks(s, end); j < len(s) && s[j] == '=' {
		return assignValue(s, skipBlanks(s, j+1))
	}
	if end+1 < len(s) && s[end] == ':' && isBlank(s[end+1]) {
		return colonValue(s, start, skipBlanks(s, end+1))
	}
	if end < len(s) && isBlank(s[end]) && isFlag(s, start) {
		return flagValue(s, skipBlanks(s, end))
	}
	return 0, 0, false
}

// afterQuotedName recognises a JSON or dict member name, `"apiKey":`, also
// escaped inside another JSON string (`{\"token\":\"abc\"}`), and returns
// where its value starts. The colon must follow the closing quote directly:
// kubelet's `volume "secret-vol" : secret …` is prose, not JSON.
func afterQuotedName(s string, start, end int) (int, bool) {
	if start == 0 || end >= len(s) {
		return 0, false
	}
	q := s[start-1]
	if q != '"' && q != '\'' {
		return 0, false
	}
	close := s[end:]
	if strings.HasPrefix(close, `\`) {
		close = close[1:]
	}
	if len(close) < 2 || close[0] != q || close[1] != ':' {
		return 0, false
	}
	return skipBlanks(s, len(s)-len(close)+2), true
}

// quotedPairValue: a JSON string, or a bare number. Objects and lists are
// left to their own members, null and booleans hold no credential.
func quotedPairValue(s string, p int) (int, int, bool) {
	if p < len(s) && (s[p] == '{' || s[p] == '[') {
		return 0, 0, false
	}
	a, b := valueAt(s, p, " \t\r\n,}]")
	switch s[a:b] {
	case "null", "true", "false":
		return 0, 0, false
	}
	return a, b, true
}

// assignValue: `NAME=value` (env dumps, logfmt, query strings, properties
// files, --password=…). An unquoted value ends at whitespace, a quote, '&'
// (query strings) or ';' (connection strings, `Server=db;Password=…;…`).
func assignValue(s string, p int) (int, int, bool) {
	if p < len(s) && s[p] == '=' {
		return 0, 0, false // ==, a comparison
	}
	a, b := valueAt(s, p, " \t\r\n\"'&;")
	return a, b, true
}

// colonValue: `Name: value`. Where the name starts a line (YAML, HTTP
// headers, `> Authorization: …` in curl -v output) the whole rest of the
// line is the value. Mid-line, `name: value` is also how errors are chained
// ("failed to read token: permission denied"), so only the next word is
// masked, and only if it does not read as prose.
func colonValue(s string, name, p int) (int, int, bool) {
	if atLineStart(s, name) {
		a, b := valueAt(s, p, "\r\n")
		b = a + len(strings.TrimRight(s[a:b], " \t"))
		if isBlockIndicator(s[a:b]) {
			return blockScalar(s, name, b)
		}
		return a, b, true
	}
	a, b := valueAt(s, p, " \t\r\n")
	if a == p && isAuthScheme(s[a:b]) && b < len(s) && isBlank(s[b]) {
		a, b = valueAt(s, skipBlanks(s, b), " \t\r\n")
	}
	quoted := s[a-1] == '"' || s[a-1] == '\''
	return a, b, quoted || !looksLikeProse(s[a:b])
}

// isFlag reports whether the name at s[start] is a command-line flag: one or
// two dashes, at the start of the text or after whitespace or a quote.
func isFlag(s string, start int) bool {
	i := start
	for n := 0; n < 2 && i > 0 && s[i-1] == '-'; n++ {
		i--
	}
	if i == start {
		return false
	}
	return i == 0 || isBlank(s[i-1]) || s[i-1] == '\n' || s[i-1] == '"' || s[i-1] == '\''
}

// flagValue: `--token xyz` in a command line quoted in text (`sh -c "app
// --token xyz"`, an echoed command), unless what follows is another flag.
func flagValue(s string, p int) (int, int, bool) {
	if p >= len(s) || s[p] == '-' {
		return 0, 0, false
	}
	a, b := valueAt(s, p, " \t\r\n\"'")
	return a, b, true
}

// authSchemes are the HTTP authentication schemes an Authorization value
// starts with. The scheme is kept ("Authorization: Bearer [REDACTED]"): it
// says what kind of credential was sent.
var authSchemes = []string{"Bearer", "Basic", "Token", "Digest", "Negotiate", "AWS4-HMAC-SHA256"}

func isAuthScheme(w string) bool {
	for _, sc := range authSchemes {
		if strings.EqualFold(w, sc) {
			return true
		}
	}
	return false
}

// skipAuthScheme returns where the credential in the value s[a:b] starts,
// past a leading authentication scheme.
func skipAuthScheme(s string, a, b int) int {
	word := a
	for word < b && !isBlank(s[word]) {
		word++
	}
	if word == b || !isAuthScheme(s[a:word]) {
		return a
	}
	for word < b && isBlank(s[word]) {
		word++
	}
	return word
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlanks(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

func isNameByte(c byte) bool { return isWordByte(c) || c == '.' || c == '-' }

// valueAt returns the span of the value starting at s[i]: the contents of a
// quoted string (double, single, or JSON-escaped \"…\"), or the bytes up to
// the first byte in stop.
func valueAt(s string, i int, stop string) (int, int) {
	switch {
	case i >= len(s):
		return i, i
	case strings.HasPrefix(s[i:], `\"`):
		return quotedAt(s, i+2, `\"`)
	case s[i] == '"' || s[i] == '\'':
		return quotedAt(s, i+1, s[i:i+1])
	}
	j := i
	for j < len(s) && strings.IndexByte(stop, s[j]) < 0 {
		j++
	}
	return i, j
}

// quotedAt returns the span from i to the closing quote, or to the end of
// the line when the string is not closed on it.
func quotedAt(s string, i int, quote string) (int, int) {
	for j := i; j < len(s); j++ {
		switch {
		case strings.HasPrefix(s[j:], quote):
			return i, j
		case s[j] == '\n' || s[j] == '\r':
			return i, j
		case s[j] == '\\' && quote == `"`:
			j++
		}
	}
	return i, len(s)
}

// atLineStart reports whether only indentation and at most one list,
// quote, comment or curl marker (-, >, <, *, #) precede s[i] on its line.
func atLineStart(s string, i int) bool {
	i = skipBlanksBack(s, i)
	if i > 0 && strings.IndexByte("-><*#", s[i-1]) >= 0 {
		i = skipBlanksBack(s, i-1)
	}
	return i == 0 || s[i-1] == '\n' || s[i-1] == '\r'
}

func skipBlanksBack(s string, i int) int {
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return i
}

// isBlockIndicator: a YAML block scalar (`password: |`) puts its value on
// the following lines; see blockScalar.
func isBlockIndicator(v string) bool {
	switch v {
	case "|", "|-", "|+", ">", ">-", ">+":
		return true
	}
	return false
}

// blockScalar returns the span of the YAML block scalar whose key starts at
// s[name] and whose indicator line ends at s[eol]: the following lines
// indented deeper than the key (blank lines included), from the first one's
// text to the last one's end.
func blockScalar(s string, name, eol int) (int, int, bool) {
	keyIndent := name - (strings.LastIndexAny(s[:name], "\r\n") + 1)
	a, b := -1, -1
	for i := eol; i < len(s); {
		if s[i] == '\r' || s[i] == '\n' {
			i++
			continue
		}
		// s[i] starts a line.
		text := skipBlanks(s, i)
		end := text
		for end < len(s) && s[end] != '\n' && s[end] != '\r' {
			end++
		}
		if text < end && text-i <= keyIndent {
			break // back at the key's level: the block is over
		}
		if text < end {
			if a < 0 {
				a = text
			}
			b = end
		}
		i = end
	}
	return a, b, a >= 0
}

// looksLikeProse reports whether a mid-line word after "name: " reads as the
// rest of an error message rather than a credential: a plain (possibly
// capitalised) word, a further "prefix:", or a number of at most three
// digits.
func looksLikeProse(w string) bool {
	if strings.HasSuffix(w, ":") {
		return true
	}
	w = strings.TrimRight(w, ".,;!?)")
	if w == "" {
		return true
	}
	if len(w) <= 3 && strings.Trim(w, "0123456789") == "" {
		return true
	}
	if !isUpper(w[0]) && !isLower(w[0]) {
		return false
	}
	for i := 1; i < len(w); i++ {
		if !isLower(w[i]) {
			return false
		}
	}
	return true
}
