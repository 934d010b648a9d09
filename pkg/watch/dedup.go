package watch

import (
	"strings"
	"sync"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// DefaultDedupMaxKeys bounds a Dedup's memory when no bound is given: about
// 14 MiB for keys of a typical 55 bytes (~145 bytes/key, BenchmarkDedupMemory).
const DefaultDedupMaxKeys = 100_000

// KeyOf is the dedup key of an event: cluster/namespace/kind/name/faultType.
// Parts are escaped ('%' → %25, '/' → %2F) so that no two events share a
// key by accident (context names may hold slashes).
func KeyOf(ev *fault.Event) string {
	var b strings.Builder
	parts := [5]string{ev.Cluster, ev.Namespace(), ev.ResourceKind(), ev.ResourceName(), ev.FaultType}
	n := 4
	for _, p := range parts {
		n += len(p)
	}
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('/')
		}
		if strings.ContainsAny(p, "/%") {
			p = strings.NewReplacer("%", "%25", "/", "%2F").Replace(p)
		}
		b.WriteString(p)
	}
	return b.String()
}

// Dedup drops repeats of a key within a window: the first event for a key is
// new, and so is the first one a whole window after the last new one (the
// window is fixed from the last new event, not sliding, so a fault that
// keeps firing is triaged again once per window rather than never again).
//
// Memory is bounded: keys older than the window expire, and when MaxKeys
// keys are held the oldest is evicted (it may then be seen as new again
// early: bounded memory wins over perfect dedup). Time is passed in (Seen's
// now), so the clock is the caller's and tests need no sleeping. Safe for
// concurrent use.
type Dedup struct {
	mu      sync.Mutex
	window  int64 // ns
	maxKeys int
	last    map[string]int64 // key → time (UnixNano) it was last new
	order   ring[dedupEntry] // keys in the order they were last new
	peak    int
	evicted uint64
}

type dedupEntry struct {
	key string
	at  int64
}

// NewDedup makes a dedup over window holding at most maxKeys keys
// (DefaultDedupMaxKeys when maxKeys <= 0). A window <= 0 disables dedup:
// Seen is always false and nothing is held.
func NewDedup(window time.Duration, maxKeys int) *Dedup {
	if maxKeys <= 0 {
		maxKeys = DefaultDedupMaxKeys
	}
	return &Dedup{window: int64(window), maxKeys: maxKeys, last: map[string]int64{}}
}

// Window is the dedup window.
func (d *Dedup) Window() time.Duration { return time.Duration(d.window) }

// Seen reports whether key was new less than a window before now (the event
// is a duplicate); if not, it records key as new at now.
func (d *Dedup) Seen(key string, now time.Time) bool {
	if d.window <= 0 {
		return false
	}
	t := now.UnixNano()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(t)
	if at, ok := d.last[key]; ok && t-at < d.window {
		// (A clock that stepped back makes t-at negative: still a repeat.)
		return true
	}
	for d.order.len() >= d.maxKeys {
		e := d.order.pop()
		if d.last[e.key] == e.at {
			delete(d.last, e.key)
			d.evicted++
		}
	}
	d.last[key] = t
	d.order.push(dedupEntry{key, t}, d.maxKeys)
	d.peak = max(d.peak, len(d.last))
	return false
}

// Forget drops key, so its next event is new: for an event that was
// accepted but then never triaged (dropped by a full queue).
func (d *Dedup) Forget(key string) {
	d.mu.Lock()
	delete(d.last, key) // its order entry goes stale and is skipped
	d.mu.Unlock()
}

// expire drops the keys whose window ended at t. Entries are in time order
// unless the clock stepped back; then expiry is merely late.
func (d *Dedup) expire(t int64) {
	for d.order.len() > 0 {
		e := d.order.front()
		if t-e.at < d.window {
			break
		}
		d.order.pop()
		if d.last[e.key] == e.at {
			delete(d.last, e.key)
		}
	}
	// Give back memory after a burst: Go maps never shrink.
	if d.peak > 4096 && len(d.last) < d.peak/8 {
		m := make(map[string]int64, len(d.last))
		for k, v := range d.last {
			m[k] = v
		}
		d.last, d.peak = m, len(m)
		d.order.shrink()
	}
}

// Len is the number of keys held.
func (d *Dedup) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.last)
}

// Evicted counts keys dropped before their window ended because the dedup
// was full.
func (d *Dedup) Evicted() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.evicted
}
