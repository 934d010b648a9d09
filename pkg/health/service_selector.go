package health

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
)

// serviceSelector checks that a Service's endpoints are the pods it is
// meant for: a selector pinned to one revision of a workload leaves its
// other revisions without traffic while every endpoint looks ready.
var serviceSelector = &Check{
	ID: "service/selector", Kinds: []string{"Service"},
	Doc: "A Service's selector selects the workload it is for (not another one's pods while those its own labels or name point at run unselected), and every revision of it: no term on a per-revision label (pod-template-hash, controller-revision-hash, rollouts-pod-template-hash) while pods of another revision run.",
	Run: func(c *rule.Pass) []Result {
		svc := kube.TargetOf(c, "Service", c.B.Services)
		if svc == nil || len(svc.Spec.Selector) == 0 {
			return nil
		}
		var out []Result
		if m := network.MisdirectedService(c, svc); m != nil {
			out = append(out, fail("Service %s selects the pods of %s (%s) while the pods of %s carry %s and get none of its traffic", svc.Name, m.Selected, m.Term, m.Claimed, m.Want))
		}
		return append(out, pinned(c, svc)...)
	},
}

func pinned(c *rule.Pass, svc *corev1.Service) []Result {
	pin := network.PinnedRevision(c, svc)
	switch {
	case pin == nil:
		return nil // applies only to a selector with a per-revision term
	case pin.Managed != "":
		return []Result{note("Service %s's selector pins %s, set by Argo Rollouts for Rollout %s", svc.Name, pin.TermsText(), pin.Managed)}
	case len(pin.Selected) > 0 && len(pin.Left) > 0:
		return []Result{fail("Service %s's selector pins %s: %d pod(s) of the same workload at %s get no traffic (%s)", svc.Name, pin.TermsText(), len(pin.Left), strings.Join(pin.Others, ", "), kube.NamesUpTo(network.NamesOfPods(pin.Left), 3))}
	case len(pin.Selected) > 0:
		return []Result{note("Service %s's selector pins %s: it selects that revision's pods only, and will have no endpoint once a rollout replaces them", svc.Name, pin.TermsText())}
	}
	return nil // selects nothing: service/endpoints says so
}
