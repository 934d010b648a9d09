package bundle

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/objconv"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
)

// Bounds of the related-object lists.
const (
	maxCandidates = 200 // pods considered for a Service selector that matches nothing
	maxNodePods   = 100 // pods listed on a Node target
	maxTLSSecrets = 5   // an Ingress's spec.tls Secrets checked for existence
)

// targetRelated fetches what the target itself points at, before its pods
// are known (a Service's pods, an HPA's scale target, …).
func (c *collector) targetRelated(ctx context.Context, target *unstructured.Unstructured) {
	ns := c.b.Target.Namespace
	conv := objconv.Converter
	switch c.b.Target.Kind {
	case "Namespace":
		c.namespacePods(ctx, c.b.Target.Name)
	case "Service":
		var svc corev1.Service
		if conv.FromUnstructured(target.Object, &svc) != nil {
			return
		}
		c.b.Services = append(c.b.Services, &svc)
		if c.opts.wants(NeedEndpointSlices) {
			c.endpointSlices(ctx, ns, svc.Name)
		}
		// A load balancer's address is only as good as the nodes that
		// may carry its traffic (their exclusion label and taint): one
		// bounded list, for a LoadBalancer Service that has an address.
		if svc.Spec.Type == corev1.ServiceTypeLoadBalancer && len(svc.Status.LoadBalancer.Ingress) > 0 && c.opts.wants(NeedNodes) {
			c.nodes(ctx)
		}
		if len(svc.Spec.Selector) == 0 {
			return
		}
		c.servicePods(ctx, ns, &svc)
		if len(c.b.Pods) > 0 {
			c.claimedPods(ctx, ns, &svc)
		}
		if len(c.b.Pods) == 0 && c.opts.wants(NeedCandidates) {
			c.count()
			list, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: maxCandidates})
			if err != nil {
				c.problem("pods of namespace "+ns, err)
				return
			}
			// The whole namespace replaces the other revisions servicePods kept.
			c.b.Candidates = nil
			for i := range list.Items {
				// Only labels matter here; keep nothing else that could carry data.
				c.b.Candidates = append(c.b.Candidates, candidate(&list.Items[i]))
			}
		}
	case "Ingress":
		var ing networkingv1.Ingress
		if conv.FromUnstructured(target.Object, &ing) != nil {
			return
		}
		c.b.Ingresses = append(c.b.Ingresses, &ing)
		for _, name := range ingressBackends(&ing) {
			if !c.opts.wants(NeedServices) {
				break
			}
			svc := c.getService(ctx, ns, name, "ingress/"+ing.Name)
			if svc != nil && c.opts.wants(NeedEndpointSlices) {
				c.endpointSlices(ctx, ns, name)
			}
			// A load balancer that calls a backend unhealthy judges it by
			// the pods' probe: their spec says which (ingress_lb.go).
			if svc != nil && strings.Contains(ing.Annotations[LBBackendsAnnotation], LBUnhealthy) && c.opts.wants(NeedDependencies) {
				c.dependencyPods(ctx, svc, servingPod)
			}
		}
		if c.opts.wants(NeedTLSSecrets) {
			for i, t := range ing.Spec.TLS {
				if t.SecretName != "" && i < maxTLSSecrets {
					c.secretExists(ctx, ns, t.SecretName, fmt.Sprintf("ingress/%s .spec.tls[%d].secretName", ing.Name, i))
				}
			}
		}
		if !c.opts.wants(NeedIngressClasses) {
			return
		}
		c.count()
		classes, err := c.cs.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{Limit: 100})
		if err != nil {
			c.problem("ingress classes", err)
		} else {
			for i := range classes.Items {
				c.b.IngressClasses = append(c.b.IngressClasses, &classes.Items[i])
			}
		}
	case "PersistentVolumeClaim":
		var pvc corev1.PersistentVolumeClaim
		if conv.FromUnstructured(target.Object, &pvc) != nil {
			return
		}
		c.b.PVCs = append(c.b.PVCs, &pvc)
		if c.opts.wants(NeedClaims) {
			c.claimDetails(ctx, &pvc)
		}
	case "HorizontalPodAutoscaler":
		var hpa autoscalingv2.HorizontalPodAutoscaler
		if conv.FromUnstructured(target.Object, &hpa) != nil {
			return
		}
		c.b.HPAs = append(c.b.HPAs, &hpa)
		c.scaleTarget(ctx, ns, hpa.Spec.ScaleTargetRef)
	case "Node":
		if !c.opts.wants(NeedNodePods) {
			return
		}
		c.count()
		sel := fields.OneTermEqualSelector("spec.nodeName", c.b.Target.Name).String()
		list, err := c.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel, Limit: maxNodePods})
		if err != nil {
			c.problem("pods on node "+c.b.Target.Name, err)
			return
		}
		for i := range list.Items {
			c.b.NodePods = append(c.b.NodePods, redacted(&list.Items[i], gvkPod))
		}
		if unschedulable, _, _ := unstructured.NestedBool(target.Object, "spec", "unschedulable"); unschedulable {
			c.drainBudgets(ctx)
		}
	case "DaemonSet":
		if c.opts.wants(NeedNodes) {
			c.nodes(ctx) // which nodes should run a pod and which do not
		}
	}
}

// ingressBackends lists the Service names an Ingress routes to.
func ingressBackends(ing *networkingv1.Ingress) []string {
	seen := map[string]bool{}
	var out []string
	add := func(b *networkingv1.IngressBackend) {
		if b != nil && b.Service != nil && !seen[b.Service.Name] {
			seen[b.Service.Name] = true
			out = append(out, b.Service.Name)
		}
	}
	add(ing.Spec.DefaultBackend)
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for i := range r.HTTP.Paths {
			add(&r.HTTP.Paths[i].Backend)
		}
	}
	return out
}

// scaleTarget fetches an HPA's Deployment or StatefulSet and its pods.
func (c *collector) scaleTarget(ctx context.Context, ns string, ref autoscalingv2.CrossVersionObjectReference) {
	get, gvk, known := c.ownerGetter(ns, ref.Kind)
	if !known {
		return
	}
	c.count()
	obj, err := get(ctx, ref.Name)
	if err != nil {
		c.notFoundOrProblem(err, MissingRef{Kind: ref.Kind, Namespace: ns, Name: ref.Name, ReferencedBy: "horizontalpodautoscaler/" + c.b.Target.Name + " scaleTargetRef"})
		if apierrors.IsNotFound(err) {
			c.scaleTargetNearMisses(ctx, ns, ref.Kind, ref.Name)
		}
		return
	}
	c.addTyped(obj.(runtime.Object), gvk)
	var ls *metav1.LabelSelector
	switch o := obj.(type) {
	case *appsv1.Deployment:
		ls = o.Spec.Selector
	case *appsv1.StatefulSet:
		ls = o.Spec.Selector
	case *appsv1.ReplicaSet:
		ls = o.Spec.Selector
	}
	if ls == nil {
		return
	}
	if sel, err := metav1.LabelSelectorAsSelector(ls); err == nil {
		c.pods(ctx, ns, sel.String(), func(*corev1.Pod) bool { return true })
	}
}

// templateRef is something a workload target's pod template references,
// fetched even when the workload has no pod (yet).
type templateRef struct {
	ServiceAccount string // serviceAccountName, "default" when unset
	Namespace      string
	By             string // e.g. "deployment/api pod template"
}

// templateKinds are the workload kinds whose pod template is read, with the
// path to the template's pod spec.
var templateKinds = map[string][]string{
	"Deployment":  {"spec", "template", "spec"},
	"StatefulSet": {"spec", "template", "spec"},
	"DaemonSet":   {"spec", "template", "spec"},
	"ReplicaSet":  {"spec", "template", "spec"},
	"Job":         {"spec", "template", "spec"},
	"CronJob":     {"spec", "jobTemplate", "spec", "template", "spec"},
}

// templateRefs reads what a workload target's pod template references. A
// workload whose pods cannot be created (no ServiceAccount: the admission
// plugin refuses every pod) has no pod to read it from; its controller only
// says FailedCreate.
func templateRefs(target *unstructured.Unstructured) []templateRef {
	path, ok := templateKinds[target.GetKind()]
	if !ok {
		return nil
	}
	spec, found, err := unstructured.NestedMap(target.Object, path...)
	if err != nil || !found {
		return nil
	}
	sa, _ := spec["serviceAccountName"].(string)
	if sa == "" {
		sa, _ = spec["serviceAccount"].(string) // deprecated alias, still honoured
	}
	if sa == "" {
		sa = "default"
	}
	by := strings.ToLower(target.GetKind()) + "/" + target.GetName() + " pod template"
	return []templateRef{{ServiceAccount: sa, Namespace: target.GetNamespace(), By: by}}
}

// podRelated fetches what the collected pods (and the target's pod
// template) reference: ConfigMaps (also those a label-watching sidecar
// copies), ServiceAccounts, PVCs (with their StorageClass and PV). Each object is fetched once whoever references it,
// and a pod's reference is named before the template's. Secrets are never
// read.
func (c *collector) podRelated(ctx context.Context, pods []*corev1.Pod, tmpl []templateRef) {
	type ref struct{ ns, name, by string }
	var cms, sas, pvcs []ref
	seen := map[string]bool{}
	add := func(list *[]ref, kind, ns, name, by string) {
		key := kind + "/" + ns + "/" + name
		if name == "" || seen[key] {
			return
		}
		seen[key] = true
		*list = append(*list, ref{ns, name, by})
	}
	for _, p := range pods {
		by := "pod/" + p.Name
		sa := p.Spec.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		add(&sas, "sa", p.Namespace, sa, by)
		for _, ctr := range allContainers(p) {
			for _, e := range ctr.Env {
				if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
					add(&cms, "cm", p.Namespace, e.ValueFrom.ConfigMapKeyRef.Name, fmt.Sprintf("%s container %s env %s", by, ctr.Name, e.Name))
				}
			}
			for _, ef := range ctr.EnvFrom {
				if ef.ConfigMapRef != nil {
					add(&cms, "cm", p.Namespace, ef.ConfigMapRef.Name, fmt.Sprintf("%s container %s envFrom", by, ctr.Name))
				}
			}
		}
		for _, v := range p.Spec.Volumes {
			switch {
			case v.ConfigMap != nil:
				add(&cms, "cm", p.Namespace, v.ConfigMap.Name, fmt.Sprintf("%s volume %s", by, v.Name))
			case v.PersistentVolumeClaim != nil:
				add(&pvcs, "pvc", p.Namespace, v.PersistentVolumeClaim.ClaimName, fmt.Sprintf("%s volume %s", by, v.Name))
			case v.Projected != nil:
				for _, src := range v.Projected.Sources {
					// kube-root-ca.crt is in every pod's token volume: not evidence.
					if src.ConfigMap != nil && src.ConfigMap.Name != "kube-root-ca.crt" {
						add(&cms, "cm", p.Namespace, src.ConfigMap.Name, fmt.Sprintf("%s volume %s", by, v.Name))
					}
				}
			}
		}
	}
	for _, t := range tmpl {
		add(&sas, "sa", t.Namespace, t.ServiceAccount, t.By)
	}
	if !c.opts.wants(NeedConfigMaps) {
		cms = nil
	}
	if !c.opts.wants(NeedServiceAccounts) || (c.b.Target.Kind == "Pod" && !PullFailing(pods)) {
		sas = nil
	}
	if !c.opts.wants(NeedClaims) {
		pvcs = nil
	}
	c.fanOut(ctx, len(cms), func(i int) {
		r := cms[i]
		c.count()
		cm, err := c.cs.CoreV1().ConfigMaps(r.ns).Get(ctx, r.name, metav1.GetOptions{})
		if err != nil {
			c.notFoundOrProblem(err, MissingRef{Kind: "ConfigMap", Namespace: r.ns, Name: r.name, ReferencedBy: r.by})
			return
		}
		cm = redacted(cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"))
		c.mu.Lock()
		c.b.ConfigMaps = append(c.b.ConfigMaps, cm)
		c.mu.Unlock()
	})
	if c.opts.wants(NeedConfigMaps) {
		c.watchedConfigMaps(ctx, pods)
	}
	c.fanOut(ctx, len(sas), func(i int) {
		r := sas[i]
		c.count()
		sa, err := c.cs.CoreV1().ServiceAccounts(r.ns).Get(ctx, r.name, metav1.GetOptions{})
		if err != nil {
			c.notFoundOrProblem(err, MissingRef{Kind: "ServiceAccount", Namespace: r.ns, Name: r.name, ReferencedBy: r.by})
			return
		}
		sa.ManagedFields = nil
		c.mu.Lock()
		c.b.ServiceAccounts = append(c.b.ServiceAccounts, sa)
		c.mu.Unlock()
	})
	c.fanOut(ctx, len(pvcs), func(i int) {
		r := pvcs[i]
		if c.havePVC(r.ns, r.name) {
			return
		}
		c.count()
		pvc, err := c.cs.CoreV1().PersistentVolumeClaims(r.ns).Get(ctx, r.name, metav1.GetOptions{})
		if err != nil {
			c.notFoundOrProblem(err, MissingRef{Kind: "PersistentVolumeClaim", Namespace: r.ns, Name: r.name, ReferencedBy: r.by})
			return
		}
		pvc.ManagedFields = nil
		c.mu.Lock()
		c.b.PVCs = append(c.b.PVCs, pvc)
		c.mu.Unlock()
		c.claimDetails(ctx, pvc)
	})
}

// getService fetches a Service an object refers to; 404 becomes Missing.
func (c *collector) getService(ctx context.Context, ns, name, by string) *corev1.Service {
	c.count()
	svc, err := c.cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		c.notFoundOrProblem(err, MissingRef{Kind: "Service", Namespace: ns, Name: name, ReferencedBy: by})
		return nil
	}
	svc.ManagedFields = nil
	c.mu.Lock()
	c.b.Services = append(c.b.Services, svc)
	c.mu.Unlock()
	return svc
}

func (c *collector) endpointSlices(ctx context.Context, ns, service string) {
	c.count()
	list, err := c.cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
	if err != nil {
		c.problem("endpointslices of service "+service, err)
		return
	}
	keep(c, list.Items, &c.b.EndpointSlices)
}

// secretExists asks whether Secret ns/name exists with one Table read
// (readonly.SecretTableAccept, includeObject=None): the answer is a row of
// its name, type, key count and age, never the object; only the name is
// kept, in SecretsSeen or Missing.
func (c *collector) secretExists(ctx context.Context, ns, name, by string) {
	rc := c.cs.CoreV1().RESTClient()
	if r, ok := rc.(*rest.RESTClient); rc == nil || (ok && r == nil) {
		return // a fake clientset has no REST client
	}
	c.count()
	raw, err := rc.Get().Namespace(ns).Resource("secrets").Name(name).
		Param("includeObject", string(metav1.IncludeNone)).SetHeader("Accept", readonly.SecretTableAccept).Do(ctx).Raw()
	if err != nil {
		c.notFoundOrProblem(err, MissingRef{Kind: "Secret", Namespace: ns, Name: name, ReferencedBy: by})
		return
	}
	var t metav1.Table
	if err := json.Unmarshal(raw, &t); err != nil || t.Kind != "Table" || len(t.Rows) != 1 || len(t.Rows[0].Object.Raw) != 0 ||
		len(t.Rows[0].Cells) == 0 || t.Rows[0].Cells[0] != name {
		c.problem("secret "+ns+"/"+name, fmt.Errorf("the API server did not answer with the Secret's table row alone"))
		return
	}
	c.mu.Lock()
	c.b.Cluster.SecretsSeen = append(c.b.Cluster.SecretsSeen, ns+"/"+name)
	c.mu.Unlock()
}

// notFoundOrProblem records a 404 as a missing reference (evidence) and any
// other error as a collection problem.
func (c *collector) notFoundOrProblem(err error, m MissingRef) {
	if apierrors.IsNotFound(err) {
		c.mu.Lock()
		c.b.Missing = append(c.b.Missing, m)
		c.mu.Unlock()
		return
	}
	what := m.Kind + " " + m.Name
	if m.Namespace != "" {
		what = m.Kind + " " + m.Namespace + "/" + m.Name
	}
	c.problem(what, err)
}

// redacted returns a copy of a typed object with credentials masked (and
// managed fields dropped). gvk is stamped so kind-specific rules apply.
func redacted[T any](obj *T, gvk schema.GroupVersionKind) *T {
	m, err := objconv.Converter.ToUnstructured(obj)
	if err != nil {
		return obj
	}
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	redact.Object(m)
	var out T
	if objconv.Converter.FromUnstructured(m, &out) != nil {
		return obj
	}
	return &out
}

func allContainers(p *corev1.Pod) []corev1.Container {
	out := append([]corev1.Container{}, p.Spec.InitContainers...)
	return append(out, p.Spec.Containers...)
}

// commandLine is the named container's command followed by its args (nil
// when the pod has no such container): where a client or a wait loop names
// its destination.
func commandLine(p *corev1.Pod, container string) []string {
	for _, ctr := range allContainers(p) {
		if ctr.Name == container {
			return append(append([]string(nil), ctr.Command...), ctr.Args...)
		}
	}
	return nil
}

// fanOut runs f(0..n-1) with the collector's concurrency bound and waits.
func (c *collector) fanOut(ctx context.Context, n int, f func(i int)) {
	if n == 0 {
		return
	}
	sem := make(chan struct{}, c.opts.Concurrency)
	done := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			f(i)
		}()
	}
	for i := 0; i < n; i++ {
		<-done
	}
}

// sortRelated keeps related lists in a stable order for reports and files.
func sortRelated(b *Bundle) {
	sort.Slice(b.ConfigMaps, func(i, j int) bool { return b.ConfigMaps[i].Name < b.ConfigMaps[j].Name })
	sort.Slice(b.PVCs, func(i, j int) bool { return b.PVCs[i].Name < b.PVCs[j].Name })
	sort.Slice(b.Services, func(i, j int) bool { return b.Services[i].Name < b.Services[j].Name })
	sort.Slice(b.PVs, func(i, j int) bool { return b.PVs[i].Name < b.PVs[j].Name })
	sort.Slice(b.StorageClasses, func(i, j int) bool { return b.StorageClasses[i].Name < b.StorageClasses[j].Name })
	sort.Slice(b.HPAs, func(i, j int) bool { return b.HPAs[i].Name < b.HPAs[j].Name })
	sort.Slice(b.NetworkPolicies, func(i, j int) bool { return b.NetworkPolicies[i].Name < b.NetworkPolicies[j].Name })
	sort.Slice(b.LimitRanges, func(i, j int) bool { return b.LimitRanges[i].Name < b.LimitRanges[j].Name })
	sort.Slice(b.PDBs, func(i, j int) bool {
		return b.PDBs[i].Namespace+"/"+b.PDBs[i].Name < b.PDBs[j].Namespace+"/"+b.PDBs[j].Name
	})
	sort.Slice(b.Missing, func(i, j int) bool { return b.Missing[i].Kind+b.Missing[i].Name < b.Missing[j].Kind+b.Missing[j].Name })
}
