package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/objconv"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TargetOf returns the target object from its typed list in the bundle or,
// when the collector did not file it there, decoded from the raw object.
func TargetOf[T any, PT interface {
	*T
	metav1.Object
}](c *rule.Pass, kind string, list []PT) PT {
	t := c.B.Target
	if t.Kind != kind {
		return nil
	}
	for _, o := range list {
		if (t.UID != "" && string(o.GetUID()) == t.UID) || (o.GetName() == t.Name && o.GetNamespace() == t.Namespace) {
			return o
		}
	}
	if c.B.Object == nil {
		return nil
	}
	var v T
	if objconv.Converter.FromUnstructured(c.B.Object.Object, &v) != nil {
		return nil
	}
	return PT(&v)
}

// CollectionFailed reports a collection problem whose description mentions
// what (case-insensitive): a rule must not read an empty list as "none".
func CollectionFailed(c *rule.Pass, what string) bool {
	for _, p := range c.B.Problems {
		if strings.Contains(strings.ToLower(p.What), what) {
			return true
		}
	}
	return false
}

// NamespaceTarget is a Namespace target's object: the collector keeps it as
// the target object (a live run) or as bundle.Namespace (a loaded one).
func NamespaceTarget(c *rule.Pass) *corev1.Namespace {
	var list []*corev1.Namespace
	if c.B.Namespace != nil {
		list = append(list, c.B.Namespace)
	}
	return TargetOf(c, "Namespace", list)
}
