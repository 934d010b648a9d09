package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// checkedString is a string flag whose value is checked as it is set, so a
// bad value is reported where it came from: the flag, the environment
// variable, or the config file's line.
type checkedString struct {
	p     *string
	check func(string) error
}

var _ pflag.Value = (*checkedString)(nil)

func (c *checkedString) Set(s string) error {
	if err := c.check(s); err != nil {
		return err
	}
	*c.p = s
	return nil
}

func (c *checkedString) String() string { return *c.p }
func (c *checkedString) Type() string   { return "string" }

// choiceVar registers a string flag that takes one of choices.
func choiceVar(f *pflag.FlagSet, p *string, name, value string, choices []string, usage string) {
	choiceVarP(f, p, name, "", value, choices, usage)
}

// choiceVarP is choiceVar with a shorthand.
func choiceVarP(f *pflag.FlagSet, p *string, name, shorthand, value string, choices []string, usage string) {
	*p = value
	f.VarP(&checkedString{p: p, check: func(s string) error {
		for _, c := range choices {
			if s == c {
				return nil
			}
		}
		return fmt.Errorf("want one of %s", strings.Join(choices, ", "))
	}}, name, shorthand, usage)
}

// checkedVar registers a string flag whose values check accepts.
func checkedVar(f *pflag.FlagSet, p *string, name, value string, check func(string) error, usage string) {
	*p = value
	f.Var(&checkedString{p: p, check: check}, name, usage)
}
