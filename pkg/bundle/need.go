package bundle

import "slices"

// Need is a kind of evidence the collector can fetch about a target beyond
// the target itself, its owner chain, its pods and its namespace (always
// collected: every rule and agent starts from them). Options.Needs is the plan: the
// investigator's rules declare what they need, and the plan for a target is
// what the rules that apply to its kind need (see package rule).
type Need string

// The evidence kinds the collector knows how to fetch.
const (
	NeedPods            Need = "pods"            // the target's pods; always collected
	NeedOwners          Need = "owners"          // the owner chain, an HPA's scale target; always collected
	NeedEvents          Need = "events"          // events about every involved object
	NeedLogs            Need = "logs"            // container logs, current and previous
	NeedNodes           Need = "nodes"           // the pods' nodes; all nodes for an unscheduled pod, a DaemonSet or a LoadBalancer Service with an address
	NeedNodePods        Need = "node-pods"       // the pods on a Node target
	NeedConfigMaps      Need = "configmaps"      // referenced by the pods
	NeedServiceAccounts Need = "serviceaccounts" // the pods' and the pod template's
	NeedClaims          Need = "claims"          // PVCs, their PVs and StorageClasses
	NeedServices        Need = "services"        // an Ingress's backend Services
	NeedEndpointSlices  Need = "endpointslices"  // a Service's slices
	NeedCandidates      Need = "candidates"      // pods a Service's selector might have meant
	NeedIngressClasses  Need = "ingressclasses"  // the cluster's IngressClasses
	// NeedTLSSecrets is whether each Secret an Ingress's spec.tls names
	// exists: one Table GET per name, its row only (never the object; see
	// readonly.SecretExistenceRead).
	NeedTLSSecrets Need = "tls-secrets"
	NeedHPAs       Need = "hpas"   // the autoscalers of a workload target
	NeedQuotas     Need = "quotas" // ResourceQuotas and LimitRanges of a workload's namespace
	// NeedNetworkPolicies is the target namespace's NetworkPolicies (one
	// bounded list) for a pod, a workload or a Service target.
	NeedNetworkPolicies Need = "networkpolicies"
	// NeedNamespaceServices is the Services of a pod or Deployment
	// target's namespace (one bounded list, into Services): which of them
	// select the pods, or nearly.
	NeedNamespaceServices Need = "namespace-services"
	// NeedRBAC is the RBAC around a pod's ServiceAccount, fetched only when
	// a collected log holds an RBAC denial of it: the RoleBindings of the
	// denied namespace(s), the ClusterRoleBindings naming it, and the Roles
	// and ClusterRoles they reference (see rbac.go).
	NeedRBAC Need = "rbac"
	// NeedDependencies is the EndpointSlices of the namespace Services a
	// pod's log names as a host it fails to reach (at most 1 request,
	// only when a log names one; needs NeedNamespaceServices and NeedLogs).
	NeedDependencies Need = "dependencies"
)

// wants reports whether the plan includes n; no plan (nil Needs) fetches
// everything the target's kind has.
func (o Options) wants(n Need) bool {
	return o.Needs == nil || slices.Contains(o.Needs, n)
}
