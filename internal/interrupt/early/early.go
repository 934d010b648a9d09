// Package early catches SIGINT and SIGTERM while the rest of the program
// initialises (see package interrupt). Only the plugin's main imports it: a
// test binary importing pkg/cmd must still die on Ctrl-C. The same binary
// started as the agent sandbox's init or supervisor handles signals its own
// way from the start (forwarding them to the agent), so it is left alone.
package early

import (
	"os"

	"github.com/kubectl-triage/kubectl-triage/internal/interrupt"
)

// sandboxInitArg is sandbox.InitArg, the first argument of the sandbox's
// processes (early_test.go keeps them equal): importing pkg/sandbox would
// initialise this package after hundreds of others.
const sandboxInitArg = "__sandbox-init"

func init() {
	if len(os.Args) < 2 || os.Args[1] != sandboxInitArg {
		interrupt.Catch()
	}
}
