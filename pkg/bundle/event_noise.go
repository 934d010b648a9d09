package bundle

import corev1 "k8s.io/api/core/v1"

// The apiserver's allocator repair loops (ipallocator-repair-controller,
// portallocator-repair-controller) reconcile a Service's cluster IP and node
// ports against their allocation maps and say so in a Warning on the Service
// ("Cluster IP ... is not allocated; repairing"). They speak of the
// apiserver's own bookkeeping, which they have already repaired; no triage
// can act on them and no other controller's failure is in them.
var (
	selfRepairComponents = map[string]bool{
		"ipallocator-repair-controller":   true,
		"portallocator-repair-controller": true,
	}
	selfRepairReasons = map[string]bool{
		"ClusterIPNotAllocated":   true,
		"ClusterIPNotAllocatedV2": true,
		"PortNotAllocated":        true,
	}
)

// SelfRepair reports whether e is the apiserver's note about repairing its
// own allocation state, not a controller's report on the object.
func SelfRepair(e *corev1.Event) bool {
	return selfRepairReasons[e.Reason] ||
		selfRepairComponents[e.Source.Component] || selfRepairComponents[e.ReportingController]
}
