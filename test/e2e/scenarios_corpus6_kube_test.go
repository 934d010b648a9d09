package e2e

import (
	"os"
)

// A sixth batch of Kubernetes-side scenarios from real material (an
// object's status and the controllers', scheduler's and kubelet's events
// say why), with healthy controls and red herrings. Each cites its source.
// All of them are captured into test/scenarios now (the first round's
// misses after the checks they lacked were added); new ones start here.

func init() {
	register(c6Kube...)
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c6KubeMisses...)
	}
}

// c6Kube are the batch's scenarios before capture (hits are captured and
// removed from here).
var c6Kube = []scenario{}

// c6KubeMisses are the batch's misses, commented with what the report
// says today and the general check it lacks.
var c6KubeMisses = []scenario{}
