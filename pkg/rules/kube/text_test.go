package kube

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 30 * time.Second: "30s", 5 * time.Minute: "5m", 3 * time.Hour: "3h",
		3*time.Hour + 20*time.Minute: "3h20m", 72 * time.Hour: "3d", 75 * time.Hour: "3d3h"} {
		if got := HumanDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

func TestShorten(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer script line", 10, "a longe..."},
		{"héllo wörld, ünïcode", 8, "héllo..."}, // cut on runes, never inside one
	} {
		if got := Shorten(tt.in, tt.n); got != tt.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
