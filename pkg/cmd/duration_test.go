package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestSecondsOrDuration(t *testing.T) {
	cases := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"300", 5 * time.Minute, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"10m", 10 * time.Minute, false},
		{"1h30m", 90 * time.Minute, false},
		{"ten", 0, true},
		{"", 0, true},
	}
	for _, c := range cases {
		var d time.Duration
		err := (*secondsOrDuration)(&d).Set(c.in)
		if (err != nil) != c.wantErr || (!c.wantErr && d != c.want) {
			t.Errorf("Set(%q) = %v, %v; want %v (error %v)", c.in, d, err, c.want, c.wantErr)
		}
	}
}

func TestChoiceVar(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var v string
	choiceVar(fs, &v, "overflow", "drop-oldest", []string{"drop-oldest", "drop-new"}, "")
	if v != "drop-oldest" {
		t.Errorf("default %q", v)
	}
	if err := fs.Set("overflow", "drop-new"); err != nil || v != "drop-new" {
		t.Errorf("Set(drop-new) = %v, value %q", err, v)
	}
	if err := fs.Set("overflow", "drop-all"); err == nil || !strings.Contains(err.Error(), "want one of drop-oldest, drop-new") || v != "drop-new" {
		t.Errorf("Set(drop-all) = %v, value %q", err, v)
	}
}
