package watch

// ring is a growable FIFO on a circular buffer. Not safe for concurrent use.
type ring[T any] struct {
	buf  []T
	head int // index of the oldest item
	n    int
}

func (r *ring[T]) len() int { return r.n }

// push appends v, growing the buffer up to limit items (limit <= 0: no limit).
// The caller keeps n below limit.
func (r *ring[T]) push(v T, limit int) {
	if r.n == len(r.buf) {
		c := max(2*len(r.buf), 16)
		if limit > 0 && c > limit {
			c = limit
		}
		buf := make([]T, c)
		k := copy(buf, r.buf[r.head:])
		copy(buf[k:], r.buf[:r.head])
		r.buf, r.head = buf, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = v
	r.n++
}

// front is the oldest item; the ring must not be empty.
func (r *ring[T]) front() T { return r.buf[r.head] }

// pop removes and returns the oldest item; the ring must not be empty.
func (r *ring[T]) pop() T {
	var zero T
	v := r.buf[r.head]
	r.buf[r.head] = zero // release references
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	if r.n == 0 {
		r.head = 0
	}
	return v
}

// shrink gives back a buffer much larger than its contents (after a burst).
func (r *ring[T]) shrink() {
	if len(r.buf) <= 64 || r.n > len(r.buf)/4 {
		return
	}
	buf := make([]T, max(2*r.n, 16))
	for i := 0; i < r.n; i++ {
		buf[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	r.buf, r.head = buf, 0
}
