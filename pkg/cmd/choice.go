package cmd

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// checkedString is a string flag value that check accepts.
func checkedString(p *string, check func(string) error) *checked[string] {
	parse := func(s string) (string, error) { return s, nil }
	return &checked[string]{p: p, parse: parse, check: check, format: func(s string) string { return s }, typ: "string"}
}

// choiceVar registers a string flag that takes one of choices.
func choiceVar(f *pflag.FlagSet, p *string, name, value string, choices []string, usage string) {
	choiceVarP(f, p, name, "", value, choices, usage)
}

// choiceVarP is choiceVar with a shorthand.
func choiceVarP(f *pflag.FlagSet, p *string, name, shorthand, value string, choices []string, usage string) {
	*p = value
	want := choicesText(choices)
	f.VarP(checkedString(p, func(s string) error {
		if slices.Contains(choices, s) {
			return nil
		}
		return errors.New(want)
	}), name, shorthand, usage)
}

// choicesText is the error for a value not among choices: "want one of
// text, json", or, when "" is a choice (unset: decided later), "want mcp or
// cluster (or leave it unset)".
func choicesText(choices []string) string {
	var named []string
	unset := ""
	for _, c := range choices {
		if c == "" {
			unset = " (or leave it unset)"
			continue
		}
		named = append(named, c)
	}
	switch {
	case len(named) == 1:
		return "want " + named[0] + unset
	case len(named) == 2 && unset != "":
		return "want " + named[0] + " or " + named[1] + unset
	}
	return "want one of " + strings.Join(named, ", ") + unset
}

// checkedVar registers a string flag whose values check accepts.
func checkedVar(f *pflag.FlagSet, p *string, name, value string, check func(string) error, usage string) {
	*p = value
	f.Var(checkedString(p, check), name, usage)
}
