package applog

import (
	"regexp"
	"strings"
	"time"
)

// A process that fails at start-up often tells one failure several times
// as it unwinds: mysqld's "Different lower_case_table_names settings for
// server ('1') and data dictionary ('0')", then "Data Dictionary
// initialization failed", then "Aborting". The last words are the least
// telling; the first record of the cascade that names something is its
// cause (docs/DESIGN.md, "Decisive line").

// cascadeGap bounds the records between two lines of one cascade, and
// cascadeWindow the time between them when the kubelet stamped both.
const (
	cascadeGap    = 3
	cascadeWindow = 2 * time.Second
	cascadeMax    = 6
)

var (
	// quotedRe is a quoted value: 'x', "x", `x`, ('1').
	quotedRe = regexp.MustCompile("'[^'\\s][^']*'|\"[^\"\\s][^\"]*\"|`[^`]+`")
	// SettingNameRe is a setting, field or object name as programs print
	// them: snake_case, dotted, kebab-case or camelCase, two words at least
	// (one word, such as "port", is any program's).
	SettingNameRe = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b`)
	// tagRe is a logger's bracketed tag ([ERROR], [MY-010119], [Server]).
	tagRe = regexp.MustCompile(`\[[^\]]*\]`)
	// releaseRe is a version number, which names no setting.
	releaseRe = regexp.MustCompile(`^v?\d+(?:\.\d+)+$`)
)

// namesSomething reports whether a line names what the failure is about:
// a quoted value, a setting or field name, or an entity (a path, a host,
// a variable). "Aborting" and "initialization failed" name nothing.
func namesSomething(text string) bool {
	t := tagRe.ReplaceAllString(text, " ")
	if quotedRe.MatchString(t) {
		return true
	}
	for _, m := range SettingNameRe.FindAllString(t, -1) {
		if !releaseRe.MatchString(m) {
			return true
		}
	}
	e := Extract(t)
	return len(e.EnvVars)+len(e.Listen)+len(e.Endpoints)+len(e.Hosts)+len(e.URLs)+len(e.Paths)+
		len(e.SQL)+len(e.Forbidden)+len(e.Commands)+len(e.Libraries)+len(e.Users)+len(e.Certs) > 0
}

// cascadeCause returns, among candidate events in log order, the index of
// the first one of the exit cascade that names something, when the last
// one names nothing or repeats an earlier line's detail; -1 otherwise.
func cascadeCause(evs []*Event, texts []string) int {
	n := len(evs)
	if n < 2 {
		return -1
	}
	last := n - 1
	if namesSomething(texts[last]) && !repeatsEarlier(texts, last) {
		return -1
	}
	first := last
	for i := last - 1; i >= 0 && last-i < cascadeMax; i-- {
		next := evs[i+1]
		if next.Line-(evs[i].Line+evs[i].Lines) > cascadeGap {
			break
		}
		if !evs[i].Time.IsZero() && !next.Time.IsZero() && next.Time.Sub(evs[i].Time) > cascadeWindow {
			break
		}
		if !failureLevel(evs[i]) {
			break
		}
		first = i
	}
	for i := first; i < last; i++ {
		if namesSomething(texts[i]) && !repeatsEarlier(texts, i) {
			return i
		}
	}
	return -1
}

// failureLevel: an error-level record, or an unlevelled one (plain logs).
func failureLevel(ev *Event) bool {
	return ev.Level >= LevelError || ev.Level == LevelUnknown
}

// repeatsEarlier: the line is a part of an earlier line (Envoy prints
// "error initializing configuration '/etc/envoy.yaml': <detail>", then
// the detail alone).
func repeatsEarlier(texts []string, i int) bool {
	t := strings.TrimSpace(texts[i])
	if len(t) < 12 {
		return false
	}
	for j := 0; j < i; j++ {
		if len(texts[j]) > len(t) && strings.Contains(texts[j], t) {
			return true
		}
	}
	return false
}
