package agent

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
)

// TestWeakerSandboxSaysWhatIsNotContained: where no network namespace can
// be made (a kernel without user namespaces), bwrap is the fallback, and
// what it leaves open is said in the sandbox field that incident.json and
// the report's footer carry; --require-sandbox refuses it rather than run
// an agent whose network is not contained, and with neither, auto mode
// says why there is none.
func TestWeakerSandboxSaysWhatIsNotContained(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the namespace sandbox and its bwrap fallback are Linux's")
	}
	noNamespaces := func() error { return errors.New("user namespaces are disabled") }
	for _, tc := range []struct {
		name     string
		policy   SandboxPolicy
		bwrap    bool
		sandbox  string // prefix of Sandbox()
		contains string
		refused  bool
	}{
		{"auto with bwrap", SandboxAuto, true, "bwrap (not contained: ", "the network (bwrap shares the host's)", false},
		{"required with bwrap", SandboxRequired, true, "", "no sandbox can be made here: user namespaces are disabled", true},
		{"auto without bwrap", SandboxAuto, false, "none: ", "user namespaces are disabled; bwrap is not installed", false},
		{"namespaces", SandboxRequired, false, "namespaces", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			fakeCLI(t, h.bin, "claude", "exit 0")
			if tc.bwrap {
				fakeCLI(t, h.bin, "bwrap", "exit 0")
			}
			e := h.exec(streamDef("claude"))
			e.Isolation = tc.policy
			e.Probe = noNamespaces
			if tc.name == "namespaces" {
				e.Probe = func() error { return nil }
			}
			err := e.Preflight()
			if tc.refused {
				if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), tc.contains) {
					t.Fatalf("--require-sandbox with only bwrap: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := e.Sandbox()
			if !strings.HasPrefix(got, tc.sandbox) || !strings.Contains(got, tc.contains) {
				t.Errorf("Sandbox() = %q, want %q… with %q", got, tc.sandbox, tc.contains)
			}
			if e.contained() != (got == sandbox.ModeNamespaces) {
				t.Errorf("contained() = %v for %q", e.contained(), got)
			}
		})
	}
}
