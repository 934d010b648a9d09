package kube

import (
	"strings"
	"testing"
)

func TestExitCodeTable(t *testing.T) {
	for code, want := range map[int32]string{0: "success", 1: "general", 2: "invalid", 126: "not executable", 127: "not found", 137: "SIGKILL", 139: "SIGSEGV", 143: "SIGTERM", 134: "SIGABRT", 131: "signal 3", 42: "exit code 42",
		64: "EX_USAGE", 78: "EX_CONFIG"} { // sysexits.h; Elasticsearch ExitCodes.CONFIG = 78
		if got := ExplainExit(code).Meaning; !strings.Contains(got, want) {
			t.Errorf("exit %d: %q lacks %q", code, got, want)
		}
	}
}
