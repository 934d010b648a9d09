package bundle

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/objconv"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
)

// Options bound what is collected.
type Options struct {
	TailLines   int64 // lines of log per container and instance
	LimitBytes  int64 // bytes of log per container and instance
	MaxPods     int   // pods of a workload whose events and logs are read
	Concurrency int   // requests in flight at once
	// Needs is the plan: the evidence to fetch beyond the target, its
	// owners and its pods. Nil fetches everything the target's kind has.
	Needs []Need
	// PodEvents is the target pod's events list when it was started
	// before the pod was read (StartPodEvents): one run's, never shared.
	PodEvents *PodEvents
}

// DefaultOptions are tuned for a report a human reads and an agent can
// afford to load.
func DefaultOptions() Options {
	return Options{TailLines: 200, LimitBytes: 256 << 10, MaxPods: 5, Concurrency: 8}
}

// Collect gathers the bundle for the target object through cs, which must be
// a read-only client. It fails only when the context is cancelled; anything
// it cannot read becomes a Problem in the bundle.
func Collect(ctx context.Context, cs kubernetes.Interface, target *unstructured.Unstructured, cluster ClusterInfo, opts Options) (*Bundle, error) {
	if opts.Concurrency <= 0 {
		opts = DefaultOptions()
	}
	c := &collector{cs: cs, opts: opts, b: &Bundle{
		Target: fault.Resource{
			APIVersion: target.GetAPIVersion(), Kind: target.GetKind(), Name: target.GetName(),
			Namespace: target.GetNamespace(), UID: string(target.GetUID()),
		},
		CollectedAt: time.Now().UTC(),
		Cluster:     cluster,
	}, seen: map[types.UID]bool{}}
	c.ev.start(opts.Concurrency)

	obj := target.DeepCopy()
	redact.Object(obj.Object)
	c.b.Object = obj
	c.add(obj)

	ns := target.GetNamespace()
	if c.b.Target.Kind == "Pod" {
		// A pod's owners, what it references, its node, logs and events
		// all follow from its body, which is here: every read starts at
		// once, its events (the slowest list in a crowded namespace) first.
		c.startEvents(ctx, target.GetOwnerReferences())
		c.fanOut(ctx, 2, func(i int) {
			if i == 0 {
				c.owners(ctx, ns, target.GetOwnerReferences())
			} else {
				c.podStage(ctx, obj)
			}
		})
	} else {
		// Walk up the controller chain, then down to the pods a workload
		// runs: each step needs the previous one's answer.
		c.owners(ctx, ns, target.GetOwnerReferences())
		c.children(ctx)
		c.targetRelated(ctx, obj)
		if err := ctx.Err(); err != nil {
			c.ev.wg.Wait()
			return nil, err
		}
		c.startEvents(ctx, nil)
		c.podStage(ctx, obj)
	}
	// What the pods' own evidence calls for: the namespace's Services and
	// NetworkPolicies (see NamespaceListsWanted), then the dependencies a
	// log fails to reach and the RBAC around a denied ServiceAccount.
	if c.deferredLists() && NamespaceListsWanted(c.b) {
		c.namespaceLists(ctx)
	}
	if c.opts.wants(NeedDependencies) && c.opts.wants(NeedLogs) {
		c.dependencies(ctx) // what the logs fail to reach
	}
	if c.opts.wants(NeedLogs) && ctx.Err() == nil {
		c.claimHolders(ctx) // who holds the lock a log says is held
	}
	if c.opts.wants(NeedRBAC) && ctx.Err() == nil {
		c.rbac(ctx)
	}
	c.remainingEvents(ctx) // and waits for every events list
	if c.opts.wants(NeedDependencies) && ctx.Err() == nil {
		c.cniAgents(ctx) // the agent of a CNI plugin a sandbox fails on
		c.actors(ctx)    // the controller a claim, pod or HPA waits on
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The apiserver's notes on its own repairs are no object's evidence.
	c.b.Events = slices.DeleteFunc(c.b.Events, func(e corev1.Event) bool { return SelfRepair(&e) })
	sortEvents(c.b.Events)
	sortRelated(c.b)
	c.b.Cluster.Involved = c.involved()
	return c.b, nil
}

type collector struct {
	cs   kubernetes.Interface
	opts Options
	mu   sync.Mutex
	b    *Bundle
	seen map[types.UID]bool

	// Cluster-scoped lists several claims may need, made once.
	classesOnce, pvsOnce sync.Once

	ev eventReads // the events lists, started as soon as their object is known (events.go)
}

func (c *collector) isSeen(uid types.UID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[uid]
}

func (c *collector) problem(what string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Problems = append(c.b.Problems, Problem{What: what, Error: err.Error(), Forbidden: apierrors.IsForbidden(err)})
}

func (c *collector) count() {
	c.mu.Lock()
	c.b.Requests++
	c.mu.Unlock()
}

// add files a typed copy of obj into the bundle, once per uid.
func (c *collector) add(obj *unstructured.Unstructured) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if uid := obj.GetUID(); uid != "" {
		if c.seen[uid] {
			return
		}
		c.seen[uid] = true
	}
	b := c.b
	switch obj.GroupVersionKind() {
	case gvkPod:
		decodeInto(obj, &b.Pods)
	case gvkNode:
		decodeInto(obj, &b.Nodes)
	case gvkReplicaSet:
		decodeInto(obj, &b.ReplicaSets)
	case gvkDeployment:
		decodeInto(obj, &b.Deployments)
	case gvkStatefulSet:
		decodeInto(obj, &b.StatefulSets)
	case gvkDaemonSet:
		decodeInto(obj, &b.DaemonSets)
	case gvkJob:
		decodeInto(obj, &b.Jobs)
	case gvkCronJob:
		decodeInto(obj, &b.CronJobs)
	}
}

func decodeInto[T any](obj *unstructured.Unstructured, dst *[]*T) {
	var v T
	if objconv.Converter.FromUnstructured(obj.Object, &v) == nil {
		*dst = append(*dst, &v)
	}
}

// addTyped redacts a typed object fetched through the clientset (which
// leaves TypeMeta empty), stamps its kind and files it.
func (c *collector) addTyped(obj runtime.Object, gvk schema.GroupVersionKind) {
	m, err := objconv.Converter.ToUnstructured(obj)
	if err != nil {
		return
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	redact.Object(u.Object)
	c.add(u)
}

var (
	gvkPod         = corev1.SchemeGroupVersion.WithKind("Pod")
	gvkNode        = corev1.SchemeGroupVersion.WithKind("Node")
	gvkReplicaSet  = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	gvkDeployment  = appsv1.SchemeGroupVersion.WithKind("Deployment")
	gvkStatefulSet = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	gvkDaemonSet   = appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	gvkJob         = batchv1.SchemeGroupVersion.WithKind("Job")
	gvkCronJob     = batchv1.SchemeGroupVersion.WithKind("CronJob")
)

// owners follows controller ownerReferences upward: Pod → ReplicaSet →
// Deployment, Pod → StatefulSet/DaemonSet/Job → CronJob.
func (c *collector) owners(ctx context.Context, ns string, refs []metav1.OwnerReference) {
	for depth := 0; depth < 4; depth++ {
		ref := controllerOf(refs)
		if ref == nil || c.isSeen(ref.UID) {
			return
		}
		get, gvk, known := c.ownerGetter(ns, ref.Kind)
		if !known {
			return // a custom controller: named in the object, not followed
		}
		c.count()
		obj, err := get(ctx, ref.Name)
		what := fmt.Sprintf("%s %s/%s", ref.Kind, ns, ref.Name)
		if err != nil {
			c.problem("owner "+what, err)
			return
		}
		c.addTyped(obj.(runtime.Object), gvk)
		refs = obj.GetOwnerReferences()
	}
}

type getter func(ctx context.Context, name string) (metav1.Object, error)

func (c *collector) ownerGetter(ns, kind string) (getter, schema.GroupVersionKind, bool) {
	opts := metav1.GetOptions{}
	apps, batch := c.cs.AppsV1(), c.cs.BatchV1()
	switch kind {
	case "ReplicaSet":
		return func(ctx context.Context, n string) (metav1.Object, error) {
			return apps.ReplicaSets(ns).Get(ctx, n, opts)
		}, gvkReplicaSet, true
	case "Deployment":
		return func(ctx context.Context, n string) (metav1.Object, error) {
			return apps.Deployments(ns).Get(ctx, n, opts)
		}, gvkDeployment, true
	case "StatefulSet":
		return func(ctx context.Context, n string) (metav1.Object, error) {
			return apps.StatefulSets(ns).Get(ctx, n, opts)
		}, gvkStatefulSet, true
	case "DaemonSet":
		return func(ctx context.Context, n string) (metav1.Object, error) {
			return apps.DaemonSets(ns).Get(ctx, n, opts)
		}, gvkDaemonSet, true
	case "Job":
		return func(ctx context.Context, n string) (metav1.Object, error) { return batch.Jobs(ns).Get(ctx, n, opts) }, gvkJob, true
	case "CronJob":
		return func(ctx context.Context, n string) (metav1.Object, error) {
			return batch.CronJobs(ns).Get(ctx, n, opts)
		}, gvkCronJob, true
	}
	return nil, schema.GroupVersionKind{}, false
}

func controllerOf(refs []metav1.OwnerReference) *metav1.OwnerReference {
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}

// children lists what a workload target runs: ReplicaSets and pods of a
// Deployment, pods of a ReplicaSet/StatefulSet/DaemonSet/Job, Jobs of a
// CronJob and the pods of its newest and active runs. Pod lists are by
// label selector, never the whole namespace.
func (c *collector) children(ctx context.Context) {
	ns := c.b.Target.Namespace
	switch c.b.Target.Kind {
	case "Deployment":
		if len(c.b.Deployments) == 0 {
			return
		}
		d := c.b.Deployments[0]
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			c.problem("selector of deployment "+d.Name, err)
			return
		}
		c.count()
		rsl, err := c.cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			c.problem("replicasets of deployment "+d.Name, err)
		} else {
			for i := range rsl.Items {
				if ownedBy(&rsl.Items[i], d.UID) {
					c.addTyped(&rsl.Items[i], gvkReplicaSet)
				}
			}
		}
		c.pods(ctx, ns, sel.String(), func(p *corev1.Pod) bool {
			ref := controllerOf(p.OwnerReferences)
			if ref == nil {
				return false
			}
			for _, rs := range c.b.ReplicaSets {
				if rs.UID == ref.UID {
					return true
				}
			}
			return false
		})
	case "ReplicaSet", "StatefulSet", "DaemonSet", "Job":
		sel := selectorOfTarget(c.b)
		if sel == "" {
			return
		}
		uid := types.UID(c.b.Target.UID)
		c.pods(ctx, ns, sel, func(p *corev1.Pod) bool {
			ref := controllerOf(p.OwnerReferences)
			return ref != nil && ref.UID == uid
		})
	case "CronJob":
		c.cronJobChildren(ctx, ns)
	}
}

func selectorOfTarget(b *Bundle) string {
	var ls *metav1.LabelSelector
	switch {
	case len(b.ReplicaSets) > 0 && b.Target.Kind == "ReplicaSet":
		ls = b.ReplicaSets[0].Spec.Selector
	case len(b.StatefulSets) > 0 && b.Target.Kind == "StatefulSet":
		ls = b.StatefulSets[0].Spec.Selector
	case len(b.DaemonSets) > 0 && b.Target.Kind == "DaemonSet":
		ls = b.DaemonSets[0].Spec.Selector
	case len(b.Jobs) > 0 && b.Target.Kind == "Job":
		ls = b.Jobs[0].Spec.Selector
	}
	if ls == nil {
		return ""
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return ""
	}
	return sel.String()
}

func ownedBy(obj metav1.Object, uid types.UID) bool {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// pods lists a workload's pods by selector, keeps those keep accepts, and of
// those the unhealthy first, up to MaxPods.
func (c *collector) pods(ctx context.Context, ns, selector string, keep func(*corev1.Pod) bool) {
	kept := c.listPods(ctx, ns, selector, keep)
	if len(kept) > c.opts.MaxPods {
		kept = kept[:c.opts.MaxPods]
	}
	for _, p := range kept {
		c.addTyped(p, gvkPod)
	}
}

// listPods lists pods by selector and returns those keep accepts, the
// unhealthy first, then the newest.
func (c *collector) listPods(ctx context.Context, ns, selector string, keep func(*corev1.Pod) bool) []*corev1.Pod {
	c.count()
	list, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		c.problem("pods matching "+selector, err)
		return nil
	}
	var kept []*corev1.Pod
	for i := range list.Items {
		if keep(&list.Items[i]) {
			kept = append(kept, &list.Items[i])
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		hi, hj := podHealthy(kept[i]), podHealthy(kept[j])
		if hi != hj {
			return !hi
		}
		return kept[i].CreationTimestamp.After(kept[j].CreationTimestamp.Time)
	})
	return kept
}

func podHealthy(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded {
		return true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podStage reads what the collected pods (and the target's pod template)
// reference, the namespace and its policy objects, the pods' nodes and
// their logs, in parallel.
func (c *collector) podStage(ctx context.Context, target *unstructured.Unstructured) {
	c.mu.Lock()
	pods := append([]*corev1.Pod(nil), c.b.Pods...)
	c.mu.Unlock()
	c.fanOut(ctx, 3, func(i int) {
		switch i {
		case 0:
			c.podRelated(ctx, pods, templateRefs(target))
		case 1:
			c.namespaceAndQuotas(ctx)
		default:
			c.nodesAndLogs(ctx, pods)
		}
	})
}

// nodesAndLogs fetches the pods' nodes and logs with bounded concurrency.
func (c *collector) nodesAndLogs(ctx context.Context, pods []*corev1.Pod) {
	wantNodes := c.opts.wants(NeedNodes)
	if wantNodes && unscheduled(pods) {
		// The scheduler's "Insufficient cpu" only means something next to
		// what the nodes offer; one list of nodes, bounded.
		c.nodes(ctx)
	}
	// Every task is listed before any runs: the fetches append to the
	// bundle, so nothing may read it while they are under way.
	var tasks []func()
	podNodes := map[string]bool{}
	for _, p := range pods {
		if n := p.Spec.NodeName; n != "" && !podNodes[n] {
			podNodes[n] = true
			if wantNodes && c.haveNode(n) == nil {
				tasks = append(tasks, func() { c.node(ctx, n) })
			}
		}
	}
	for _, p := range pods {
		if !c.opts.wants(NeedLogs) {
			break
		}
		for _, l := range logRequests(p) {
			tasks = append(tasks, func() { c.log(ctx, p.Namespace, p.Name, l) })
		}
	}
	c.fanOut(ctx, len(tasks), func(i int) { tasks[i]() })
}

func (c *collector) haveNode(name string) *corev1.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.Node(name)
}

// eventWorthy kinds have events that explain failures; the rest (config,
// accounts, classes, slices, quotas) are read for their content only.
var eventWorthy = map[string]bool{
	"Pod": true, "Node": true, "ReplicaSet": true, "Deployment": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "PersistentVolumeClaim": true, "PersistentVolume": true, "Service": true,
	"Ingress": true, "HorizontalPodAutoscaler": true,
}

// idleOldReplicaSets are scaled-down revisions other than the newest: their
// events, if any survive, say nothing about today, and reading them would
// make the cost grow with the rollout history.
func idleOldReplicaSets(rss []*appsv1.ReplicaSet) map[string]bool {
	out := map[string]bool{}
	newest := NewestReplicaSet(rss)
	for _, rs := range rss {
		if rs != newest && rs.Status.Replicas == 0 && (rs.Spec.Replicas == nil || *rs.Spec.Replicas == 0) {
			out[string(rs.UID)] = true
		}
	}
	return out
}

// NewestReplicaSet is the one with the highest revision annotation (creation
// time breaks ties).
func NewestReplicaSet(rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	var best *appsv1.ReplicaSet
	bestRev := int64(-1)
	for _, rs := range rss {
		rev := Revision(rs)
		if best == nil || rev > bestRev || (rev == bestRev && rs.CreationTimestamp.After(best.CreationTimestamp.Time)) {
			best, bestRev = rs, rev
		}
	}
	return best
}

// Revision reads deployment.kubernetes.io/revision, 0 when absent.
func Revision(obj metav1.Object) int64 {
	v, err := strconv.ParseInt(obj.GetAnnotations()["deployment.kubernetes.io/revision"], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

func unscheduled(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			continue
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
				return true
			}
		}
	}
	return false
}

const maxNodes = 500

func (c *collector) nodes(ctx context.Context) {
	c.count()
	list, err := c.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: maxNodes})
	if err != nil {
		c.problem("nodes", err)
		return
	}
	for i := range list.Items {
		c.addTyped(&list.Items[i], gvkNode)
	}
	if list.Continue == "" {
		c.mu.Lock()
		c.b.Cluster.NodesListed = true
		c.mu.Unlock()
	}
}

func (c *collector) node(ctx context.Context, name string) {
	c.count()
	n, err := c.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		c.problem("node "+name, err)
		return
	}
	c.addTyped(n, gvkNode)
}

// involved lists every object in the bundle, target first.
func (c *collector) involved() []fault.Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []fault.Resource{c.b.Target}
	c.b.each(func(gvk schema.GroupVersionKind, o metav1.Object, _ runtime.Object) {
		if string(o.GetUID()) != c.b.Target.UID {
			out = append(out, fault.Resource{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: o.GetName(), Namespace: o.GetNamespace(), UID: string(o.GetUID())})
		}
	})
	return out
}
