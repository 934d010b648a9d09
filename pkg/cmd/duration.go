package cmd

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// The flag values here check their value as it is set, so a bad one is
// reported where it came from: the flag, the environment variable, or the
// config file's line. Each is a config.Scratcher, so the config file's
// values are checked before any command runs.

var (
	errNotPositive = errors.New("must be positive")
	errNegative    = errors.New("must not be negative")
)

// checked is a flag value that parse reads and check (when set) accepts.
type checked[T any] struct {
	p      *T
	parse  func(string) (T, error)
	check  func(T) error
	format func(T) string
	typ    string // what --help calls it: duration, int, string
}

var _ pflag.Value = (*checked[int])(nil)

func (c *checked[T]) Set(s string) error {
	v, err := c.parse(s)
	if err != nil {
		return err
	}
	if c.check != nil {
		if err := c.check(v); err != nil {
			return err
		}
	}
	*c.p = v
	return nil
}

func (c *checked[T]) String() string { return c.format(*c.p) }
func (c *checked[T]) Type() string   { return c.typ }

// Scratch is a new value with the same parse and check, for
// config.Validate to try values on without setting the flag.
func (c *checked[T]) Scratch() pflag.Value {
	s := *c
	s.p = new(T)
	return &s
}

// durationValue is a duration flag value read by parse, accepted by check.
func durationValue(p *time.Duration, parse func(string) (time.Duration, error), check func(time.Duration) error) *checked[time.Duration] {
	return &checked[time.Duration]{p: p, parse: parse, check: check, format: time.Duration.String, typ: "duration"}
}

// positiveDurationValue takes a duration or, as existing deployments write
// AGENT_TIMEOUT=300, a number of seconds, and must be positive, as a timeout must.
func positiveDurationValue(p *time.Duration) *checked[time.Duration] {
	return durationValue(p, parseSecondsOrDuration, func(d time.Duration) error {
		if d <= 0 {
			return errNotPositive
		}
		return nil
	})
}

// nonNegativeDurationValue takes a duration as pflag's duration flags do,
// and must not be negative; 0 usually turns something off.
func nonNegativeDurationValue(p *time.Duration) *checked[time.Duration] {
	return durationValue(p, time.ParseDuration, func(d time.Duration) error {
		if d < 0 {
			return errNegative
		}
		return nil
	})
}

// parseSecondsOrDuration parses "10m" or "1h30m" as time.ParseDuration
// does, and a bare number as seconds: "300", "1.5".
func parseSecondsOrDuration(s string) (time.Duration, error) {
	n, err := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, errDurationRange
	case err != nil:
		return time.ParseDuration(s)
	case math.IsNaN(n) || math.IsInf(n, 0):
		return 0, fmt.Errorf("want a duration such as 10m or a number of seconds, not %q", s)
	}
	ns := n * float64(time.Second)
	// float64(math.MaxInt64) rounds up to 2^63, itself out of range.
	if ns >= float64(math.MaxInt64) || ns < float64(math.MinInt64) {
		return 0, errDurationRange
	}
	return time.Duration(ns), nil
}

var errDurationRange = fmt.Errorf("out of range: a duration is at most %s", time.Duration(math.MaxInt64))

// intValue is an int flag value accepted by check.
func intValue(p *int, check func(int) error) *checked[int] {
	parse := func(s string) (int, error) {
		v, err := strconv.ParseInt(s, 0, strconv.IntSize)
		return int(v), err
	}
	return &checked[int]{p: p, parse: parse, check: check, format: strconv.Itoa, typ: "int"}
}

func positiveIntValue(p *int) *checked[int] {
	return intValue(p, func(n int) error {
		if n <= 0 {
			return errNotPositive
		}
		return nil
	})
}

func nonNegativeIntValue(p *int) *checked[int] {
	return intValue(p, func(n int) error {
		if n < 0 {
			return errNegative
		}
		return nil
	})
}

// positiveDurationVar registers a positive duration flag bound to p.
func positiveDurationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var(positiveDurationValue(p), name, usage)
}

// nonNegativeDurationVar registers a non-negative duration flag bound to p.
func nonNegativeDurationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var(nonNegativeDurationValue(p), name, usage)
	hideZeroDefault(f, name)
}

// positiveIntVar registers a positive int flag bound to p.
func positiveIntVar(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	f.Var(positiveIntValue(p), name, usage)
}

// nonNegativeIntVar registers a non-negative int flag bound to p.
func nonNegativeIntVar(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	f.Var(nonNegativeIntValue(p), name, usage)
}

// hideZeroDefault keeps --help from showing "(default 0s)", as it does
// not for pflag's own duration flags: it recognizes a zero default of a
// custom type only when written "0".
func hideZeroDefault(f *pflag.FlagSet, name string) {
	if fl := f.Lookup(name); fl.DefValue == "0s" {
		fl.DefValue = "0"
	}
}
