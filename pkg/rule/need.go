package rule

// Need is a kind of evidence a rule reads from the bundle: the collector
// fetches it for a target only when a rule that applies to the target's
// kind needs it.
type Need string

// The evidence kinds, one per part of the bundle.
const (
	Pods            Need = "pods"            // the target's pods (or the target pod)
	Owners          Need = "owners"          // the owner chain: ReplicaSets, Deployments, Jobs, CronJobs…
	Events          Need = "events"          // events about every involved object
	Logs            Need = "logs"            // container logs, current and previous
	Nodes           Need = "nodes"           // the pods' nodes (all nodes for a DaemonSet or an unscheduled pod)
	NodePods        Need = "node-pods"       // the pods on a Node target
	ConfigMaps      Need = "configmaps"      // referenced by the pods
	ServiceAccounts Need = "serviceaccounts" // the pods' service accounts
	Claims          Need = "claims"          // PVCs, their PVs and StorageClasses
	Services        Need = "services"        // the target Service, an Ingress's backends
	EndpointSlices  Need = "endpointslices"  // a Service's slices
	Candidates      Need = "candidates"      // pods a Service's selector might have meant
	Ingresses       Need = "ingresses"       // the target Ingress and its classes
	HPAs            Need = "hpas"            // autoscalers of the target
	Namespace       Need = "namespace"       // the namespace object
	Quotas          Need = "quotas"          // ResourceQuotas and LimitRanges
)

// PodEvidence is what a rule about a pod's own containers reads: the pods,
// their events and logs.
var PodEvidence = []Need{Pods, Events, Logs}
