package registry

import (
	"slices"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

// TestPodLevel pins workload.PodLevel, the rules the workload and batch
// rules require to quote a pod's own cause, to the registry's
// declarations: it holds exactly the registered rules that explain a pod
// on its own — in the pod, placement or infrastructure layer, for a target
// of any kind, reading no other rule's findings. A pod rule added to the
// registry and not to PodLevel (or the reverse) fails here.
func TestPodLevel(t *testing.T) {
	podLevel := func(r *rule.Rule) bool {
		switch r.Layer {
		case rule.PodLayer, rule.PlacementLayer, rule.InfrastructureLayer:
			return r.Kinds == nil && len(r.Requires) == 0
		}
		return false
	}
	for _, r := range Rules {
		if in := slices.Contains(workload.PodLevel, r); in != podLevel(r) {
			if in {
				t.Errorf("workload.PodLevel lists %s (layer %s, kinds %v, requires %d), which does not explain a pod on its own", r.ID, r.Layer, r.Kinds, len(r.Requires))
			} else {
				t.Errorf("workload.PodLevel lacks %s (layer %s, any kind, requires nothing): add it there", r.ID, r.Layer)
			}
		}
	}
	for _, r := range workload.PodLevel {
		if !slices.Contains(Rules, r) {
			t.Errorf("workload.PodLevel lists %s, which is not in the registry", r.ID)
		}
	}
}
