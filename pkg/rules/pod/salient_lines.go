package pod

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A rejected configuration file is shown by the lines the error is about,
// so that the report carries the spec fact ("isDefault: true" twice) and
// not only the file's name (docs/DESIGN.md, "Correlations").

// settingLineRe is one `key: value`, `key = value`, `"key": value` line or
// `key:` heading of a configuration file, with its indentation.
var settingLineRe = regexp.MustCompile(`^(\s*(?:-\s+)?)"?([A-Za-z_][\w.-]*)"?\s*[:=]\s*(.*?)\s*,?$`)

// sectionRe is an INI section heading, the parent of the keys below it.
var sectionRe = regexp.MustCompile(`^\s*\[([\w.-]+)\]\s*$`)

// wordRe are the words of an error line considered for salience.
var wordRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_-]{2,}`)

// camelRe splits a key into its words: isDefault → is, Default.
var camelRe = regexp.MustCompile(`[A-Z]?[a-z0-9]+|[A-Z]+(?:[a-z0-9]+)?`)

// commonWords say that something failed, not what it is about.
var commonWords = map[string]bool{
	"error": true, "errors": true, "failed": true, "failure": true, "invalid": true, "config": true, "configuration": true, "file": true,
	"only": true, "must": true, "cannot": true, "could": true, "should": true, "value": true, "values": true, "line": true, "with": true,
	"from": true, "that": true, "this": true, "there": true, "have": true, "more": true, "than": true, "unable": true, "provisioning": true,
	"parse": true, "parsing": true, "load": true, "loading": true, "read": true, "reading": true, "fatal": true, "exception": true,
	"name": true, "type": true, "true": true, "false": true, "null": true, "none": true, "allowed": true, "expected": true, "found": true,
	"not": true, "the": true, "and": true, "for": true, "are": true, "can": true, "one": true, "per": true, "use": true, "want": true,
	"you": true, "your": true, "yaml": true, "json": true, "unmarshal": true, "field": true, "flag": true, "set": true, "key": true,
}

// keyWords are a key's lowercase words (camelCase, snake_case, dotted and
// dashed), of three letters or more.
func keyWords(key string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		for _, w := range camelRe.FindAllString(part, -1) {
			if len(w) >= 3 {
				out = append(out, strings.ToLower(w))
			}
		}
	}
	return out
}

// salientLines are the setting lines of a file the error is about: those
// sharing the most words with it, a key's heading above it counting too
// (identical lines grouped with their line numbers), at most five. For
// "Only one datasource per organization can be marked as default" that is
// `"isDefault: true" (lines 8, 24)`; for "field enabled not found in type
// aggregation.Config" the enabled under metric_aggregation, not every
// enabled. The words of the file's path and name, and words that only say
// that something failed, are not salient; nothing is quoted when no line
// shares a word.
func salientLines(content, errLine string, exclude ...string) []string {
	skip := map[string]bool{}
	for _, e := range exclude {
		for _, w := range wordRe.FindAllString(e, -1) {
			for _, kw := range append(keyWords(w), strings.ToLower(w)) {
				skip[kw] = true
			}
		}
	}
	words := map[string]bool{}
	for _, w := range wordRe.FindAllString(errLine, -1) {
		for _, kw := range append(keyWords(w), strings.ToLower(w)) {
			if !commonWords[kw] && !skip[kw] {
				words[kw] = true
			}
		}
	}
	score := func(key string) int {
		n := 0
		if words[strings.ToLower(key)] {
			n++
		}
		for _, kw := range keyWords(key) {
			if words[kw] {
				n++
			}
		}
		return n
	}
	type heading struct {
		indent int
		key    string
	}
	type group struct {
		text  string
		under string // the heading whose words count too
		lines []string
		score int
	}
	var stack []heading
	var groups []*group
	best := 0
	for i, l := range strings.Split(content, "\n") {
		if m := sectionRe.FindStringSubmatch(l); m != nil {
			stack = []heading{{-1, m[1]}}
			continue
		}
		m := settingLineRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		indent, key, value := len(m[1]), m[2], m[3]
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		if value == "" || value == "{" || value == "[" {
			stack = append(stack, heading{indent, key})
			continue
		}
		own := score(key)
		if own == 0 {
			continue // a heading's word alone does not make its every key salient
		}
		under := ""
		if len(stack) > 0 {
			if n := score(stack[len(stack)-1].key); n > 0 {
				own, under = own+n, stack[len(stack)-1].key
			}
		}
		best = max(best, own)
		text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		if j := slices.IndexFunc(groups, func(g *group) bool { return g.text == text && g.under == under }); j >= 0 {
			groups[j].lines = append(groups[j].lines, fmt.Sprint(i+1))
			continue
		}
		groups = append(groups, &group{text, under, []string{fmt.Sprint(i + 1)}, own})
	}
	var out []string
	for _, g := range groups {
		if g.score < best {
			continue
		}
		at := "line " + g.lines[0]
		if len(g.lines) > 1 {
			at = "lines " + strings.Join(g.lines, ", ")
		}
		if g.under != "" {
			at += ", under " + g.under
		}
		out = append(out, fmt.Sprintf("%q (%s)", g.text, at))
		if len(out) == 5 {
			break
		}
	}
	return out
}
