// kubectl-triage is the kubectl plugin `kubectl triage`.
package main

import (
	"os"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
