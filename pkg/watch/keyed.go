package watch

import (
	"context"
	"sync"
	"sync/atomic"
)

// Keyed runs items one at a time per key and keys in parallel: with the
// cluster as key, it is watch mode's "one agent at a time per cluster".
// Each key has its own bounded Queue (same overflow policy), and a worker
// goroutine that exists only while the key has work, so an idle key costs
// nothing and a flood of distinct keys leaves nothing behind.
//
// Shutdown: Close stops intake and lets the workers finish what is queued;
// cancelling the context given to NewKeyed stops intake and starts nothing
// more (queued items are discarded, counted by Discarded), while the
// handler calls already running continue: the handler gets no context from
// Keyed, so the caller decides whether to cancel them (--drain-timeout).
type Keyed[T any] struct {
	ctx     context.Context
	keyOf   func(T) string
	handle  func(T)
	max     int
	policy  Overflow
	mu      sync.Mutex
	queues  map[string]*Queue[T] // keys with a live worker
	closed  bool
	wg      sync.WaitGroup
	dropped atomic.Uint64
	discard atomic.Uint64
	// OnDiscard, when set before the first Push, is called for each queued
	// item discarded because the context ended, so each can be reported.
	OnDiscard func(T)
}

// NewKeyed makes a Keyed whose per-key queues hold at most maxPerKey items.
func NewKeyed[T any](ctx context.Context, maxPerKey int, policy Overflow, keyOf func(T) string, handle func(T)) *Keyed[T] {
	if maxPerKey <= 0 {
		maxPerKey = DefaultQueueSize
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return &Keyed[T]{ctx: ctx, keyOf: keyOf, handle: handle, max: maxPerKey, policy: policy, queues: map[string]*Queue[T]{}}
}

// Push queues v under its key, starting the key's worker if it has none.
// The dropped item, if any, is returned as with Queue.Push.
func (k *Keyed[T]) Push(v T) (lost T, dropped bool) {
	key := k.keyOf(v)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || k.ctx.Err() != nil {
		k.dropped.Add(1)
		return v, true
	}
	q := k.queues[key]
	if q == nil {
		q = NewQueue[T](k.max, k.policy)
		k.queues[key] = q
		k.wg.Add(1)
		go k.work(key, q)
	}
	lost, dropped = q.Push(v)
	if dropped {
		k.dropped.Add(1)
	}
	return lost, dropped
}

// work runs key's items in order and exits when there are none left. Push
// and the exit both hold k.mu, so no item is ever left without a worker.
func (k *Keyed[T]) work(key string, q *Queue[T]) {
	defer k.wg.Done()
	for {
		k.mu.Lock()
		if k.ctx.Err() != nil {
			var left []T
			for {
				v, ok := q.TryPop()
				if !ok {
					break
				}
				left = append(left, v)
			}
			delete(k.queues, key)
			k.mu.Unlock()
			k.discard.Add(uint64(len(left)))
			if k.OnDiscard != nil {
				for _, v := range left {
					k.OnDiscard(v)
				}
			}
			return
		}
		v, ok := q.TryPop()
		if !ok {
			delete(k.queues, key)
			k.mu.Unlock()
			return
		}
		k.mu.Unlock()
		k.handle(v)
	}
}

// Close stops intake; queued items still run. Wait for them with Wait.
func (k *Keyed[T]) Close() {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
}

// Wait blocks until every worker has exited (after Close, or the context's
// end, and the running handlers returning).
func (k *Keyed[T]) Wait() { k.wg.Wait() }

// Len is the number of queued items over all keys, not counting running ones.
func (k *Keyed[T]) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, q := range k.queues {
		n += q.Len()
	}
	return n
}

// Active is the number of keys with a worker (running or queued work).
func (k *Keyed[T]) Active() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.queues)
}

// Dropped counts items lost to a full per-key queue or pushed after
// Close or the context's end.
func (k *Keyed[T]) Dropped() uint64 { return k.dropped.Load() }

// Discarded counts queued items never run because the context ended.
func (k *Keyed[T]) Discarded() uint64 { return k.discard.Load() }
