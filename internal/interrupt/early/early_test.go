package early

import (
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
)

func TestSandboxInitArg(t *testing.T) {
	if sandboxInitArg != sandbox.InitArg {
		t.Errorf("sandboxInitArg %q, sandbox.InitArg %q: the sandbox's processes would catch signals early", sandboxInitArg, sandbox.InitArg)
	}
}
