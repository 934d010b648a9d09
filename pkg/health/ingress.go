package health

import (
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
)

// ingressController: an Ingress is healthy only when the controller of its
// class was seen running; one that was not found is not "no controller",
// only not checked, unless the search read everything (docs/DESIGN.md §7).
var ingressController = &Check{
	ID: "ingress/controller", Kinds: []string{"Ingress"},
	Doc: "The controller of the Ingress's class (the workload whose container sets its --ingress-class or --controller-class, or runs the class's controller image) has a ready pod, which the API server does not refuse reads.",
	Run: func(c *rule.Pass) []Result {
		ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
		if ing == nil {
			return nil
		}
		a := c.B.Actor(bundle.RoleIngressController, "ingress/"+ing.Name)
		if a == nil {
			return []Result{unchecked("Not checked: whether a controller serves Ingress %s (its class is not known, or the search was not made)", ing.Name)}
		}
		pods := c.B.ActorPods(a)
		// The pod network/ingress-controller-down reads: ready, yet erring
		// for the Ingress's host or refused what it reads.
		if k := kube.ControllerSeen(c, bundle.RoleIngressController, "ingress/"+ing.Name, network.IngressTerms(ing)...); k != nil && k.Pod != nil && kube.IsPodReady(k.Pod) {
			if k.About && k.Line != "" {
				return []Result{fail("The controller of Ingress class %s, pod %s/%s, logs for the Ingress's host: %q", a.Name, k.Pod.Namespace, k.Pod.Name, k.Line)}
			}
			if d, ok := k.Denied(c); ok {
				return []Result{fail("The controller of Ingress class %s, pod %s/%s, is ready but its ServiceAccount %s may not read %s", a.Name, k.Pod.Namespace, k.Pod.Name, d.Account, d.List())}
			}
		}
		for _, p := range pods {
			if kube.IsPodReady(p) {
				return []Result{pass("Ingress class %s is served by %s: pod %s/%s is ready", a.Name, a.Workload, p.Namespace, p.Name)}
			}
		}
		if len(pods) > 0 {
			state, _ := kube.PodState(pods[0])
			return []Result{fail("The controller of Ingress class %s, %s, has no ready pod: %s/%s is %s", a.Name, a.Workload, pods[0].Namespace, pods[0].Name, state)}
		}
		if a.Workload != "" {
			return []Result{fail("The controller of Ingress class %s, %s, has no pod", a.Name, a.Workload)}
		}
		return []Result{unchecked("Not checked: no workload found that serves Ingress class %s (%s); it may run outside the cluster or under flags not recognised", a.Name, a.SearchedText())}
	},
}
