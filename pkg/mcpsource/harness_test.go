// The test harness of the source tests: a kubernetes-mcp-server stand-in,
// a collector of the messages the source hands over, and the fixtures.

package mcpsource_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/mcpsource"
	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
)

// waitTimeout is generous: the machine may be loaded.
const waitTimeout = 30 * time.Second

const fixtureNotifications = "../../test/mcpserver/testdata/mcp-notifications.jsonl"

func startServer(t *testing.T, opts mcpserver.Options) (*mcpserver.Server, string) {
	t.Helper()
	srv := mcpserver.New(opts)
	endpoint, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, endpoint
}

// fast are options that make disconnects, checks and reconnects quick.
func fast(endpoint string) mcpsource.Options {
	return mcpsource.Options{
		Endpoint:      endpoint,
		KeepAlive:     500 * time.Millisecond,
		CheckInterval: time.Hour, // tests that need the check shorten it
		MinBackoff:    20 * time.Millisecond,
		MaxBackoff:    200 * time.Millisecond,
	}
}

// collector records what the source hands over.
type collector struct {
	mu   sync.Mutex
	msgs []mcpsource.Message
	got  chan struct{}
}

func newCollector() *collector { return &collector{got: make(chan struct{}, 1)} }

func (c *collector) handle(m mcpsource.Message) {
	c.mu.Lock()
	c.msgs = append(c.msgs, m)
	c.mu.Unlock()
	select {
	case c.got <- struct{}{}:
	default:
	}
}

func (c *collector) messages() []mcpsource.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs)
}

// wait waits for at least n messages.
func (c *collector) wait(t *testing.T, n int) []mcpsource.Message {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		if msgs := c.messages(); len(msgs) >= n {
			return msgs
		}
		select {
		case <-deadline.C:
			t.Fatalf("got %d messages, want %d", len(c.messages()), n)
		case <-c.got:
		}
	}
}

// running is a Source running in the background.
type running struct {
	src    *mcpsource.Source
	cancel context.CancelFunc
	done   chan error
}

func runSource(t *testing.T, opts mcpsource.Options, handle func(mcpsource.Message)) *running {
	t.Helper()
	src, err := mcpsource.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{src: src, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- src.Run(ctx, handle) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels Run and returns its error.
func (r *running) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	select {
	case err, ok := <-r.done:
		if ok {
			close(r.done)
		}
		return err
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return after cancel")
		return nil
	}
}

// eventually polls cond until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ready waits until the source has subscribed and the server has one
// subscription that receives faults.
func (r *running) ready(t *testing.T, srv *mcpserver.Server) {
	t.Helper()
	eventually(t, "the source to subscribe", r.src.Stats().Subscribed.Load)
	waitSubscribed(t, srv, 1)
}

func waitSubscribed(t *testing.T, srv *mcpserver.Server, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := srv.WaitSubscribed(ctx, n); err != nil {
		t.Fatal(err)
	}
}

func onlySubscription(t *testing.T, srv *mcpserver.Server) mcpserver.Subscription {
	t.Helper()
	subs := srv.Subscriptions()
	if len(subs) != 1 {
		t.Fatalf("server has %d subscriptions, want 1: %+v", len(subs), subs)
	}
	return subs[0]
}

func send(t *testing.T, srv *mcpserver.Server, what string, data string) {
	t.Helper()
	n, err := srv.Send(what, json.RawMessage(data))
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("sent %s to %d subscribers, want 1", what, n)
	}
}

func fault1(name string) string {
	return `{"faultId":"f-` + name + `","faultType":"PodCrash","severity":"warning","resource":{"apiVersion":"v1","kind":"Pod","name":"` + name + `","namespace":"default"},"context":"boom"}`
}

// frame is one fixture notification.
type frame struct {
	Logger, Level string
	Data          map[string]any
}

func readFixture(t *testing.T) []frame {
	t.Helper()
	raw, err := mcpserver.ReadFrames(fixtureNotifications)
	if err != nil {
		t.Fatal(err)
	}
	var out []frame
	for _, r := range raw {
		var f struct{ Params frame }
		if err := json.Unmarshal(r, &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, f.Params)
	}
	return out
}

// TestReceivesFixturesInOrder: the fixtures replayed by the server arrive
