package rule

import (
	"slices"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// Need is a kind of evidence a rule reads from the bundle. The collector
// fetches it for a target only when a rule that applies to the target's
// kind (or a rule such a rule requires) needs it: see Plan.
type Need = bundle.Need

// The evidence kinds, one per part of the bundle the collector can skip.
// Pods and Owners are always collected; rules declare them all the same, so
// the declaration says what the rule reads.
const (
	Pods            = bundle.NeedPods
	Owners          = bundle.NeedOwners
	Events          = bundle.NeedEvents
	Logs            = bundle.NeedLogs
	Nodes           = bundle.NeedNodes
	NodePods        = bundle.NeedNodePods
	ConfigMaps      = bundle.NeedConfigMaps
	ServiceAccounts = bundle.NeedServiceAccounts
	Claims          = bundle.NeedClaims
	Services        = bundle.NeedServices
	EndpointSlices  = bundle.NeedEndpointSlices
	Candidates      = bundle.NeedCandidates
	IngressClasses  = bundle.NeedIngressClasses
	// TLSSecrets: whether an Ingress's spec.tls Secrets exist (metadata only).
	TLSSecrets      = bundle.NeedTLSSecrets
	HPAs            = bundle.NeedHPAs
	Quotas          = bundle.NeedQuotas
	NetworkPolicies = bundle.NeedNetworkPolicies
	// NamespaceServices: the Services of a pod or Deployment target's namespace.
	NamespaceServices = bundle.NeedNamespaceServices
	// RBAC: the ServiceAccount's bindings and roles, when a log denies it.
	RBAC = bundle.NeedRBAC
	// Dependencies: the EndpointSlices of the namespace Services a pod's
	// failing log lines name.
	Dependencies = bundle.NeedDependencies
)

// PodEvidence is what a rule about a pod's own containers reads: the pods,
// their events and logs.
var PodEvidence = []Need{Pods, Events, Logs}

// Plan is the evidence to collect for a target of this kind: what the rules
// that apply to it need, and what the rules they require need, each once,
// in a stable order. Collecting more would be waste; less, a rule reading
// an empty list as "none".
func Plan(rules []*Rule, kind string) []Need {
	var out []Need
	seen := map[*Rule]bool{}
	var visit func(r *Rule)
	visit = func(r *Rule) {
		if seen[r] {
			return
		}
		seen[r] = true
		for _, n := range r.Needs {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		for _, req := range r.Requires {
			if req.AppliesTo(kind) { // the engine runs no other
				visit(req)
			}
		}
	}
	for _, r := range rules {
		if r.AppliesTo(kind) {
			visit(r)
		}
	}
	slices.Sort(out)
	return out
}
