package cmd

import (
	"testing"
	"time"
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
