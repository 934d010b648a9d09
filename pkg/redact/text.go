package redact

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
)

// Text masks credentials in free text (log lines, event messages, any
// string field of an object) and returns the result and how many values it
// masked. Names and separators are kept so the evidence still says which
// variable or header was involved: `DB_PASSWORD=[REDACTED]`,
// `Authorization: Bearer [REDACTED]`.
//
// Every rule looks at the original text; where the spans they would mask
// overlap, the union is masked once. So `stripe_key=sk_live_…` is one masked
// value, not a vendor prefix left behind by one rule and a second mask by
// another. The count is the number of masked spans.
//
// Text is idempotent: masked output passes through unchanged with a count of
// zero, so callers may redact the same text twice.
func Text(s string) (string, int) {
	var edits []edit
	for _, r := range textRules {
		if r.hint == nil || r.hint(s) {
			edits = r.find(s, edits)
		}
	}
	if len(edits) == 0 {
		return s, 0
	}
	edits = mergeEdits(edits)
	return applyEdits(s, edits), len(edits)
}

// edit replaces s[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

// rule finds the values one kind of credential evidence exposes and appends
// them to dst, in order. hint is a cheap test that lets Text skip the rule's
// regular expression on text that cannot match.
type rule struct {
	hint func(string) bool
	find func(s string, dst []edit) []edit
}

var textRules = []rule{
	{hint: contains("PRIVATE KEY"), find: findPEM},
	shape(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`, 0, anchors("eyJ"), nil),
	shape(`gh[pousr]_([A-Za-z0-9]{36,255})`, 1, anchors("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), nil),
	shape(`github_pat_([A-Za-z0-9_]{22,255})`, 1, anchors("github_pat_"), nil),
	shape(`xox[abposr]-([A-Za-z0-9-]{10,})`, 1, anchors("xox"), nil),
	// A Slack incoming webhook URL lets anyone post: its path is the secret.
	shape(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9/_-]+)`, 1, anchors("hooks.slack.com/"), nil),
	shape(`(?:AKIA|ASIA)([A-Z0-9]{16})\b`, 1, anchors("AKIA", "ASIA"), nil),
	shape(`sk-(?:(?:proj|live|admin|svcacct)-|ant-(?:[a-z]{3}\d\d-)?)?([A-Za-z0-9_-]{32,})`, 1, anchors("sk-"), isMixedToken),
	shape(`[sr]k_(?:live|test)_([A-Za-z0-9]{16,})`, 1, anchors("k_live_", "k_test_"), nil),
	shape(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`, 1, anchorsFold("basic"), isBasicCredential),
	shape(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]+=*)`, 1, anchorsFold("bearer"), isBearerToken),
	// Password of a URL, keeping scheme, user and host. Greedy up to the last
	// '@' before the path, so an unencoded '@' in the password is covered.
	shape(`[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:([^\s/?#]+)@`, 1, anchors("://"), nil),
	// Go MySQL DSN: user:password@tcp(host:3306)/db.
	shape(`[^\s:@/]+:(\S+)@(?:tcp|udp|unix)\(`, 1, anchors("@tcp(", "@udp(", "@unix("), nil),
	{find: findPairs},
}

func init() { textRules = append(textRules, vendorRules...) }

// shape builds a rule that masks group g (0 = whole match) of every match of
// expr whose value passes ok. Tokens embedded in a longer word (task-…,
// BAKIA…) are not credentials of that shape and are skipped.
//
// Go's regexp engine is slow on patterns without a literal prefix, so the
// expression runs only on the lines that contain one of the rule's anchors
// (no shape spans lines; PEM blocks have their own rule).
func shape(expr string, g int, anchor anchorSet, ok func(string) bool) rule {
	re := regexp.MustCompile(expr)
	return rule{find: func(s string, dst []edit) []edit {
		for _, ln := range anchor.lines(s) {
			for _, m := range re.FindAllStringSubmatchIndex(s[ln.start:ln.end], -1) {
				if embedded(s, ln.start+m[0]) {
					continue
				}
				a, b := ln.start+m[2*g], ln.start+m[2*g+1]
				v := s[a:b]
				if alreadyMasked(v) || isReference(v) || (ok != nil && !ok(v)) {
					continue
				}
				dst = append(dst, edit{a, b, Mask})
			}
		}
		return dst
	}}
}

// anchorSet is the literals one of which every match of a shape contains.
type anchorSet struct {
	words []string
	fold  bool // ASCII case-insensitive
}

func anchors(words ...string) anchorSet     { return anchorSet{words: words} }
func anchorsFold(words ...string) anchorSet { return anchorSet{words: words, fold: true} }

// span is a line of text, s[start:end], without its newline.
type span struct{ start, end int }

// lines returns, in order and once each, the lines of s holding an anchor.
func (as anchorSet) lines(s string) []span {
	var out []span
	for _, w := range as.words {
		for i := 0; ; {
			j := as.index(s[i:], w)
			if j < 0 {
				break
			}
			j += i
			ln := span{strings.LastIndexByte(s[:j], '\n') + 1, len(s)}
			if k := strings.IndexByte(s[j:], '\n'); k >= 0 {
				ln.end = j + k
			}
			out = append(out, ln)
			i = ln.end
		}
	}
	if len(as.words) > 1 {
		slices.SortFunc(out, func(x, y span) int { return x.start - y.start })
		out = slices.Compact(out)
	}
	return out
}

func (as anchorSet) index(s, w string) int {
	if !as.fold {
		return strings.Index(s, w)
	}
	return indexFold(s, w)
}

// embedded reports whether s[i] continues a word (a JSON \n or \t escape
// before it does not count).
func embedded(s string, i int) bool {
	return i > 0 && isWordByte(s[i-1]) && !(i >= 2 && s[i-2] == '\\')
}

// isMixedToken accepts generated keys (upper, lower and digits) and rejects
// resource names that merely start with "sk-" (sk-prod-eu-west-1-pool-…),
// which Kubernetes keeps lower-case.
func isMixedToken(v string) bool {
	var up, lo, dg bool
	for i := 0; i < len(v); i++ {
		up = up || isUpper(v[i])
		lo = lo || isLower(v[i])
		dg = dg || isDigit(v[i])
	}
	return up && lo && dg
}

// isBasicCredential accepts `Basic <base64(user:password)>` and rejects prose
// such as "basic authentication failed": the word must decode to printable
// text containing a colon.
func isBasicCredential(v string) bool {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
		if err != nil {
			return false
		}
	}
	if !strings.Contains(string(raw), ":") {
		return false
	}
	for _, c := range raw {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// isBearerToken rejects prose after the word bearer ("Bearer token missing",
// "bearer authentication"): real tokens are long, or contain a digit.
func isBearerToken(v string) bool {
	if len(v) >= 20 {
		return true
	}
	return len(v) >= 8 && strings.ContainsAny(v, "0123456789")
}

// findPEM masks the body of every PEM private key block, keeping the BEGIN
// and END lines (they say what kind of key was there, and are not secret).
// A block cut short (a log tail, a truncated event message) is masked up to
// the end of its base64 body. Certificates and public keys are not masked.
func findPEM(s string, dst []edit) []edit {
	first := len(dst)
	for _, m := range pemBeginRe.FindAllStringSubmatchIndex(s, -1) {
		hdrEnd := m[1]
		if n := len(dst); n > first && m[0] < dst[n-1].end {
			continue
		}
		sep := lineSeparatorAt(s, hdrEnd)
		bodyEnd := pemBodyEnd(s, hdrEnd)
		if bodyEnd == hdrEnd {
			continue // nothing but the markers
		}
		endLine := "-----END " + s[m[2]:m[3]] + "-----"
		rest := s[bodyEnd:]
		closing := lineSeparatorAt(s, bodyEnd)
		// A log fetched with timestamps starts every line with one: the
		// masked line keeps the first body line's, so the log still reads
		// as one line per timestamp.
		body := hdrEnd + len(sep)
		repl := sep + s[body:body+timestampLen(s, body)] + Mask
		if strings.HasPrefix(rest[len(closing):], endLine) {
			repl += sep
			bodyEnd += len(closing)
		}
		dst = append(dst, edit{hdrEnd, bodyEnd, repl})
	}
	return dst
}

var pemBeginRe = regexp.MustCompile(`-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----`)

// pemBodyEnd returns where the body after a BEGIN line ends: after the last
// consecutive line that is base64, blank, or an RFC 1421 header
// (Proc-Type:, DEK-Info:). Lines are separated by newlines or, inside JSON
// strings, by literal \n escapes. A line may start with the timestamp a log
// line gets (kubectl logs --timestamps, which is how the bundle fetches
// logs): it is skipped, or no timestamped key would ever match.
func pemBodyEnd(s string, i int) int {
	end := i
	for {
		start := i + len(lineSeparatorAt(s, i))
		stop, ok := pemBodyLine(s, start)
		if !ok {
			return end
		}
		end = stop
		if stop == len(s) || stop == i {
			return end // the end, or a lone \r: no progress
		}
		i = stop
	}
}

// pemBodyLine reports whether the line starting at s[i] belongs to a PEM
// body, and where it ends. It gives up at the first byte that cannot, so
// text that is not a key costs nothing.
func pemBodyLine(s string, i int) (int, bool) {
	j := skipBlanks(s, i)
	j = skipBlanks(s, j+timestampLen(s, j))
	header := strings.HasPrefix(s[j:], "Proc-Type:") || strings.HasPrefix(s[j:], "DEK-Info:")
	trailing := false // blanks after the base64: only more may follow
	for ; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\n' || c == '\r' || c == '\\' && j+1 < len(s) && (s[j+1] == 'n' || s[j+1] == 'r'):
			return j, true
		case header:
		case isBlank(c):
			trailing = true
		case !trailing && (isAlnum(c) || c == '+' || c == '/' || c == '='):
		default:
			return j, false
		}
	}
	return len(s), true
}

// timestampLen returns the length of the timestamp a log line starts with at
// s[i:], with the blank after it, or 0: RFC 3339 with optional fraction and
// zone (2024-05-01T12:00:00.123456789Z, kubectl logs --timestamps) and the
// space-separated form most loggers write (2024-05-01 12:00:00,123).
func timestampLen(s string, i int) int {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(s)-i < len(layout) {
		return 0
	}
	for k := 0; k < len(layout); k++ {
		c := s[i+k]
		switch layout[k] {
		case 'd':
			if !isDigit(c) {
				return 0
			}
		case 'T':
			if c != 'T' && c != ' ' {
				return 0
			}
		default:
			if c != layout[k] {
				return 0
			}
		}
	}
	j := i + len(layout)
	if j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(s[j+1]) {
		for j++; j < len(s) && isDigit(s[j]); j++ {
		}
	}
	switch {
	case j < len(s) && s[j] == 'Z':
		j++
	case j+5 < len(s) && (s[j] == '+' || s[j] == '-') && isDigit(s[j+1]) && isDigit(s[j+2]):
		j += 3
		if s[j] == ':' {
			j++
		}
		for k := 0; k < 2 && j < len(s) && isDigit(s[j]); k++ {
			j++
		}
	}
	if j < len(s) && isBlank(s[j]) {
		return j + 1 - i
	}
	if j == len(s) || s[j] == '\n' || s[j] == '\r' {
		return j - i // an empty log line
	}
	return 0
}

// lineSeparatorAt returns the line separator (real or JSON-escaped) at s[i:],
// or "".
func lineSeparatorAt(s string, i int) string {
	for _, sep := range []string{"\r\n", "\n", `\r\n`, `\n`} {
		if strings.HasPrefix(s[i:], sep) {
			return sep
		}
	}
	return ""
}

// alreadyMasked reports whether nothing readable is left in v but masks and
// punctuation. It keeps Text idempotent; a value that is only partly masked
// (`sessionid=abc; csrftoken=[REDACTED]`) is masked whole.
func alreadyMasked(v string) bool {
	rest := strings.ReplaceAll(v, Mask, "")
	if len(rest) == len(v) {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if isAlnum(rest[i]) {
			return false
		}
	}
	return true
}

// isReference reports whether v only refers to a value held elsewhere:
// Kubernetes dependent env var expansion $(DB_PASSWORD), shell ${VAR} or
// $VAR, or a Helm/Go/Vault template {{ … }}. Like valueFrom, a reference is
// evidence of wiring, not a credential.
func isReference(v string) bool {
	switch {
	case strings.HasPrefix(v, "$(") && strings.HasSuffix(v, ")"),
		strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}"),
		strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}"):
		return !strings.ContainsAny(v[2:len(v)-2], "$({")
	case len(v) > 1 && v[0] == '$':
		for i := 1; i < len(v); i++ {
			if !isWordByte(v[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// pathRoots are where credential files are mounted. A value that is a path
// under one of them says where the credential lives
// (GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/google/key.json), which is
// what an investigator needs to check the mount; no generated secret starts
// with these.
var pathRoots = []string{
	"/etc/", "/var/", "/run/", "/tmp/", "/home/", "/root/", "/opt/", "/mnt/",
	"/srv/", "/usr/", "/secrets/", "/vault/", "/config/", "/certs/", "/app/",
	"/data/",
}

func isPathLike(v string) bool {
	if strings.ContainsAny(v, " \t") {
		return false
	}
	for _, root := range pathRoots {
		if strings.HasPrefix(v, root) {
			return true
		}
	}
	return false
}

// isObjectRef recognises a Kubernetes object reference logged under the
// kind's own name, as klog.KObj renders it: secret="shop/db-creds". That
// names the Secret; it is not its content.
func isObjectRef(name, v string) bool {
	if !strings.EqualFold(name, "secret") {
		return false
	}
	ns, obj, ok := strings.Cut(v, "/")
	return ok && isDNSName(ns) && isDNSName(obj)
}

func isDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLower(c) && !isDigit(c) && c != '-' && c != '.' {
			return false
		}
	}
	return isLower(s[0]) || isDigit(s[0])
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// mergeEdits sorts edits and folds overlapping ones into their union: an
// edit inside another disappears, two that overlap partly become one masking
// both.
func mergeEdits(edits []edit) []edit {
	slices.SortFunc(edits, func(x, y edit) int {
		if x.start != y.start {
			return x.start - y.start
		}
		return y.end - x.end
	})
	out := edits[:1]
	for _, e := range edits[1:] {
		last := &out[len(out)-1]
		switch {
		case e.start >= last.end:
			out = append(out, e)
		case e.end > last.end:
			last.end, last.repl = e.end, Mask
		}
	}
	return out
}

// applyEdits returns s with each (sorted, disjoint) edit applied.
func applyEdits(s string, edits []edit) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, e := range edits {
		b.WriteString(s[last:e.start])
		b.WriteString(e.repl)
		last = e.end
	}
	b.WriteString(s[last:])
	return b.String()
}

func contains(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				return true
			}
		}
		return false
	}
}

// indexFold is an allocation-free, ASCII case-insensitive strings.Index for
// a lower-case word.
func indexFold(s, word string) int {
	lo, up := word[0], word[0]-'a'+'A'
	for i := 0; i+len(word) <= len(s); i++ {
		if (s[i] == lo || s[i] == up) && strings.EqualFold(s[i:i+len(word)], word) {
			return i
		}
	}
	return -1
}
