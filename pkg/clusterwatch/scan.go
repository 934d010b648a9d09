package clusterwatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/pager"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

const (
	// scanPageSize is the objects per List request, as kubectl's
	// --chunk-size: a large cluster is read in pages, not one response.
	scanPageSize = 500
	// maxScanFaults bounds the faults one scan returns: more faulty objects
	// than this are an outage to look at as a whole, not to queue one by one.
	maxScanFaults = 1000
	// maxKnownFaults bounds the faults a Reconciler remembers from its
	// source between scans (a scan forgets those that are gone).
	maxKnownFaults = 10 * maxScanFaults
)

// scanLimits are a scan's bounds; tests make them small.
type scanLimits struct {
	pageSize  int64
	maxFaults int
}

var defaultScanLimits = scanLimits{pageSize: scanPageSize, maxFaults: maxScanFaults}

// errScanFull stops the listing once the scan holds maxFaults faults.
var errScanFull = errors.New("scan bound reached")

// Scan lists the cluster once and returns a fault event for each object
// whose status shows a fault now, as Run emits it when an object turns
// faulty: the same kinds, fault types (stateFault: not the states every
// healthy object passes through) and event shape ("cluster-" fault IDs,
// opts.Cluster stamped, the time of the scan).
//
// It lists Nodes (only when opts.Namespace is ""), Deployments, Jobs and
// Pods of opts.Namespace or all namespaces, in pages; the fewer and wider
// first, since at most 1000 faults are returned (it logs when it stops
// there). Warning events are not scanned: they tell of moments, and what
// they did to an object shows in its status.
//
// Scan uses opts.Client, Cluster, Namespace, Logger and Now. When a list
// fails it goes on with the other kinds and returns what it found, with the
// errors.
func Scan(ctx context.Context, opts Options) ([]*fault.Event, error) {
	res, err := scan(ctx, opts, defaultScanLimits)
	return res.events, err
}

// scanResult is what one scan found.
type scanResult struct {
	events []*fault.Event
	// complete holds the kinds listed to the end: a kind missing here
	// failed or was cut by the bound, so its absent objects say nothing.
	complete map[string]bool
	// truncated says there were more faults than the bound.
	truncated bool
}

// scannedKind is one kind a scan lists.
type scannedKind struct {
	resource   string // as RBAC names it
	namespaced bool
	gvk        schema.GroupVersionKind
	list       pager.ListPageFunc
}

func scan(ctx context.Context, opts Options, limits scanLimits) (scanResult, error) {
	res := scanResult{complete: map[string]bool{}}
	if opts.Client == nil {
		return res, errors.New("clusterwatch: Options.Client is nil")
	}
	log, now := opts.Logger, opts.Now
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	c, ns := opts.Client, opts.Namespace
	kinds := []scannedKind{
		{"nodes", false, nodeKind, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.CoreV1().Nodes().List(ctx, o)
		}},
		{"deployments.apps", true, deploymentKind, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.AppsV1().Deployments(ns).List(ctx, o)
		}},
		{"jobs.batch", true, jobKind, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.BatchV1().Jobs(ns).List(ctx, o)
		}},
		{"pods", true, podKind, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.CoreV1().Pods(ns).List(ctx, o)
		}},
	}
	at := now()
	var errs []error
	// Nodes come first: a pod on one found not Ready is grouped with it.
	notReady := map[string]bool{}
	for _, k := range kinds {
		if !k.namespaced && ns != "" {
			continue
		}
		p := pager.New(k.list)
		p.PageSize = limits.pageSize
		// One page read ahead, not the default ten: a scan is rare and
		// need not be fast, and pages of big pods add up.
		p.PageBufferSize = 1
		err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
			o, ok := obj.(object)
			if !ok {
				return nil
			}
			faultType, severity, context := stateFault(o, k.gvk)
			if faultType == "" {
				return nil
			}
			if len(res.events) >= limits.maxFaults {
				res.truncated = true
				return errScanFull
			}
			r := fault.Resource{
				APIVersion: k.gvk.GroupVersion().String(),
				Kind:       k.gvk.Kind,
				Name:       o.GetName(),
				Namespace:  o.GetNamespace(),
				UID:        string(o.GetUID()),
			}
			ev, err := newEvent(opts.Cluster, r, faultType, severity, context, at)
			if err != nil {
				log.Error("cannot build fault event", "cluster", opts.Cluster, "kind", r.Kind,
					"namespace", r.Namespace, "name", r.Name, "faultType", faultType, "error", err)
				return nil
			}
			switch o := o.(type) {
			case *corev1.Node:
				notReady[o.Name] = true
			case *corev1.Pod:
				ev.Causes = podCauses(o, func(n string) bool { return notReady[n] })
			}
			res.events = append(res.events, ev)
			return nil
		})
		switch {
		case errors.Is(err, errScanFull):
			log.Warn("too many faulty objects: the scan stopped at its bound", "cluster", opts.Cluster,
				"scope", scopeOf(ns), "faults", len(res.events), "stoppedAt", k.resource)
			return res, errors.Join(errs...)
		case err != nil && ctx.Err() != nil:
			return res, ctx.Err()
		case err != nil:
			errs = append(errs, scanError(k, ns, err))
		default:
			res.complete[k.gvk.Kind] = true
		}
	}
	return res, errors.Join(errs...)
}

// scanError words a failed list like accessError, with what a scan needs.
func scanError(k scannedKind, ns string, err error) error {
	if !apierrors.IsForbidden(err) {
		return accessError("list", k.resource, k.namespaced, ns, err)
	}
	where, needs := " in all namespaces", "pods, deployments.apps, jobs.batch and nodes in all namespaces"
	if ns != "" {
		where, needs = fmt.Sprintf(" in namespace %q", ns), "pods, deployments.apps and jobs.batch in namespace "+ns
	}
	if !k.namespaced {
		where = ""
	}
	return fmt.Errorf("cannot list %s%s: %w: a scan of the cluster's faults needs list on %s", k.resource, where, err, needs)
}

func scopeOf(ns string) string {
	if ns == "" {
		return "all namespaces"
	}
	return "namespace " + ns
}

// Reconciler catches a watch up after a gap in a source that never
// replays, as kubernetes-mcp-server does not: when the source is back
// (Gap), a Scan finds the faults that began meanwhile and Run emits them.
//
// Like that source it reports faults that begin, not faults that exist:
// Run first notes the faults present when it starts (the source reports
// none of them), and a later scan emits only the faults that neither the
// previous scan found nor the source reported since (Observe). So a fault
// that began before the watch is never triaged, and one the source
// reported is not triaged again after a gap; downstream dedup still
// applies on top. When the source says it lost its subscription (Lost), a
// scan notes what exists as the gap begins, so the Gap's scan emits only
// the faults that began during the gap, not those that began earlier
// while the watch ran (which the source chose not to report).
type Reconciler struct {
	opts   Options
	log    *slog.Logger
	now    func() time.Time
	limits scanLimits
	gaps   chan time.Duration
	// lost asks for a scan that notes, without emitting, the faults
	// present as a gap begins: they began before it (after the watch
	// started, unreported by the source), so they are not the gap's.
	lost chan time.Time

	mu sync.Mutex
	// known are the faults last known present, and since when: found by a
	// scan or reported by the source.
	known map[faultKey]time.Time
	// baselined are the kinds listed completely once: until then a kind's
	// faults are noted, not emitted.
	baselined map[string]bool
}

// scannedKinds are the kinds a scan lists.
var scannedKinds = map[string]bool{podKind.Kind: true, nodeKind.Kind: true, deploymentKind.Kind: true, jobKind.Kind: true}

// faultKey is dedup's key without the cluster: a Reconciler sees one.
type faultKey struct{ kind, namespace, name, faultType string }

func keyOf(ev *fault.Event) faultKey {
	return faultKey{ev.ResourceKind(), ev.Namespace(), ev.ResourceName(), ev.FaultType}
}

// anyFault is the key of "some fault of this object was reported".
func (k faultKey) anyFault() faultKey { k.faultType = ""; return k }

// NewReconciler makes a Reconciler of the cluster opts.Client reaches. It
// uses opts.Client, Cluster, Namespace, Logger and Now as Scan does, and
// calls opts.Synced once the faults present at the start are noted.
// opts.Cluster must be the name the source's faults carry when Observe
// sees them (watch maps every server's name for a cluster to its kubeconfig
// context first, and passes that context here), or Observe ignores them
// and dedup does not merge the source's faults with the scan's.
func NewReconciler(opts Options) (*Reconciler, error) {
	if opts.Client == nil {
		return nil, errors.New("clusterwatch: Options.Client is nil")
	}
	r := &Reconciler{
		opts: opts, log: opts.Logger, now: opts.Now, limits: defaultScanLimits,
		gaps: make(chan time.Duration, 1), lost: make(chan time.Time, 1), known: map[faultKey]time.Time{}, baselined: map[string]bool{},
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r, nil
}

// Gap asks for a scan, after a gap of the given length. It never blocks: a
// gap while a scan is pending folds into it; one while a scan runs gets
// one more scan after it.
func (r *Reconciler) Gap(gap time.Duration) {
	select {
	case r.gaps <- gap:
	default:
	}
}

// Lost says the source lost its subscription (at lostAt, at best
// knowledge) and a Gap will follow: a scan notes the faults present now,
// so that the Gap's scan triages only the faults that began during the
// gap. Without it (a subscription found missing only as it is replaced),
// the Gap's scan triages every fault new since the scan before. It never
// blocks.
func (r *Reconciler) Lost(lostAt time.Time) {
	select {
	case r.lost <- lostAt:
	default:
	}
}

// Observe notes a fault the source reported, so that a scan does not emit
// it again. Faults a scan cannot find (another cluster than opts.Cluster,
// another namespace, a kind it does not list) are ignored.
func (r *Reconciler) Observe(ev *fault.Event) {
	if ev == nil || ev.Cluster != r.opts.Cluster || !scannedKinds[ev.ResourceKind()] ||
		(r.opts.Namespace != "" && ev.Namespace() != r.opts.Namespace) {
		return
	}
	k := keyOf(ev)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.known[k]; !ok && len(r.known) >= maxKnownFaults {
		return // at worst, a scan emits it again and dedup has the last word
	}
	r.known[k] = r.now()
	// The server and a scan may name one fault differently (an OOM-killed
	// pod in back-off is CrashLoop to the server, OOMKilled to Classify):
	// an object the source reported is covered until the next scan.
	r.known[k.anyFault()] = r.now()
}

// Run notes the faults present now, then scans after each Gap and passes
// the faults that began since to emit, until ctx is done. A failed scan
// is logged; the next gap scans again. emit is called from Run's goroutine.
func (r *Reconciler) Run(ctx context.Context, emit func(*fault.Event)) {
	r.reconcile(ctx, emit, true, 0)
	if r.opts.Synced != nil {
		r.opts.Synced()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.lost:
			r.note(ctx)
		case gap := <-r.gaps:
			// A loss signalled before this gap ended is noted first.
			select {
			case <-r.lost:
				r.note(ctx)
			default:
			}
			r.reconcile(ctx, emit, false, gap)
		}
	}
}

// reconcile scans and emits the new faults; the first scan only notes
// what is there.
func (r *Reconciler) reconcile(ctx context.Context, emit func(*fault.Event), first bool, gap time.Duration) {
	start := r.now()
	res, err := scan(ctx, r.opts, r.limits)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		r.log.Warn("cannot scan the cluster for faults missed during a gap", "cluster", r.opts.Cluster,
			"scope", scopeOf(r.opts.Namespace), "error", err)
	}
	fresh := r.update(res, start)
	if first {
		r.log.Info("noted the faults present now: after a gap, only faults that began later are triaged",
			"cluster", r.opts.Cluster, "scope", scopeOf(r.opts.Namespace), "faulty", len(res.events))
	} else {
		r.log.Info("reconciling after a gap", "cluster", r.opts.Cluster, "scope", scopeOf(r.opts.Namespace),
			"gap", gap.Round(time.Millisecond), "faults", len(fresh), "faulty", len(res.events))
	}
	for _, ev := range fresh {
		emit(ev)
	}
}

// note scans as a gap begins and records what it found without emitting
// it: faults that began after the watch started but before the gap, which
// the source did not report, are not the gap's to triage.
func (r *Reconciler) note(ctx context.Context) {
	start := r.now()
	res, err := scan(ctx, r.opts, r.limits)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		r.log.Warn("cannot scan the cluster as the gap begins", "cluster", r.opts.Cluster,
			"scope", scopeOf(r.opts.Namespace), "error", err)
	}
	before := r.update(res, start)
	r.log.Info("noted the faults present as the gap began: after it, only faults that began during it are triaged",
		"cluster", r.opts.Cluster, "scope", scopeOf(r.opts.Namespace), "faulty", len(res.events), "unreported", len(before))
}

// update records what a scan that started at start found and returns the
// faults that are new.
func (r *Reconciler) update(res scanResult, start time.Time) []*fault.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var fresh []*fault.Event
	for _, ev := range res.events {
		k := keyOf(ev)
		_, known := r.known[k]
		_, reported := r.known[k.anyFault()]
		if !known && !reported && r.baselined[k.kind] {
			fresh = append(fresh, ev)
		}
		r.known[k] = start
	}
	// Faults of a kind listed completely that were not found, nor reported
	// during the scan, are over: should they come back, they are new.
	for k, seen := range r.known {
		if res.complete[k.kind] && seen.Before(start) {
			delete(r.known, k)
		}
	}
	for kind := range res.complete {
		r.baselined[kind] = true
	}
	return fresh
}
