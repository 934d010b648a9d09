// Package clusterwatch is the `cluster` source of `kubectl triage watch`
// (DESIGN.md §9): it turns what happens in a cluster into fault events with
// nothing but a kubeconfig, where the `mcp` source needs a
// kubernetes-mcp-server.
//
// Two kinds of signal become faults:
//   - state transitions of Pods, Nodes, Deployments and Jobs, named by
//     fault.Classify and edge-triggered (an object that turns faulty
//     yields one event, not one per update; see tracker);
//   - Warning events, named by fault.ReasonFaultType, so that a state and
//     the warnings about it share a fault type and dedup downstream merges
//     them.
//
// It only lists and watches (shared informers), so it works through the
// read-only transport of pkg/readonly.
package clusterwatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Options configure Run.
type Options struct {
	// Client lists and watches the cluster; a read-only one is enough.
	Client kubernetes.Interface
	// Cluster is stamped on each event (the kubeconfig cluster or context
	// name), so dedup and the per-cluster runner tell clusters apart.
	Cluster string
	// Namespace limits the watch to one namespace; "" watches all of them,
	// and Nodes too (they are cluster-scoped).
	Namespace string
	// IncludeExisting emits, once, the faults already present when the
	// watch starts: faulty objects, and Warning events of the last hour.
	// Otherwise only what happens afterwards is emitted.
	IncludeExisting bool
	// Logger gets the watch's own diagnostics; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Synced, if set, is called once when every resource has been listed
	// and the initial objects handled (with IncludeExisting: the existing
	// faults emitted), before Run goes on watching.
	Synced func()
	// Stats, if set, is updated as Run goes.
	Stats *Stats
}

// Stats count what Run saw and emitted; read them at any time.
type Stats struct {
	// Observed counts object and event notifications handled.
	Observed atomic.Uint64
	// Emitted counts fault events passed to emit.
	Emitted atomic.Uint64
}

// The kinds watched for state faults.
var (
	podKind        = corev1.SchemeGroupVersion.WithKind("Pod")
	nodeKind       = corev1.SchemeGroupVersion.WithKind("Node")
	deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment")
	jobKind        = batchv1.SchemeGroupVersion.WithKind("Job")
)

// Run watches the cluster until ctx is done and passes each new fault to
// emit. It returns nil once ctx is done and the informers have stopped, or
// an error when it cannot start: the identity may not list or watch what it
// needs, or the cluster cannot be reached.
//
// emit is called from the informers' handler goroutines, concurrently for
// different resources, and must not block long: a slow emit delays every
// later notification of its resource (watch.Pipeline.IngestEvent is fast).
// emit may keep the event.
func Run(ctx context.Context, opts Options, emit func(*fault.Event)) error {
	if opts.Client == nil {
		return errors.New("clusterwatch: Options.Client is nil")
	}
	if emit == nil {
		return errors.New("clusterwatch: emit is nil")
	}
	w := newWatcher(opts, emit)
	if err := w.preflight(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}

	// Stopped before Shutdown waits for the informers (defers run last
	// first), also when Run fails before ctx is done.
	informerCtx, stopInformers := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer running.Wait()
	defer stopInformers()

	// A permission error during the initial list or watch cancels the
	// wait for sync with that error as the cause.
	syncCtx, abortSync := context.WithCancelCause(ctx)
	defer abortSync(nil)
	w.abortSync = abortSync

	informers, synced, err := w.register()
	if err != nil {
		return err
	}
	for _, inf := range informers {
		running.Go(func() { inf.RunWithContext(informerCtx) })
	}
	if !cache.WaitFor(syncCtx, "", synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return context.Cause(syncCtx)
	}
	w.synced.Store(true)
	// Synced first: whoever reads the log line below finds /healthz ready.
	if opts.Synced != nil {
		opts.Synced()
	}
	scope := "all namespaces"
	if opts.Namespace != "" {
		scope = "namespace " + opts.Namespace
	}
	w.log.Info("watching cluster for faults", "cluster", opts.Cluster, "scope", scope,
		"includeExisting", opts.IncludeExisting, "tracked", w.tracker.len())
	<-ctx.Done()
	return nil
}

// watcher is one Run's state, shared by the informer handlers.
type watcher struct {
	opts      Options
	emit      func(*fault.Event)
	log       *slog.Logger
	now       func() time.Time
	stats     *Stats
	tracker   *tracker
	hints     causeHints
	synced    atomic.Bool
	abortSync context.CancelCauseFunc
}

func newWatcher(opts Options, emit func(*fault.Event)) *watcher {
	w := &watcher{opts: opts, emit: emit, log: opts.Logger, now: opts.Now, stats: opts.Stats, tracker: newTracker(rearmAfter)}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.now == nil {
		w.now = time.Now
	}
	if w.stats == nil {
		w.stats = &Stats{}
	}
	return w
}

// preflight lists one object of each resource and opens a watch on it, so
// that missing permissions or an unreachable cluster fail Run at once with
// a clear error, instead of informers retrying in the background forever
// (an identity that may list but not watch would even sync, then never
// see a change).
func (w *watcher) preflight(ctx context.Context) error {
	ns := w.opts.Namespace
	c := w.opts.Client
	var none metav1.ListOptions
	checks := []struct {
		resource   string
		namespaced bool
		probe      func() (verb string, err error)
	}{
		{"pods", true, func() (string, error) {
			return probe(ctx, none, c.CoreV1().Pods(ns).List, c.CoreV1().Pods(ns).Watch)
		}},
		{"events", true, func() (string, error) {
			return probe(ctx, warningsOnly(none), c.CoreV1().Events(ns).List, c.CoreV1().Events(ns).Watch)
		}},
		{"deployments.apps", true, func() (string, error) {
			return probe(ctx, none, c.AppsV1().Deployments(ns).List, c.AppsV1().Deployments(ns).Watch)
		}},
		{"jobs.batch", true, func() (string, error) {
			return probe(ctx, none, c.BatchV1().Jobs(ns).List, c.BatchV1().Jobs(ns).Watch)
		}},
		{"nodes", false, func() (string, error) {
			return probe(ctx, none, c.CoreV1().Nodes().List, c.CoreV1().Nodes().Watch)
		}},
	}
	for _, check := range checks {
		if !check.namespaced && ns != "" {
			continue
		}
		if verb, err := check.probe(); err != nil {
			return accessError(verb, check.resource, check.namespaced, ns, err)
		}
	}
	return nil
}

// probe lists at most one object and watches from there, and returns the
// verb that failed.
func probe[L metav1.ListInterface](ctx context.Context, opts metav1.ListOptions,
	list func(context.Context, metav1.ListOptions) (L, error),
	watchFrom func(context.Context, metav1.ListOptions) (watch.Interface, error),
) (string, error) {
	opts.Limit = 1
	l, err := list(ctx, opts)
	if err != nil {
		return "list", err
	}
	opts.Limit, opts.ResourceVersion = 0, l.GetResourceVersion()
	wi, err := watchFrom(ctx, opts)
	if err != nil {
		return "watch", err
	}
	wi.Stop()
	return "", nil
}

// accessError words a failed list or watch like kubectl would, saying what
// to fix when it is a matter of credentials or RBAC.
func accessError(verb, resource string, namespaced bool, ns string, err error) error {
	where := ""
	switch {
	case namespaced && ns != "":
		where = fmt.Sprintf(" in namespace %q", ns)
	case namespaced:
		where = " in all namespaces"
	}
	switch {
	case apierrors.IsForbidden(err):
		needs := "pods, events, deployments.apps and jobs.batch in namespace " + ns
		if ns == "" {
			needs = "pods, events, deployments.apps, jobs.batch and nodes in all namespaces"
		}
		return fmt.Errorf("cannot %s %s%s: %w: the watch needs list and watch on %s", verb, resource, where, err, needs)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("cannot %s %s%s: %w: the credentials of the kubeconfig were rejected; check them with `kubectl auth whoami`", verb, resource, where, err)
	}
	return fmt.Errorf("%s %s%s: %w", verb, resource, where, err)
}

func warningsOnly(opts metav1.ListOptions) metav1.ListOptions {
	opts.FieldSelector = fields.OneTermEqualSelector("type", corev1.EventTypeWarning).String()
	return opts
}

// register makes the informers, one per kind (client-go's informer
// factory would link every API group's informer and lister into the
// binary, docs/DESIGN.md §10), adds their handlers, and returns them with
// what tells that each handler has seen its initial list.
func (w *watcher) register() ([]cache.SharedIndexInformer, []cache.DoneChecker, error) {
	var all []cache.SharedIndexInformer
	var synced []cache.DoneChecker
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	made := func(inf cache.SharedIndexInformer) cache.SharedIndexInformer {
		if err := inf.SetTransform(stripForCache); err != nil {
			panic(err) // only refused once started
		}
		all = append(all, inf)
		return inf
	}
	add := func(resource string, namespaced bool, informer cache.SharedIndexInformer, register func() (cache.ResourceEventHandlerRegistration, error)) error {
		if err := informer.SetWatchErrorHandlerWithContext(w.watchErrorHandler(resource, namespaced)); err != nil {
			return fmt.Errorf("watch %s: %w", resource, err)
		}
		reg, err := register()
		if err != nil {
			return fmt.Errorf("watch %s: %w", resource, err)
		}
		synced = append(synced, reg.HasSyncedChecker())
		return nil
	}

	client, ns := w.opts.Client, w.opts.Namespace
	pods := coreinformers.ToPodIndexInformer(made(coreinformers.NewFilteredPodInformer(client, ns, 0, byNamespace, nil)))
	w.hints.pods = corelisters.NewPodLister(pods.GetIndexer())
	if err := add("pods", true, pods, func() (cache.ResourceEventHandlerRegistration, error) {
		return pods.AddTypedEventHandler(stateHandler[*corev1.Pod](w, podKind))
	}); err != nil {
		return nil, nil, err
	}
	deployments := appsinformers.ToDeploymentIndexInformer(made(appsinformers.NewFilteredDeploymentInformer(client, ns, 0, byNamespace, nil)))
	if err := add("deployments.apps", true, deployments, func() (cache.ResourceEventHandlerRegistration, error) {
		return deployments.AddTypedEventHandler(stateHandler[*appsv1.Deployment](w, deploymentKind))
	}); err != nil {
		return nil, nil, err
	}
	jobs := batchinformers.ToJobIndexInformer(made(batchinformers.NewFilteredJobInformer(client, ns, 0, byNamespace, nil)))
	if err := add("jobs.batch", true, jobs, func() (cache.ResourceEventHandlerRegistration, error) {
		return jobs.AddTypedEventHandler(stateHandler[*batchv1.Job](w, jobKind))
	}); err != nil {
		return nil, nil, err
	}
	if ns == "" {
		nodes := coreinformers.ToNodeIndexInformer(made(coreinformers.NewFilteredNodeInformer(client, 0, cache.Indexers{}, nil)))
		w.hints.nodes = corelisters.NewNodeLister(nodes.GetIndexer())
		if err := add("nodes", false, nodes, func() (cache.ResourceEventHandlerRegistration, error) {
			return nodes.AddTypedEventHandler(stateHandler[*corev1.Node](w, nodeKind))
		}); err != nil {
			return nil, nil, err
		}
	}
	// Only Warning events: the field selector is this informer's alone.
	events := coreinformers.ToEventIndexInformer(made(coreinformers.NewFilteredEventInformer(client, ns, 0, byNamespace,
		func(o *metav1.ListOptions) { *o = warningsOnly(*o) })))
	if err := add("events", true, events, func() (cache.ResourceEventHandlerRegistration, error) {
		return events.AddTypedEventHandler(cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Event]{
			AddFunc: func(e *corev1.Event, initial bool) {
				w.stats.Observed.Add(1)
				if initial && !w.opts.IncludeExisting {
					return
				}
				w.warning(e)
			},
			UpdateFunc: func(oldEvent, newEvent *corev1.Event) {
				w.stats.Observed.Add(1)
				if recurred(oldEvent, newEvent) {
					w.warning(newEvent)
				}
			},
		})
	}); err != nil {
		return nil, nil, err
	}
	return all, synced, nil
}

// object is what the state informers hold.
type object interface {
	metav1.Object
	runtime.Object
}

// stateHandler feeds one kind's notifications to the tracker. Objects in
// the initial list are armed only with IncludeExisting; objects added later
// never are: a new Node registers NotReady, and only a transition of a
// known object is a fault (edge-triggered, like kubernetes-mcp-server).
func stateHandler[T interface {
	cache.Object
	object
}](w *watcher, gvk schema.GroupVersionKind) cache.TypedResourceEventHandlerDetailedFuncs[T] {
	return cache.TypedResourceEventHandlerDetailedFuncs[T]{
		AddFunc: func(obj T, initial bool) {
			w.observe(obj, gvk, initial && w.opts.IncludeExisting)
		},
		UpdateFunc: func(_, obj T) {
			w.observe(obj, gvk, true)
		},
		DeleteFunc: func(d cache.DeletedObject[T]) {
			w.stats.Observed.Add(1)
			w.tracker.forget(gvk.Kind + " " + d.GetKey())
		},
	}
}

func (w *watcher) observe(obj object, gvk schema.GroupVersionKind, armed bool) {
	w.stats.Observed.Add(1)
	faultType, severity, context := stateFault(obj, gvk)
	key := gvk.Kind + " " + cache.MetaObjectToName(obj).String()
	now := w.now()
	if !w.tracker.observe(key, faultType, now, armed) {
		return
	}
	res := fault.Resource{
		APIVersion: gvk.GroupVersion().String(),
		Kind:       gvk.Kind,
		Name:       obj.GetName(),
		Namespace:  obj.GetNamespace(),
		UID:        string(obj.GetUID()),
	}
	var causes []string
	if pod, ok := obj.(*corev1.Pod); ok {
		causes = w.hints.forPod(pod)
	}
	w.send(res, faultType, severity, context, now, causes)
}

// warning emits the fault a Warning event reports, unless it is noise or
// older than existingEventWindow (a relist after a long disconnect).
func (w *watcher) warning(e *corev1.Event) {
	res, faultType, severity, context, ok := eventFault(e)
	if !ok {
		return
	}
	at := bundle.EventTime(e)
	if w.now().Sub(at) > existingEventWindow {
		return
	}
	w.send(res, faultType, severity, context, at, w.hints.forResource(res))
}

func (w *watcher) send(res fault.Resource, faultType, severity, context string, at time.Time, causes []string) {
	ev, err := newEvent(w.opts.Cluster, res, faultType, severity, context, at)
	if err != nil {
		w.log.Error("cannot build fault event", "cluster", w.opts.Cluster, "kind", res.Kind,
			"namespace", res.Namespace, "name", res.Name, "faultType", faultType, "error", err)
		return
	}
	w.log.Debug("fault", "cluster", w.opts.Cluster, "kind", res.Kind, "namespace", res.Namespace,
		"name", res.Name, "faultType", faultType, "severity", severity)
	w.stats.Emitted.Add(1)
	ev.Causes = causes
	w.emit(ev)
}

// newEvent is fault.Synthesize with a fault ID that says where the fault
// came from: Synthesize's "manual-" IDs are for resources the user picked.
func newEvent(cluster string, res fault.Resource, faultType, severity, context string, at time.Time) (*fault.Event, error) {
	ev, err := fault.Synthesize(cluster, res, faultType, severity, context, at)
	if err != nil {
		return nil, err
	}
	ev.FaultID = "cluster-" + strings.TrimPrefix(ev.FaultID, "manual-")
	if ev.Raw, err = json.MarshalIndent(ev, "", "  "); err != nil {
		return nil, err
	}
	return ev, nil
}

// watchErrorHandler logs list and watch failures, which the informer
// retries with back-off. Before the first sync a permission error ends Run
// instead, as in preflight: retrying will not grant it.
func (w *watcher) watchErrorHandler(resource string, namespaced bool) cache.WatchErrorHandlerWithContext {
	return func(_ context.Context, _ *cache.Reflector, err error) {
		if !w.synced.Load() && (apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err)) {
			w.abortSync(accessError("watch", resource, namespaced, w.opts.Namespace, err))
			return
		}
		if errors.Is(err, io.EOF) || apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			// The watch ended or fell behind; the informer relists.
			w.log.Debug("watch restarted", "cluster", w.opts.Cluster, "resource", resource, "error", err)
			return
		}
		w.log.Warn("watch failed; retrying", "cluster", w.opts.Cluster, "resource", resource, "error", err)
	}
}

// lastAppliedAnnotation is kubectl apply's copy of the whole object.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// stripForCache drops what the watch never reads and that can make up most
// of an object's size, before the informer caches it.
func stripForCache(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
		if a := m.GetAnnotations(); a[lastAppliedAnnotation] != "" {
			delete(a, lastAppliedAnnotation)
			m.SetAnnotations(a)
		}
	}
	return obj, nil
}
