package bundle

// The namespace around a target: the namespace itself and its bounded lists
// of quotas, limit ranges, autoscalers, Services and NetworkPolicies, each
// one request whatever the number of pods.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namespaceAndQuotas reads the target's Namespace (PodSecurity labels,
// terminating state) and, for a workload, what constrains the pods it
// creates: ResourceQuotas (FailedCreate on quota), LimitRanges (defaults and
// maxima applied at admission, FailedCreate on a limit) and the HPAs that
// scale it. Every list is namespaced and bounded; none lists pods or events.
func (c *collector) namespaceAndQuotas(ctx context.Context) {
	ns := c.b.Target.Namespace
	if ns == "" {
		return
	}
	tasks := []func(){func() { c.namespace(ctx, ns) }}
	switch c.b.Target.Kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob":
		if c.opts.wants(NeedQuotas) {
			tasks = append(tasks, func() { c.resourceQuotas(ctx, ns) }, func() { c.limitRanges(ctx, ns) })
		}
	}
	switch c.b.Target.Kind {
	case "Deployment", "StatefulSet", "ReplicaSet":
		if c.opts.wants(NeedHPAs) {
			tasks = append(tasks, func() { c.hpas(ctx, ns) })
		}
	}
	if c.b.Target.Kind == "Service" && c.opts.wants(NeedNetworkPolicies) {
		// Whether the Service's own pods are isolated from its callers.
		tasks = append(tasks, func() { c.networkPolicies(ctx, ns) })
	}
	c.fanOut(ctx, len(tasks), func(i int) { tasks[i]() })
}

// deferredLists: the target is a pod or a workload, whose namespace's
// Services and NetworkPolicies the plan holds, to be read only when its
// pods' own evidence calls for them (NamespaceListsWanted).
func (c *collector) deferredLists() bool {
	switch c.b.Target.Kind {
	case "Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		return c.opts.wants(NeedNetworkPolicies) || c.opts.wants(NeedNamespaceServices)
	}
	return false
}

// namespaceLists reads the namespace's Services (for a pod or a
// Deployment) and NetworkPolicies, one bounded list each, in parallel.
func (c *collector) namespaceLists(ctx context.Context) {
	ns := c.b.Target.Namespace
	var tasks []func()
	if c.opts.wants(NeedNetworkPolicies) {
		tasks = append(tasks, func() { c.networkPolicies(ctx, ns) })
	}
	if k := c.b.Target.Kind; (k == "Pod" || k == "Deployment") && c.opts.wants(NeedNamespaceServices) {
		tasks = append(tasks, func() { c.namespaceServices(ctx, ns) })
	}
	c.fanOut(ctx, len(tasks), func(i int) { tasks[i]() })
}

func (c *collector) namespace(ctx context.Context, ns string) {
	c.count()
	n, err := c.cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		c.problem("namespace "+ns, err)
		return
	}
	n.ManagedFields = nil
	c.mu.Lock()
	c.b.Namespace = n
	c.mu.Unlock()
}

// keep files a list's items in dst, without their managed fields, under
// the collector's lock.
func keep[T any, P interface {
	*T
	SetManagedFields([]metav1.ManagedFieldsEntry)
}](c *collector, items []T, dst *[]P) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range items {
		obj := P(&items[i])
		obj.SetManagedFields(nil)
		*dst = append(*dst, obj)
	}
}

// Bounds of the namespaced lists of policy objects.
const (
	maxQuotas      = 50
	maxLimitRanges = 50
	maxHPAs        = 50
	// A namespace rarely holds more policies than this; which of them
	// select a pod is a label match, so one list serves every pod.
	maxNetworkPolicies = 100
	maxServices        = 100
)

// namespaceServices lists the namespace's Services once, for the rules that
// ask which of them select a pod target (or nearly do).
func (c *collector) namespaceServices(ctx context.Context, ns string) {
	c.count()
	list, err := c.cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{Limit: maxServices})
	if err != nil {
		c.problem("services of "+ns, err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if list.Continue == "" {
		c.b.Cluster.ServicesListed = ns
	}
	for i := range list.Items {
		list.Items[i].ManagedFields = nil
		c.b.Services = append(c.b.Services, redacted(&list.Items[i], corev1.SchemeGroupVersion.WithKind("Service")))
	}
}

// networkPolicies lists the namespace's NetworkPolicies once: one bounded
// request whatever the number of pods.
func (c *collector) networkPolicies(ctx context.Context, ns string) {
	c.count()
	list, err := c.cs.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{Limit: maxNetworkPolicies})
	if err != nil {
		c.problem("network policies of "+ns, err)
		return
	}
	if list.Continue == "" {
		c.mu.Lock()
		c.b.Cluster.NetworkPoliciesListed = ns
		c.mu.Unlock()
	}
	keep(c, list.Items, &c.b.NetworkPolicies)
}

func (c *collector) resourceQuotas(ctx context.Context, ns string) {
	c.count()
	q, err := c.cs.CoreV1().ResourceQuotas(ns).List(ctx, metav1.ListOptions{Limit: maxQuotas})
	if err != nil {
		c.problem("resource quotas of "+ns, err)
		return
	}
	keep(c, q.Items, &c.b.ResourceQuotas)
}

func (c *collector) limitRanges(ctx context.Context, ns string) {
	c.count()
	l, err := c.cs.CoreV1().LimitRanges(ns).List(ctx, metav1.ListOptions{Limit: maxLimitRanges})
	if err != nil {
		c.problem("limit ranges of "+ns, err)
		return
	}
	keep(c, l.Items, &c.b.LimitRanges)
}

// hpas keeps the namespace's HorizontalPodAutoscalers whose scaleTargetRef
// names the target (or, for a ReplicaSet, the Deployment that owns it).
func (c *collector) hpas(ctx context.Context, ns string) {
	c.count()
	list, err := c.cs.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, metav1.ListOptions{Limit: maxHPAs})
	if err != nil {
		c.problem("horizontal pod autoscalers of "+ns, err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	scaled := map[string]bool{c.b.Target.Kind + "/" + c.b.Target.Name: true}
	if c.b.Target.Kind == "ReplicaSet" {
		for _, d := range c.b.Deployments {
			scaled["Deployment/"+d.Name] = true
		}
	}
	for i := range list.Items {
		h := &list.Items[i]
		if !scaled[h.Spec.ScaleTargetRef.Kind+"/"+h.Spec.ScaleTargetRef.Name] {
			continue
		}
		h.ManagedFields = nil
		c.b.HPAs = append(c.b.HPAs, h)
	}
}
