// kubectl-triage is the kubectl plugin `kubectl triage`.
package main

import (
	"os"

	// Catches Ctrl-C from the first milliseconds, while the packages below
	// initialise; Execute's context picks up a signal caught then.
	_ "github.com/kubectl-triage/kubectl-triage/internal/interrupt/early"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
