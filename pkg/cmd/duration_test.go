package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
)

func TestDurationValues(t *testing.T) {
	const (
		invalid    = `time: invalid duration`
		missing    = `time: missing unit in duration`
		unit       = `time: unknown unit`
		notFinite  = `want a duration such as 10m or a number of seconds`
		outOfRange = `out of range: a duration is at most 2562047h47m16.854775807s`
		positive   = `must be positive`
		negative   = `must not be negative`
	)
	type value interface {
		pflag.Value
		config.Scratcher
	}
	types := []struct {
		name string
		new  func(*time.Duration) value
	}{
		{"secondsOrDuration", func(p *time.Duration) value { return durationValue(p, parseSecondsOrDuration, nil) }},
		{"positiveDuration", func(p *time.Duration) value { return positiveDurationValue(p) }},
		{"nonNegativeDuration", func(p *time.Duration) value { return nonNegativeDurationValue(p) }},
	}
	cases := []struct {
		in   string
		want time.Duration
		errs [3]string // per type, in the order of types; "" for no error
	}{
		{in: "300", want: 5 * time.Minute, errs: [3]string{"", "", missing}},
		{in: "1.5", want: 1500 * time.Millisecond, errs: [3]string{"", "", missing}},
		{in: "10m", want: 10 * time.Minute},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "0", want: 0, errs: [3]string{"", positive, ""}},
		{in: "0s", want: 0, errs: [3]string{"", positive, ""}},
		{in: "-1s", want: -time.Second, errs: [3]string{"", positive, negative}},
		{in: "-300", want: -5 * time.Minute, errs: [3]string{"", positive, missing}},
		{in: "NaN", errs: [3]string{notFinite, notFinite, invalid}},
		{in: "inf", errs: [3]string{notFinite, notFinite, invalid}},
		{in: "-Inf", errs: [3]string{notFinite, notFinite, invalid}},
		{in: "1e12", errs: [3]string{outOfRange, outOfRange, unit}},
		{in: "-1e12", errs: [3]string{outOfRange, outOfRange, unit}},
		{in: "1e400", errs: [3]string{outOfRange, outOfRange, unit}},
		{in: "9223372036.854775807", errs: [3]string{outOfRange, outOfRange, missing}},
		{in: "9223372036", want: 9223372036 * time.Second, errs: [3]string{"", "", missing}},
		{in: "3000000h", errs: [3]string{invalid, invalid, invalid}},
		{in: "ten", errs: [3]string{invalid, invalid, invalid}},
		{in: "", errs: [3]string{invalid, invalid, invalid}},
	}
	for i, typ := range types {
		for _, c := range cases {
			t.Run(typ.name+"/"+c.in, func(t *testing.T) {
				const before = 42 * time.Second
				d := before
				v := typ.new(&d)
				err := v.Set(c.in)
				if want := c.errs[i]; want != "" {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("Set(%q) error = %v, want %q", c.in, err, want)
					}
					if d != before {
						t.Errorf("Set(%q) failed but changed the value to %v", c.in, d)
					}
					return
				}
				if err != nil || d != c.want {
					t.Fatalf("Set(%q) = %v, %v; want %v", c.in, d, err, c.want)
				}
				if v.Type() != "duration" || v.String() != c.want.String() {
					t.Errorf("Type(), String() = %q, %q; want duration, %q", v.Type(), v.String(), c.want)
				}
				// A scratch value checks alike and leaves the flag alone.
				s := v.Scratch()
				if err := s.Set("-1s"); (err != nil) != (i > 0) {
					t.Errorf("Scratch().Set(-1s) error = %v, want one: %v", err, i > 0)
				}
				if d != c.want {
					t.Errorf("setting the scratch value changed the flag to %v", d)
				}
			})
		}
	}
}

func TestIntValues(t *testing.T) {
	const (
		syntax   = `strconv.ParseInt: parsing`
		positive = `must be positive`
		negative = `must not be negative`
	)
	type value interface {
		pflag.Value
		config.Scratcher
	}
	types := []struct {
		name string
		new  func(*int) value
	}{
		{"positiveInt", func(p *int) value { return positiveIntValue(p) }},
		{"nonNegativeInt", func(p *int) value { return nonNegativeIntValue(p) }},
	}
	cases := []struct {
		in   string
		want int
		errs [2]string
	}{
		{in: "100", want: 100},
		{in: "0x10", want: 16},
		{in: "1", want: 1},
		{in: "0", want: 0, errs: [2]string{positive, ""}},
		{in: "-1", errs: [2]string{positive, negative}},
		{in: "99999999999999999999", errs: [2]string{syntax, syntax}},
		{in: "1.5", errs: [2]string{syntax, syntax}},
		{in: "lots", errs: [2]string{syntax, syntax}},
		{in: "", errs: [2]string{syntax, syntax}},
	}
	for i, typ := range types {
		for _, c := range cases {
			t.Run(typ.name+"/"+c.in, func(t *testing.T) {
				n := 42
				v := typ.new(&n)
				err := v.Set(c.in)
				if want := c.errs[i]; want != "" {
					if err == nil || !strings.Contains(err.Error(), want) || n != 42 {
						t.Fatalf("Set(%q) = %d, %v; want error %q and 42 kept", c.in, n, err, want)
					}
					return
				}
				if err != nil || n != c.want || v.String() != strconv.Itoa(c.want) || v.Type() != "int" {
					t.Fatalf("Set(%q) = %d, %v (String %q, Type %q); want %d", c.in, n, err, v.String(), v.Type(), c.want)
				}
				if err := v.Scratch().Set("-1"); err == nil || n != c.want {
					t.Errorf("Scratch().Set(-1) = %v and the flag is %d; want an error and %d", err, n, c.want)
				}
			})
		}
	}
}

// A zero default of a non-negative duration reads as pflag's own: no
// "(default 0s)" in --help.
func TestRangeFlagsHelp(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var retention, window time.Duration
	var incidents int
	nonNegativeDurationVar(fs, &retention, "retention", 0, "Keep this long (0: keep all)")
	nonNegativeDurationVar(fs, &window, "dedup-window", 15*time.Minute, "Window")
	nonNegativeIntVar(fs, &incidents, "max-incidents", 0, "Stop after this many")
	usage := fs.FlagUsages()
	for _, want := range []string{"--retention duration ", "--dedup-window duration ", "(default 15m0s)", "--max-incidents int "} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q:\n%s", want, usage)
		}
	}
	if strings.Contains(usage, "(default 0") {
		t.Errorf("usage shows a zero default:\n%s", usage)
	}
}

func TestChoiceVar(t *testing.T) {
	cases := []struct {
		choices []string
		bad     string
		want    string
	}{
		{[]string{"drop-oldest", "drop-new"}, "drop-all", "want one of drop-oldest, drop-new"},
		{[]string{"faults", "resource-faults", "events"}, "all", "want one of faults, resource-faults, events"},
		{[]string{"", "mcp", "cluster"}, "api", "want mcp or cluster (or leave it unset)"},
		{[]string{"", "a", "b", "c"}, "d", "want one of a, b, c (or leave it unset)"},
		{[]string{"", "on"}, "off", "want on (or leave it unset)"},
	}
	for _, c := range cases {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		var v string
		choiceVar(fs, &v, "choice", c.choices[1], c.choices, "")
		if v != c.choices[1] {
			t.Errorf("%q: default %q", c.choices, v)
		}
		for _, good := range c.choices {
			if err := fs.Set("choice", good); err != nil || v != good {
				t.Errorf("%q: Set(%q) = %v, value %q", c.choices, good, err, v)
			}
		}
		if err := fs.Set("choice", c.bad); err == nil || !strings.HasSuffix(err.Error(), ": "+c.want) || v != c.choices[len(c.choices)-1] {
			t.Errorf("%q: Set(%q) = %v, value %q; want error %q", c.choices, c.bad, err, v, c.want)
		}
		// The scratch value config.Validate uses checks alike and leaves
		// the flag alone.
		s := fs.Lookup("choice").Value.(config.Scratcher).Scratch()
		if err := s.Set(c.bad); err == nil || err.Error() != c.want {
			t.Errorf("%q: Scratch().Set(%q) = %v, want %q", c.choices, c.bad, err, c.want)
		}
		if err := s.Set(c.choices[1]); err != nil || s.String() != c.choices[1] || v != c.choices[len(c.choices)-1] {
			t.Errorf("%q: Scratch().Set(%q) = %v, String %q, flag %q", c.choices, c.choices[1], err, s.String(), v)
		}
	}
}

// TestRangeErrorsNameTheirSource: a value out of range names where it came
// from, and one in the watch section fails every command up front.
func TestRangeErrorsNameTheirSource(t *testing.T) {
	cases := []struct {
		name string
		file string
		env  map[string]string
		args []string
		want string
	}{
		{"env", "", map[string]string{"AGENT_TIMEOUT": "0"}, []string{"pod/x"}, `invalid AGENT_TIMEOUT="0": must be positive`},
		{"env seconds", "", map[string]string{"AGENT_TIMEOUT": "-300"}, []string{"pod/x"}, `invalid AGENT_TIMEOUT="-300": must be positive`},
		{"env NaN", "", map[string]string{"AGENT_TIMEOUT": "NaN"}, []string{"pod/x"}, `invalid AGENT_TIMEOUT="NaN": want a duration`},
		{"flag", "", nil, []string{"pod/x", "--timeout", "-1s"}, `invalid argument "-1s" for "--timeout" flag: must be positive`},
		{"file", "timeout: 0\n", nil, []string{"pod/x"}, `config file PATH line 1: timeout: invalid value "0": must be positive`},
		{"watch section, another command", "watch:\n  max-queue: 0\n", nil, []string{"list"}, `config file PATH line 2: watch.max-queue: invalid value "0": must be positive`},
		{"watch section", "watch:\n  max-incidents: -1\n", nil, []string{"watch"}, `config file PATH line 2: watch.max-incidents: invalid value "-1": must not be negative`},
		{"top level for watch", "retention: -1h\n", nil, []string{"pod/x"}, `config file PATH line 1: retention: invalid value "-1h" for kubectl triage watch: must not be negative`},
		{"wait-delay", "watch:\n  wait-delay: 0s\n", nil, []string{"pod/x"}, `config file PATH line 2: watch.wait-delay: invalid value "0s": must be positive`},
		{"choice in the watch section", "watch:\n  overflow: drop-all\n", nil, []string{"list"}, `config file PATH line 2: watch.overflow: invalid value "drop-all"`},
		{"source", "watch:\n  source: api\n", nil, []string{"list"}, `config file PATH line 2: watch.source: invalid value "api": want mcp or cluster (or leave it unset)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", dir)
			t.Setenv("KUBECTL_TRIAGE_CONFIG", "")
			t.Setenv("AGENT_TIMEOUT", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			p := filepath.Join(dir, "kubectl-triage", "config.yaml")
			if tc.file != "" {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var out, errOut bytes.Buffer
			code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
				append([]string{"--kubeconfig", filepath.Join(dir, "missing-kubeconfig"), "--workspace-root", filepath.Join(dir, "ws")}, tc.args...))
			want := strings.ReplaceAll(tc.want, "PATH", p)
			if code != ExitError || !strings.Contains(errOut.String(), want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut.String(), ExitError, want)
			}
		})
	}
}
