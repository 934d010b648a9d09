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
