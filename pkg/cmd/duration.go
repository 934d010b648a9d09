package cmd

import (
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// secondsOrDuration is a duration flag that also takes a bare number of
// seconds, the way the seeds' AGENT_TIMEOUT=300 is written.
type secondsOrDuration time.Duration

var _ pflag.Value = (*secondsOrDuration)(nil)

func (d *secondsOrDuration) Set(s string) error {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		*d = secondsOrDuration(time.Duration(n * float64(time.Second)))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = secondsOrDuration(v)
	return nil
}

func (d *secondsOrDuration) String() string { return time.Duration(*d).String() }
func (d *secondsOrDuration) Type() string   { return "duration" }

// durationVar registers a secondsOrDuration flag bound to p.
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var((*secondsOrDuration)(p), name, usage)
}
