package watcher

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

func faultFrame(name, severity string) []byte {
	return fmt.Appendf(nil, `{"faultId":"f-%s","cluster":"c1","faultType":"CrashLoop","severity":%q,"resource":{"kind":"Pod","name":%q,"namespace":"shop"}}`, name, severity, name)
}

// fakeTriage records what it was asked to triage; block, when set, holds
// each triage until it is closed or the triage's context ends.
type fakeTriage struct {
	mu        sync.Mutex
	names     []string
	block     chan struct{}
	started   chan string
	cancelled atomic.Int32
}

func (f *fakeTriage) run(ctx context.Context, ev *fault.Event) (*incident.Incident, error) {
	f.mu.Lock()
	f.names = append(f.names, ev.ResourceName())
	f.mu.Unlock()
	if f.started != nil {
		f.started <- ev.ResourceName()
	}
	inc := incident.New("id-"+ev.ResourceName(), ev, "ctx", "builtin", time.Now())
	inc.Status = incident.Resolved
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			f.cancelled.Add(1)
			inc.Status, inc.FailureReason = incident.Failed, incident.ReasonCancelled
		}
	}
	return inc, nil
}

func (f *fakeTriage) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.names...)
}

// feed is a source that sends frames, then waits for the watch to end.
func feed(frames ...[]byte) Source {
	src, _ := feedSent(frames...)
	return src
}

// feedSent is feed, with a channel closed once every frame is ingested.
func feedSent(frames ...[]byte) (Source, <-chan struct{}) {
	sent := make(chan struct{})
	return SourceFunc(func(ctx context.Context, in Intake) error {
		for _, f := range frames {
			in.Message("kubernetes/faults", "warning", f)
		}
		close(sent)
		<-ctx.Done()
		return nil
	}), sent
}

func TestWatcherMaxIncidents(t *testing.T) {
	ft := &fakeTriage{}
	var seen []Outcome
	var mu sync.Mutex
	f, _ := watch.NewFilter("warning")
	w, err := New(Config{
		Filter: f, DedupWindow: time.Minute, MaxIncidents: 2, Triage: ft.run,
		Observers: []Observer{func(_ context.Context, o Outcome) { mu.Lock(); seen = append(seen, o); mu.Unlock() }},
	})
	if err != nil {
		t.Fatal(err)
	}
	// a: triaged; a again: duplicate; quiet: below warning; b: triaged; c: beyond --max-incidents.
	src := feed(faultFrame("a", "warning"), faultFrame("a", "warning"), faultFrame("quiet", "info"), []byte("{bad"), faultFrame("b", "critical"), faultFrame("c", "warning"))
	done := make(chan error)
	go func() { done <- w.Run(context.Background(), src) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not stop after --max-incidents")
	}
	if got := ft.got(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("triaged %v, want [a b]", got)
	}
	if len(seen) != 2 || seen[0].Incident.IncidentID != "id-a" || seen[0].Cluster != "c1" {
		t.Errorf("observers saw %+v", seen)
	}
	st := w.Stats()
	if st.Received != 6 || st.Deduplicated != 1 || st.Filtered != 1 || st.ParseErrors != 1 || st.Triaged != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestWatcherDrain(t *testing.T) {
	cases := []struct {
		name          string
		drain         time.Duration
		release       bool // the running triage finishes by itself within the drain
		wantCancelled int32
	}{
		{"running triage finishes", time.Minute, true, 0},
		{"drain timeout cancels it", 50 * time.Millisecond, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeTriage{block: make(chan struct{}), started: make(chan string, 4)}
			var outcomes atomic.Int32
			w, _ := New(Config{DedupWindow: time.Minute, DrainTimeout: tc.drain, Triage: ft.run,
				Observers: []Observer{func(context.Context, Outcome) { outcomes.Add(1) }}})
			ctx, interrupt := context.WithCancel(context.Background())
			done := make(chan error)
			src, sent := feedSent(faultFrame("a", "warning"), faultFrame("b", "warning"))
			go func() { done <- w.Run(ctx, src) }()
			<-ft.started // a is running,
			<-sent       // and b waits in the queue
			interrupt()
			if tc.release {
				time.AfterFunc(20*time.Millisecond, func() { close(ft.block) })
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Run did not return after the interrupt")
			}
			if got := ft.got(); len(got) != 1 {
				t.Errorf("triaged %v: the queued fault must not start after the interrupt", got)
			}
			if ft.cancelled.Load() != tc.wantCancelled {
				t.Errorf("cancelled %d, want %d", ft.cancelled.Load(), tc.wantCancelled)
			}
			if outcomes.Load() != 1 {
				t.Errorf("observers saw %d outcomes, want 1 (the drained triage still reports)", outcomes.Load())
			}
			if st := w.Stats(); st.Discarded != 1 {
				t.Errorf("discarded %d, want 1", st.Discarded)
			}
		})
	}
}

func TestWatcherOverflowCounted(t *testing.T) {
	ft := &fakeTriage{block: make(chan struct{}), started: make(chan string, 8)}
	w, _ := New(Config{MaxQueue: 2, Overflow: watch.DropNew, Triage: ft.run, DrainTimeout: time.Millisecond})
	ctx, interrupt := context.WithCancel(context.Background())
	in := make(chan Intake, 1)
	done := make(chan error)
	go func() {
		done <- w.Run(ctx, SourceFunc(func(ctx context.Context, i Intake) error { in <- i; <-ctx.Done(); return nil }))
	}()
	intake := <-in
	intake.Message("kubernetes/faults", "warning", faultFrame("running", "warning"))
	<-ft.started
	for _, n := range []string{"q1", "q2", "over1", "over2"} {
		intake.Message("kubernetes/faults", "warning", faultFrame(n, "warning"))
	}
	if st := w.Stats(); st.Dropped != 2 || w.QueueDepth() != 2 {
		t.Errorf("dropped %d, depth %d; want 2 and 2", st.Dropped, w.QueueDepth())
	}
	interrupt()
	<-done
}

func TestWatcherSourceFailsToStart(t *testing.T) {
	w, _ := New(Config{Triage: (&fakeTriage{}).run})
	err := w.Run(context.Background(), SourceFunc(func(context.Context, Intake) error {
		return fmt.Errorf("cannot connect to MCP server")
	}))
	if err == nil || err.Error() != "cannot connect to MCP server" {
		t.Errorf("Run = %v, want the source's error", err)
	}
}

func TestNewValidates(t *testing.T) {
	ok := (&fakeTriage{}).run
	for _, c := range []Config{{}, {Triage: ok, MaxIncidents: -1}, {Triage: ok, MaxQueue: -1}, {Triage: ok, DedupWindow: -time.Second}} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
}

// TestWatcherRetention: with --retention, finished incidents older than it
// are removed when the watch starts; younger and running ones stay.
func TestWatcherRetention(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	mk := func(id string, status incident.Status, finishedAgo time.Duration) string {
		ev := &fault.Event{Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "ns"}, FaultType: "CrashLoop"}
		inc := incident.New(id, ev, "ctx", "builtin", now.Add(-finishedAgo-time.Minute))
		inc.Status = status
		if status != incident.Investigating {
			done := now.Add(-finishedAgo)
			inc.CompletedAt = &done
		}
		dir := filepath.Join(root, id)
		inc.Workspace = dir
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(inc)
		if err := os.WriteFile(filepath.Join(dir, incident.FileName), b, 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	old := mk("aaaaaaaa-0000-4000-8000-000000000001", incident.Resolved, 100*time.Hour)
	young := mk("aaaaaaaa-0000-4000-8000-000000000002", incident.Failed, time.Hour)
	running := mk("aaaaaaaa-0000-4000-8000-000000000003", incident.Investigating, 200*time.Hour)

	w, _ := New(Config{Triage: (&fakeTriage{}).run, WorkspaceRoot: root, Retention: 72 * time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx, feed()) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(old); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the incident older than --retention was not removed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	for _, dir := range []string{young, running} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(dir), err)
		}
	}
}

// TestWatcherAsyncObserverDoesNotHoldTheQueue: a slow notifier (Slack
// retrying) does not delay the next triage, and still sees every outcome.
func TestWatcherAsyncObserverDoesNotHoldTheQueue(t *testing.T) {
	ft := &fakeTriage{}
	release := make(chan struct{})
	var notified atomic.Int32
	w, _ := New(Config{MaxIncidents: 2, Triage: ft.run, AsyncObservers: []Observer{func(ctx context.Context, o Outcome) {
		<-release
		notified.Add(1)
	}}})
	done := make(chan error)
	go func() {
		done <- w.Run(context.Background(), feed(faultFrame("a", "warning"), faultFrame("b", "warning")))
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(ft.got()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("triaged %v while the notifier was stuck: the queue waited for it", ft.got())
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if notified.Load() != 2 {
		t.Errorf("notified %d outcomes, want 2", notified.Load())
	}
}

// TestWatcherParsedSeesEveryFault: the Parsed hook sees each fault a
// message carried, filtered or not, and nothing for bad input.
func TestWatcherParsedSeesEveryFault(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	f, _ := watch.NewFilter("warning")
	w, _ := New(Config{Filter: f, MaxIncidents: 1, Triage: (&fakeTriage{}).run, Parsed: func(ev *fault.Event) {
		mu.Lock()
		seen = append(seen, ev.ResourceName())
		mu.Unlock()
	}})
	if err := w.Run(context.Background(), feed(faultFrame("quiet", "info"), []byte("{bad"), faultFrame("a", "warning"))); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "quiet" || seen[1] != "a" {
		t.Errorf("Parsed saw %v, want [quiet a]", seen)
	}
}

// A fault is named by the cluster it is triaged on from intake on: the
// server's name for the current cluster (its kubeconfig context) and ""
// are one cluster to Parsed (the reconciler) and to dedup.
func TestWatcherOneIdentityPerCluster(t *testing.T) {
	ft := &fakeTriage{}
	var mu sync.Mutex
	var parsed []string
	w, err := New(Config{
		DedupWindow: time.Minute, MaxIncidents: 2, Triage: ft.run, DefaultCluster: "prod-eu-1",
		ClusterOf: func(ev *fault.Event) string {
			if ev.Cluster == "other" {
				return "other"
			}
			return "prod-eu-1" // "" and the context name alike
		},
		Parsed: func(ev *fault.Event) { mu.Lock(); parsed = append(parsed, ev.Cluster); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	frame := func(cluster, name string) []byte {
		return fmt.Appendf(nil, `{"faultId":"f","cluster":%q,"faultType":"CrashLoop","severity":"critical","resource":{"kind":"Pod","name":%q,"namespace":"shop"}}`, cluster, name)
	}
	src := SourceFunc(func(ctx context.Context, in Intake) error {
		in.Message("kubernetes/faults", "warning", frame("prod-eu-1", "a"))
		in.Message("kubernetes/faults", "warning", frame("", "a")) // the scan's view of the same fault
		in.Event(&fault.Event{FaultType: "CrashLoop", Severity: "critical", Resource: &fault.Resource{Kind: "Pod", Name: "a", Namespace: "shop"}})
		in.Message("kubernetes/faults", "warning", frame("other", "a")) // another cluster: its own fault
		<-ctx.Done()
		return nil
	})
	if err := w.Run(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if got := ft.got(); len(got) != 2 {
		t.Errorf("triaged %v, want pod a once per cluster", got)
	}
	if st := w.Stats(); st.Deduplicated != 2 {
		t.Errorf("deduplicated %d, want 2", st.Deduplicated)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"prod-eu-1", "prod-eu-1", "other"}; fmt.Sprint(parsed) != fmt.Sprint(want) {
		t.Errorf("Parsed saw clusters %q, want %q", parsed, want)
	}
}

// The log says why a fault was dropped: a Node fault dropped because of -n
// is not "below --min-severity".
func TestWatcherLogsFilterReason(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f, _ := watch.NewFilter("warning")
	w, err := New(Config{Filter: f.InNamespaces("shop"), Triage: (&fakeTriage{}).run, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	src, sent := feedSent(
		[]byte(`{"faultId":"n","faultType":"NodeUnhealthy","severity":"critical","resource":{"kind":"Node","name":"n1"}}`),
		[]byte(`{"faultId":"q","faultType":"PodCrash","severity":"info","resource":{"kind":"Pod","name":"q","namespace":"shop"}}`),
	)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-sent; cancel() }()
	if err := w.Run(ctx, src); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	for kind, want := range map[string]string{"kind=Node": `msg="fault filtered: outside the namespace of -n"`, "kind=Pod": `msg="fault filtered: below --min-severity"`} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			found = found || (strings.Contains(line, kind) && strings.Contains(line, want))
		}
		if !found {
			t.Errorf("no %s line for %s:\n%s", want, kind, out)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
