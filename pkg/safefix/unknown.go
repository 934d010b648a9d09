package safefix

import (
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Kind is a kind of object the policy can find healthy.
type Kind string

const (
	KindPod         Kind = "pod"
	KindNode        Kind = "node"
	KindDeployment  Kind = "deployment"
	KindStatefulSet Kind = "statefulset"
	KindPVC         Kind = "persistentvolumeclaim"
)

// Ref names one object.
type Ref struct {
	Kind            Kind
	Namespace, Name string
}

// Unknown lists the objects r's destructive commands name by name that b
// does not hold. The policy judges what it can see, and passes what it
// cannot (the builtin's rules only propose deleting what they saw
// failing); an external agent may name anything, so its caller reads
// these first and adds them to the state Apply checks against.
func Unknown(r *report.Report, b *bundle.Bundle) []Ref {
	s := state{b: b, ns: b.Target.Namespace}
	var out []Ref
	seen := map[Ref]bool{}
	for _, a := range r.Actions {
		for _, calls := range parseAll(a) {
			for _, c := range calls {
				if !c.destroys() || c.Verb == "replace" {
					continue
				}
				kind := kindOf(c.Kind())
				if c.Verb == "drain" {
					kind = KindNode
				}
				if kind == "" {
					continue
				}
				for _, name := range c.Names() {
					ref := Ref{Kind: kind, Namespace: s.namespace(c), Name: name}
					if kind == KindNode {
						ref.Namespace = ""
					}
					if !seen[ref] && !s.holds(ref) {
						seen[ref] = true
						out = append(out, ref)
					}
				}
			}
		}
	}
	return out
}

func kindOf(word string) Kind {
	switch word {
	case "pod", "pods", "po":
		return KindPod
	case "node", "nodes", "no":
		return KindNode
	case "deployment", "deployments", "deploy":
		return KindDeployment
	case "statefulset", "statefulsets", "sts":
		return KindStatefulSet
	case "persistentvolumeclaim", "persistentvolumeclaims", "pvc":
		return KindPVC
	}
	return ""
}

// holds: the bundle has the object.
func (s state) holds(ref Ref) bool {
	switch ref.Kind {
	case KindPod:
		return s.pod(ref.Namespace, ref.Name) != nil
	case KindNode:
		return s.b.Node(ref.Name) != nil
	case KindDeployment:
		for _, d := range s.b.Deployments {
			if d.Namespace == ref.Namespace && d.Name == ref.Name {
				return true
			}
		}
	case KindStatefulSet:
		for _, st := range s.b.StatefulSets {
			if st.Namespace == ref.Namespace && st.Name == ref.Name {
				return true
			}
		}
	case KindPVC:
		for _, c := range s.b.PVCs {
			if c.Namespace == ref.Namespace && c.Name == ref.Name {
				return true
			}
		}
	}
	return false
}
