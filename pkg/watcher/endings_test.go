package watcher

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// TestMaxIncidentsCountsIncidents: a fault that never became an incident
// (the cluster refused us) does not use up --max-incidents.
func TestMaxIncidentsCountsIncidents(t *testing.T) {
	ft := &fakeTriage{}
	refusing := func(ctx context.Context, ev *fault.Event) (*incident.Incident, error) {
		if ev.ResourceName() == "refused" {
			ft.mu.Lock()
			ft.names = append(ft.names, "refused")
			ft.mu.Unlock()
			return nil, errors.New("connect to cluster: forbidden")
		}
		return ft.run(ctx, ev)
	}
	w, err := New(Config{DedupWindow: time.Minute, MaxIncidents: 2, Triage: refusing})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		done <- w.Run(context.Background(), feed(faultFrame("refused", "warning"), faultFrame("a", "warning"), faultFrame("b", "warning"), faultFrame("c", "warning")))
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not stop after two incidents")
	}
	if got := ft.got(); strings.Join(got, ",") != "refused,a,b" {
		t.Errorf("triaged %v, want refused (no incident), then a and b", got)
	}
}

// syncBuffer is a log sink for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestQueuedFaultsAtShutdownAreLoggedEach: every fault still queued when the
// watch stops gets a line of its own saying it was not triaged.
func TestQueuedFaultsAtShutdownAreLoggedEach(t *testing.T) {
	ft := &fakeTriage{block: make(chan struct{}), started: make(chan string, 4)}
	var logs syncBuffer
	w, _ := New(Config{DedupWindow: time.Minute, DrainTimeout: 50 * time.Millisecond, Triage: ft.run,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx, interrupt := context.WithCancel(context.Background())
	src, sent := feedSent(faultFrame("a", "warning"), faultFrame("b", "warning"), faultFrame("c", "warning"))
	done := make(chan error)
	go func() { done <- w.Run(ctx, src) }()
	<-ft.started
	<-sent
	interrupt()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, name := range []string{"b", "c"} {
		if !strings.Contains(out, `msg="fault not triaged: the watch stopped"`) || !strings.Contains(out, "name="+name) {
			t.Errorf("no line for queued fault %s:\n%s", name, out)
		}
	}
	if n := strings.Count(out, "fault not triaged"); n != 2 {
		t.Errorf("%d not-triaged lines, want 2:\n%s", n, out)
	}
}
