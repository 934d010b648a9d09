package mcpsource

import "sync"

// handoff is the buffer between the SDK's handler and the caller's.
type handoff struct {
	mu       sync.Mutex
	ch       chan Message
	closed   bool
	dropping bool // the last offer was dropped
}

type offerResult int

const (
	offerAccepted offerResult = iota
	offerFirstDrop
	offerDropped
	offerClosed
)

func newHandoff(size int) *handoff { return &handoff{ch: make(chan Message, size)} }

// offer never blocks.
func (h *handoff) offer(m Message) offerResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return offerClosed // a straggler after Run ended
	}
	select {
	case h.ch <- m:
		h.dropping = false
		return offerAccepted
	default:
		if h.dropping {
			return offerDropped
		}
		h.dropping = true
		return offerFirstDrop
	}
}

func (h *handoff) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.ch)
	}
}
