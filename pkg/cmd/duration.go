package cmd

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// The flag values here check their range as they are set, so a value out
// of range is reported where it came from: the flag, the environment
// variable, or the config file's line. Each is a config.Scratcher, so the
// config file's values are checked before any command runs.

var (
	errNotPositive = errors.New("must be positive")
	errNegative    = errors.New("must not be negative")
)

// secondsOrDuration is a duration flag that also takes a bare number of
// seconds, the way the seeds' AGENT_TIMEOUT=300 is written.
type secondsOrDuration time.Duration

var _ pflag.Value = (*secondsOrDuration)(nil)

func (d *secondsOrDuration) Set(s string) error {
	v, err := parseSecondsOrDuration(s)
	if err != nil {
		return err
	}
	*d = secondsOrDuration(v)
	return nil
}

func (d *secondsOrDuration) String() string       { return time.Duration(*d).String() }
func (d *secondsOrDuration) Type() string         { return "duration" }
func (d *secondsOrDuration) Scratch() pflag.Value { return new(secondsOrDuration) }

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

// positiveDuration is a secondsOrDuration that must be positive, as a
// timeout must.
type positiveDuration time.Duration

var _ pflag.Value = (*positiveDuration)(nil)

func (d *positiveDuration) Set(s string) error {
	v, err := parseSecondsOrDuration(s)
	if err != nil {
		return err
	}
	if v <= 0 {
		return errNotPositive
	}
	*d = positiveDuration(v)
	return nil
}

func (d *positiveDuration) String() string       { return time.Duration(*d).String() }
func (d *positiveDuration) Type() string         { return "duration" }
func (d *positiveDuration) Scratch() pflag.Value { return new(positiveDuration) }

// positiveDurationVar registers a positiveDuration flag bound to p.
func positiveDurationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var((*positiveDuration)(p), name, usage)
}

// nonNegativeDuration is a duration, as pflag's duration flags take it,
// that must not be negative; 0 usually turns something off.
type nonNegativeDuration time.Duration

var _ pflag.Value = (*nonNegativeDuration)(nil)

func (d *nonNegativeDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if v < 0 {
		return errNegative
	}
	*d = nonNegativeDuration(v)
	return nil
}

func (d *nonNegativeDuration) String() string       { return time.Duration(*d).String() }
func (d *nonNegativeDuration) Type() string         { return "duration" }
func (d *nonNegativeDuration) Scratch() pflag.Value { return new(nonNegativeDuration) }

// nonNegativeDurationVar registers a nonNegativeDuration flag bound to p.
func nonNegativeDurationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var((*nonNegativeDuration)(p), name, usage)
	hideZeroDefault(f, name)
}

// positiveInt is an int flag that must be positive.
type positiveInt int

var _ pflag.Value = (*positiveInt)(nil)

func (n *positiveInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return err
	}
	if v <= 0 {
		return errNotPositive
	}
	*n = positiveInt(v)
	return nil
}

func (n *positiveInt) String() string       { return strconv.Itoa(int(*n)) }
func (n *positiveInt) Type() string         { return "int" }
func (n *positiveInt) Scratch() pflag.Value { return new(positiveInt) }

// positiveIntVar registers a positiveInt flag bound to p.
func positiveIntVar(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	f.Var((*positiveInt)(p), name, usage)
}

// nonNegativeInt is an int flag that must not be negative.
type nonNegativeInt int

var _ pflag.Value = (*nonNegativeInt)(nil)

func (n *nonNegativeInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return err
	}
	if v < 0 {
		return errNegative
	}
	*n = nonNegativeInt(v)
	return nil
}

func (n *nonNegativeInt) String() string       { return strconv.Itoa(int(*n)) }
func (n *nonNegativeInt) Type() string         { return "int" }
func (n *nonNegativeInt) Scratch() pflag.Value { return new(nonNegativeInt) }

// nonNegativeIntVar registers a nonNegativeInt flag bound to p.
func nonNegativeIntVar(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	f.Var((*nonNegativeInt)(p), name, usage)
}

// hideZeroDefault keeps --help from showing "(default 0s)", as it does
// not for pflag's own duration flags: it recognizes a zero default of a
// custom type only when written "0".
func hideZeroDefault(f *pflag.FlagSet, name string) {
	if fl := f.Lookup(name); fl.DefValue == "0s" {
		fl.DefValue = "0"
	}
}
