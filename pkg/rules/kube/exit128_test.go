package kube

import (
	"strings"
	"testing"
)

func TestExitCode128(t *testing.T) {
	if got := ExplainExit(128).Meaning; !strings.Contains(got, "could not start") {
		t.Errorf("exit 128: %q", got)
	}
}
