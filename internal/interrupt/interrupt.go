// Package interrupt turns SIGINT and SIGTERM into the cancellation of the
// run's context, from the first milliseconds of the process: Catch is
// called by package early during initialisation, long before main (the
// plugin's packages take ~100 ms to initialise: client-go's scheme
// registrations, compiled patterns), so a Ctrl-C in that window is not lost
// (a shell starts background jobs with SIGINT ignored, and Go keeps it
// ignored until something asks for it) nor fatal by the signal itself:
// Context picks it up and the run ends the way a later Ctrl-C ends it.
package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Signals are the signals that cancel a run. SIGINT comes last: once it is
// no longer ignored (/proc/PID/status, for a process started with it
// ignored) both are caught.
var Signals = []os.Signal{syscall.SIGTERM, os.Interrupt}

var (
	mu     sync.Mutex
	caught chan os.Signal // nil until Catch
)

// Catch starts holding SIGINT and SIGTERM for Context. It is
// safe to call more than once.
func Catch() {
	mu.Lock()
	defer mu.Unlock()
	if caught == nil {
		caught = make(chan os.Signal, 1)
		signal.Notify(caught, Signals...)
	}
}

// stopCatching gives the signals back to their default handling and
// returns the one caught meanwhile, if any.
func stopCatching() os.Signal {
	mu.Lock()
	defer mu.Unlock()
	if caught == nil {
		return nil
	}
	signal.Stop(caught)
	var s os.Signal
	select {
	case s = <-caught:
	default:
	}
	caught = nil
	return s
}

// Context returns a context cancelled by the first SIGINT or SIGTERM,
// including one that came before Context was called. After that signal the
// default handling is back, so a second Ctrl-C kills the process as usual.
// stop releases the signals and the context (as signal.NotifyContext's).
func Context(parent context.Context) (context.Context, context.CancelFunc) {
	Catch()
	mu.Lock()
	ch := caught
	mu.Unlock()
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	var once sync.Once
	stop := func() {
		once.Do(func() {
			close(done)
			stopCatching()
		})
	}
	go func() {
		select {
		case s := <-ch:
			stop()
			cancel(fmt.Errorf("%w: %v", context.Canceled, s))
		case <-done:
		case <-ctx.Done():
			stop()
		}
	}()
	return ctx, func() { stop(); cancel(context.Canceled) }
}
