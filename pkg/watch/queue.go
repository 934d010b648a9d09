package watch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Overflow is what a full Queue does with one more item.
type Overflow int

const (
	// DropOldest drops the oldest queued item to make room: the freshest
	// faults are the ones worth triaging.
	DropOldest Overflow = iota
	// DropNew refuses the new item.
	DropNew
)

func (o Overflow) String() string {
	switch o {
	case DropOldest:
		return "drop-oldest"
	case DropNew:
		return "drop-new"
	}
	return fmt.Sprintf("Overflow(%d)", int(o))
}

// ParseOverflow reads "drop-oldest" or "drop-new".
func ParseOverflow(s string) (Overflow, error) {
	switch s {
	case "drop-oldest", "":
		return DropOldest, nil
	case "drop-new":
		return DropNew, nil
	}
	return 0, fmt.Errorf("unknown overflow policy %q: want drop-oldest or drop-new", s)
}

// DefaultQueueSize bounds a Queue when no bound is given.
const DefaultQueueSize = 1000

// ErrClosed is returned by Pop once a closed Queue is empty.
var ErrClosed = errors.New("queue closed")

// Queue is a bounded FIFO between a source and the triage loop. Push never
// blocks (an MCP client calls its handler one notification at a time and
// must not stall): when full, the Overflow policy drops an item, counted.
// Pop blocks until an item, the context's end, or Close. Safe for
// concurrent use by any number of producers and consumers.
type Queue[T any] struct {
	mu      sync.Mutex
	items   ring[T]
	max     int
	policy  Overflow
	closed  bool
	ready   chan struct{} // holds a token while items may be waiting
	done    chan struct{} // closed by Close
	dropped atomic.Uint64
}

// NewQueue makes a queue of at most max items (DefaultQueueSize when max <= 0).
func NewQueue[T any](max int, policy Overflow) *Queue[T] {
	if max <= 0 {
		max = DefaultQueueSize
	}
	return &Queue[T]{max: max, policy: policy, ready: make(chan struct{}, 1), done: make(chan struct{})}
}

// Push adds v. When something had to be dropped (the oldest item under
// DropOldest; v itself under DropNew or after Close) it is returned with
// dropped true, so the caller can log which fault was lost.
func (q *Queue[T]) Push(v T) (lost T, dropped bool) {
	q.mu.Lock()
	switch {
	case q.closed:
		q.mu.Unlock()
		q.dropped.Add(1)
		return v, true
	case q.items.len() >= q.max && q.policy == DropNew:
		q.mu.Unlock()
		q.dropped.Add(1)
		return v, true
	case q.items.len() >= q.max:
		lost, dropped = q.items.pop(), true
		q.dropped.Add(1)
	}
	q.items.push(v, q.max)
	q.mu.Unlock()
	q.signal()
	return lost, dropped
}

func (q *Queue[T]) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// Pop takes the oldest item, waiting for one. It returns ctx.Err() when ctx
// ends first, and ErrClosed when the queue is closed and empty.
func (q *Queue[T]) Pop(ctx context.Context) (T, error) {
	for {
		if v, ok, closed := q.tryPop(); ok {
			return v, nil
		} else if closed {
			return v, ErrClosed
		}
		select {
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		case <-q.ready:
		case <-q.done:
		}
	}
}

// TryPop takes the oldest item if there is one, without waiting.
func (q *Queue[T]) TryPop() (T, bool) {
	v, ok, _ := q.tryPop()
	return v, ok
}

func (q *Queue[T]) tryPop() (v T, ok, closed bool) {
	q.mu.Lock()
	if q.items.len() == 0 {
		closed = q.closed
		q.mu.Unlock()
		return v, false, closed
	}
	v = q.items.pop()
	more := q.items.len() > 0
	q.mu.Unlock()
	if more {
		q.signal() // pass the wake-up on to another consumer
	}
	return v, true, false
}

// Close stops intake: later Pushes are dropped; Pop drains what is queued,
// then returns ErrClosed. Close is idempotent.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.done)
	}
}

// Len is the number of queued items (a metrics gauge).
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.items.len()
}

// Cap is the bound.
func (q *Queue[T]) Cap() int { return q.max }

// Dropped counts the items lost to overflow or pushed after Close.
func (q *Queue[T]) Dropped() uint64 { return q.dropped.Load() }
