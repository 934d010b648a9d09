package applog

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// record is one line read on its own, before grouping.
type record struct {
	format  Format
	level   Level
	implied bool
	msg     string
	err     string
	stack   string // a stack trace carried in a field of a structured record
}

// parseLine reads one line (timestamp prefix already removed).
func parseLine(line string) record {
	t := strings.TrimSpace(line)
	if len(t) > 1 && t[0] == '{' && t[len(t)-1] == '}' {
		if r, ok := parseJSON(t); ok {
			return r
		}
	}
	if m, ok := submatch.Find(klogRe, line); ok {
		return parseKlog(m)
	}
	if r, ok := parseLogfmt(t); ok {
		return r
	}
	r := record{format: FormatPlain, msg: t}
	r.level, r.implied = plainLevel(t)
	// zap's console encoder (controller-runtime) prints the fields as a
	// JSON object after the message: "… ERROR Reconciler error {"…": …,
	// "error": "…"}". Its error field is the cause.
	if i := strings.Index(t, "{\""); i > 0 && strings.HasSuffix(t, "}") {
		var obj map[string]any
		if json.Unmarshal([]byte(t[i:]), &obj) == nil {
			flatten(obj)
			for _, k := range jsonErrKeys {
				if s := errText(obj[k]); s != "" {
					r.msg, r.err = strings.TrimSpace(t[:i]), firstLine(s)
					break
				}
			}
		}
	}
	return r
}

// ---- JSON ----

// Field names of the common JSON loggers, most specific first. The message
// of Serilog's compact format is @m (rendered) or @mt (template);
// hashicorp/go-hclog's JSON format (Vault, Consul, Nomad) writes @level and
// @message (intlogger.go jsonMapEntry).
var (
	jsonLevelKeys = []string{"level", "lvl", "severity", "log.level", "@l", "@level", "loglevel", "log_level", "levelname", "levelName", "Level", "LEVEL", "Severity", "level_name"}
	jsonMsgKeys   = []string{"msg", "message", "@m", "@mt", "@message", "Message", "MESSAGE", "event", "textPayload", "log"}
	jsonErrKeys   = []string{"error", "err", "error.message", "@x", "exception", "Exception", "exc_info", "thrown", "error_message", "errorMessage", "reason"}
	jsonStackKeys = []string{"stacktrace", "stack", "stack_trace", "error.stack_trace", "exc_info", "@x", "exception", "Exception", "errorVerbose"}
)

func parseJSON(line string) (record, bool) {
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	var obj map[string]any
	if d.Decode(&obj) != nil {
		return record{}, false
	}
	liftFields(obj)
	flatten(obj)
	r := record{format: FormatJSON}
	for _, k := range jsonLevelKeys {
		if v, ok := obj[k]; ok {
			if l := levelOf(v); l != LevelUnknown {
				r.level = l
				break
			}
		}
	}
	if r.level == LevelUnknown {
		r.level = mongoSeverity(obj)
	}
	// Serilog's compact JSON omits @l for Information.
	if _, serilog := obj["@t"]; serilog && r.level == LevelUnknown {
		if _, ok := obj["@l"]; !ok {
			r.level = LevelInfo
		}
	}
	for _, k := range jsonMsgKeys {
		if s := text(obj[k]); s != "" {
			r.msg = s
			break
		}
	}
	for _, k := range jsonErrKeys {
		if s := errText(obj[k]); s != "" {
			r.err = errLine(s)
			break
		}
	}
	if r.err != "" {
		r.msg = withAddressFields(r.msg, r.err, obj)
	}
	for _, k := range jsonStackKeys {
		if s := stackText(obj[k]); strings.Contains(s, "\n") {
			r.stack = s
			break
		}
	}
	if r.level == LevelUnknown && r.msg == "" && r.err == "" {
		return record{}, false // some JSON document, not a log record
	}
	if r.level == LevelUnknown {
		r.level, r.implied = plainLevel(r.msg + " " + r.err)
	}
	return r, true
}

// flatten lifts the fields of nested objects the loggers use (ECS's
// {"log":{"level":…}}, {"error":{"message":…}}, log4j2's "thrown", pino's
// "err") to dotted keys, so one lookup table serves all of them.
func flatten(obj map[string]any) {
	for _, k := range []string{"log", "error", "err", "thrown", "exception", "@x"} {
		m, ok := obj[k].(map[string]any)
		if !ok {
			continue
		}
		for sub, v := range m {
			if _, taken := obj[k+"."+sub]; !taken {
				obj[k+"."+sub] = v
			}
		}
	}
}

// levelOf reads a level field: a name, or pino/bunyan's numbers.
func levelOf(v any) Level {
	switch v := v.(type) {
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return LevelUnknown
		}
		switch {
		case n >= 60:
			return LevelFatal
		case n >= 50:
			return LevelError
		case n >= 40:
			return LevelWarn
		case n >= 30:
			return LevelInfo
		case n >= 20:
			return LevelDebug
		case n >= 10:
			return LevelTrace
		}
	case string:
		return levelWord(v)
	case map[string]any: // log4j2 JsonLayout with objectMessageAsJsonObject
		return levelOf(v["name"])
	}
	return LevelUnknown
}

// levelWord normalises a level name: every spelling the common loggers use
// (ASP.NET's "fail"/"crit", PostgreSQL's LOG, GCP's severities, glog's
// letters, Serilog's full names).
func levelWord(s string) Level {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace", "trc", "trce", "verbose", "vrb", "finest", "finer":
		return LevelTrace
	case "debug", "dbug", "dbg", "d", "fine", "debug1", "debug2", "debug3", "debug4", "debug5":
		return LevelDebug
	case "info", "information", "inf", "i", "notice", "log", "default", "config", "informational":
		return LevelInfo
	case "warn", "warning", "wrn", "w":
		return LevelWarn
	case "error", "err", "eror", "erro", "fail", "e", "severe":
		return LevelError
	case "fatal", "ftl", "f", "critical", "crit", "panic", "dpanic", "alert", "emerg", "emergency":
		return LevelFatal
	}
	return LevelUnknown
}

func text(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	case nil:
		return ""
	case map[string]any:
		if s := text(v["message"]); s != "" {
			return s
		}
	}
	return ""
}

// errText reads an error field: a string, or an object with a message
// (pino's err, log4j2's thrown, ECS's error).
func errText(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case map[string]any:
		// log4j2's JsonLayout nests the chain under "cause": the innermost
		// cause is the root.
		if c, ok := v["cause"].(map[string]any); ok {
			if s := errText(c); s != "" {
				return s
			}
		}
		msg := text(v["message"])
		for _, k := range []string{"localizedMessage", "errmsg"} {
			if msg == "" {
				msg = text(v[k])
			}
		}
		name := text(v["type"])
		// MongoDB writes a Status as {"code":…,"codeName":…,"errmsg":…}.
		for _, k := range []string{"name", "class", "codeName"} {
			if name == "" {
				name = text(v[k])
			}
		}
		if name != "" && msg != "" && !strings.Contains(msg, name) {
			return name + ": " + msg
		}
		if msg != "" {
			return msg
		}
		return name
	case []any: // exc_info as a list
		var parts []string
		for _, e := range v {
			parts = append(parts, fmt.Sprint(e))
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func stackText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		for _, k := range []string{"stack", "stack_trace", "extendedStackTrace", "stacktrace"} {
			if s, ok := v[k].(string); ok {
				return s
			}
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// ---- klog/glog ----

// tornadoLevelRe is Tornado's log prefix, which Jupyter and JupyterHub
// print: "[E 2018-10-03 09:12:05.214 JupyterHub app:1623] …".
var tornadoLevelRe = regexp.MustCompile(`^\[([DIWEC]) \d{2,4}-?\d{2}-?\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? `)

// klogRe matches klog's header: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
var klogRe = regexp.MustCompile(`^(?P<level>[IWEF])(?P<date>\d{4}) (?P<time>\d{2}:\d{2}:\d{2}\.\d+)\s+(?P<thread>\d+) (?P<source>[^\]\s]+:\d+)\] ?(?P<msg>.*)$`)

func parseKlog(m submatch.Match) record {
	msg := m.Get("msg")
	r := record{format: FormatKlog, level: levelWord(m.Get("level")), msg: msg}
	// Structured klog: "message" key="value" err="…"
	if strings.HasPrefix(msg, `"`) {
		if q, err := strconv.QuotedPrefix(msg); err == nil {
			r.msg, _ = strconv.Unquote(q)
			kv := logfmtPairs(strings.TrimSpace(msg[len(q):]))
			for _, k := range []string{"err", "error"} {
				if v, ok := kv[k]; ok {
					r.err = fieldErr(v)
					break
				}
			}
		}
	}
	return r
}

// ---- logfmt ----

func parseLogfmt(line string) (record, bool) {
	// Logfmt starts with a key: time=…, level=…, ts=…, msg=….
	eq := strings.IndexByte(line, '=')
	if eq <= 0 || strings.ContainsAny(line[:eq], " \t\"") {
		return record{}, false
	}
	kv := logfmtPairs(line)
	if len(kv) < 2 {
		return record{}, false
	}
	r := record{format: FormatLogfmt}
	known := false
	for _, k := range []string{"level", "lvl", "severity", "loglevel"} {
		if v, ok := kv[k]; ok {
			r.level, known = levelWord(v), true
			break
		}
	}
	for _, k := range []string{"msg", "message", "event"} {
		if v, ok := kv[k]; ok {
			r.msg, known = v, true
			break
		}
	}
	for _, k := range []string{"err", "error", "error.message", "exception"} {
		if v, ok := kv[k]; ok {
			r.err, known = fieldErr(v), true
			break
		}
	}
	if !known {
		return record{}, false
	}
	if r.level == LevelUnknown {
		r.level, r.implied = plainLevel(r.msg + " " + r.err)
	}
	return r, true
}

// logfmtPairs reads key=value pairs; values may be "quoted" with Go escapes.
func logfmtPairs(s string) map[string]string {
	out := map[string]string{}
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t")
		eq := strings.IndexByte(s, '=')
		sp := strings.IndexAny(s, " \t")
		if eq <= 0 || (sp >= 0 && sp < eq) {
			// a bare word: skip it
			if sp < 0 {
				break
			}
			s = s[sp:]
			continue
		}
		key := s[:eq]
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			if q, err := strconv.QuotedPrefix(s); err == nil {
				val, _ = strconv.Unquote(q)
				s = s[len(q):]
			} else { // unterminated: take the rest
				val, s = strings.Trim(s, `"`), ""
			}
		} else if sp := strings.IndexAny(s, " \t"); sp >= 0 {
			val, s = s[:sp], s[sp:]
		} else {
			val, s = s, ""
		}
		if _, dup := out[key]; !dup {
			out[key] = val
		}
	}
	return out
}

// ---- plain text ----

var (
	// nginx/Apache "[emerg]", "[error]"; ASP.NET's console "fail: ", "crit: ".
	bracketLevelRe = regexp.MustCompile(`(?i)^(?:\S+\s+){0,3}\[\s?(?P<level>emerg|alert|crit|critical|error|err|erro|warn|warning|notice|info|information|debug|fatal|verbose|trace)\]|^(?P<level>trce|dbug|info|warn|fail|crit): `)
	// Serilog's default console template: "[15:22:27 ERR] …".
	serilogConsoleRe = regexp.MustCompile(`^\[\d{2}:\d{2}:\d{2} (?P<level>VRB|DBG|INF|WRN|ERR|FTL)\] `)
	// librdkafka: "%3|1618498121.702|FAIL|rdkafka#consumer-1| …" (syslog levels).
	syslogLevelRe = regexp.MustCompile(`^%(?P<severity>[0-7])\|`)
	// Redis: "1:M 26 Nov 2026 09:34:01.123 # message" (# warning, * notice).
	redisRe        = regexp.MustCompile(`^(?:\d+:[XCSM]|\[\d+\]) \d{1,2} \w{3}(?: \d{4})? [\d:.]+ (?P<role>[.\-*#]) `)
	leadingErrorRe = regexp.MustCompile(`^(npm ERR!|npm error|[Ee]rror:|ERROR:|fatal:|FATAL:|panic:|\w*Error: |\w+Exception: |E! |error |Error |Fatal |Failed |failed )`)
)

// plainLevel finds the level a text line declares; failing that, guesses
// an error from its words (implied=true).
func plainLevel(line string) (Level, bool) {
	head := line
	if len(head) > 120 {
		head = head[:120]
	}
	if m, ok := submatch.Find(redisRe, head); ok {
		switch m.Get("role") {
		case "#":
			return LevelWarn, false
		case "*":
			return LevelInfo, false
		default:
			return LevelDebug, false
		}
	}
	if m, ok := submatch.Find(serilogConsoleRe, head); ok {
		return levelWord(m.Get("level")), false
	}
	if m := tornadoLevelRe.FindStringSubmatch(head); m != nil {
		return map[string]Level{"D": LevelDebug, "I": LevelInfo, "W": LevelWarn, "E": LevelError, "C": LevelFatal}[m[1]], false
	}
	if l, ok := scriptLevel(head); ok {
		return l, false
	}
	if m, ok := submatch.Find(syslogLevelRe, head); ok {
		switch m.Get("severity") {
		case "0", "1", "2":
			return LevelFatal, false
		case "3":
			return LevelError, false
		case "4":
			return LevelWarn, false
		case "7":
			return LevelDebug, false
		}
		return LevelInfo, false
	}
	if b := strings.IndexByte(head, '['); (b >= 0 && b < 60) || (len(head) > 5 && head[4] == ':') {
		if m, ok := submatch.Find(bracketLevelRe, head); ok {
			return levelWord(m.Get("level")), false
		}
	}
	if leadingErrorRe.MatchString(head) {
		if strings.HasPrefix(head, "panic:") || strings.HasPrefix(strings.ToLower(head), "fatal") {
			return LevelFatal, false
		}
		return LevelError, false
	}
	if w := upperLevelWord(head); w != "" {
		switch w {
		case "STATEMENT", "DETAIL", "HINT":
			return LevelInfo, false
		}
		return levelWord(w), false
	}
	if impliedError(line) {
		return LevelError, true
	}
	return LevelUnknown, false
}

// upperLevels are the upper-case level words of text loggers; the
// PostgreSQL ones count only followed by a colon ("LOG:  …").
var upperLevels = map[string]bool{"TRACE": true, "DEBUG": true, "INFO": true, "NOTICE": true, "WARN": true, "WARNING": true, "ERROR": true, "ERRO": true, "FATAL": true, "CRITICAL": true, "SEVERE": true, "PANIC": true, "EMERG": true, "ALERT": true, "CRIT": true}
var pgLevels = map[string]bool{"LOG": true, "STATEMENT": true, "DETAIL": true, "HINT": true}

// upperLevelWord returns the first upper-case level word among the first
// 80 characters: a whole word, so ERROR_COUNT or INFORMATION do not count.
// A scan instead of a regular expression: it runs on every line.
func upperLevelWord(head string) string {
	if len(head) > 80 {
		head = head[:80]
	}
	for i := 0; i < len(head); {
		if !isWordByte(head[i]) {
			i++
			continue
		}
		j := i
		for j < len(head) && isWordByte(head[j]) {
			j++
		}
		w := head[i:j]
		if upperLevels[w] || (pgLevels[w] && j < len(head) && head[j] == ':') {
			return w
		}
		i = j
	}
	return ""
}

func isWordByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// errorWords say an unlevelled line reports a failure.
var errorWords = map[string]bool{"error": true, "errors": true, "failed": true, "failure": true, "fatal": true, "exception": true, "panic": true, "panicked": true, "cannot": true, "can't": true, "couldn't": true, "refused": true, "denied": true, "invalid": true, "timeout": true, "unhandled": true, "traceback": true, "abort": true, "aborted": true, "aborting": true}
var errorPhrases = []string{"could not", "unable to", "not found", "no such", "timed out"}

// impliedError reports whether an unlevelled line's words say it is an
// error; a word scan for the same reason as upperLevelWord.
func impliedError(line string) bool {
	lower := strings.ToLower(line)
	for i := 0; i < len(lower); {
		c := lower[i]
		if !(c >= 'a' && c <= 'z') {
			i++
			continue
		}
		j := i
		for j < len(lower) && (lower[j] >= 'a' && lower[j] <= 'z' || lower[j] == '\'') {
			j++
		}
		// A word glued to digits or underscores (error_count, err2) is an
		// identifier, not prose.
		glued := (i > 0 && isWordByte(lower[i-1])) || (j < len(lower) && isWordByte(lower[j]))
		if !glued && errorWords[lower[i:j]] {
			return true
		}
		i = j
	}
	for _, p := range errorPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}
