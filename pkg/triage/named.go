package triage

import (
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/target"
)

// A named target is a resource a user (the one-shot command) or an
// assistant (the MCP server's triage tool) names, rather than one a fault
// event reports: both resolve it and stand a fault for it the same way, so
// their incidents are alike.

// ResolveNamed resolves the resource args name (TYPE/NAME, TYPE NAME or a
// pod NAME) in namespace ns, the way kubectl resolves its arguments.
func ResolveNamed(getter kubeflags.RESTClientGetter, ns string, args []string, p progress.Func) (*target.Target, error) {
	if _, err := target.Normalize(args); err != nil {
		return nil, err
	}
	p.Printf("Resolving %s in namespace %s", strings.Join(args, " "), ns)
	return target.Resolve(getter, ns, args)
}

// NamedFault is the fault event a triage of a named target stands for: no
// event reported it, so one is synthesized from the object's state
// (fault.Classify), on the cluster info names.
func NamedFault(info bundle.ClusterInfo, t *target.Target, now time.Time) (*fault.Event, error) {
	faultType, severity, message := fault.Classify(t.Object)
	return fault.Synthesize(info.Name(), t.Ref(), faultType, severity, message, now)
}
