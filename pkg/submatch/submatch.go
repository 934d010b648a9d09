// Package submatch reads a regular expression's match by the names of its
// capture groups ((?P<host>…)), so a table row's expression can gain or
// lose a group without every reader's index shifting.
package submatch

import "regexp"

// Match is one match of an expression.
type Match struct {
	re *regexp.Regexp
	m  []string
}

// Find is the leftmost match of re in s; ok is false when there is none.
func Find(re *regexp.Regexp, s string) (m Match, ok bool) {
	sub := re.FindStringSubmatch(s)
	if sub == nil {
		return Match{}, false
	}
	return Match{re, sub}, true
}

// FindAll is every successive match of re in s, at most n when n >= 0.
func FindAll(re *regexp.Regexp, s string, n int) []Match {
	all := re.FindAllStringSubmatch(s, n)
	if all == nil {
		return nil
	}
	out := make([]Match, len(all))
	for i, sub := range all {
		out[i] = Match{re, sub}
	}
	return out
}

// Get is the text of the group called name: "" when it took no part in
// the match. Alternatives may each define the group (`exec "(?P<cmd>…)"|
// sh: (?P<cmd>…): not found`): the one that matched is read. A name the
// expression does not define is a programming error, like an index out of
// range, and panics.
func (m Match) Get(name string) string {
	found := false
	for i, n := range m.re.SubexpNames() {
		if n != name {
			continue
		}
		if m.m[i] != "" {
			return m.m[i]
		}
		found = true
	}
	if !found {
		panic("submatch: " + m.re.String() + " has no group " + name)
	}
	return ""
}

// Whole is the text the whole expression matched.
func (m Match) Whole() string { return m.m[0] }
