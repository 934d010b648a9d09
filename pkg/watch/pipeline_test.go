package watch

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

func fixtures(tb testing.TB) [][]byte {
	tb.Helper()
	f, err := os.Open("../fault/testdata/mcp-notifications.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			out = append(out, bytes.Clone(l))
		}
	}
	return out
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestPipelineFixtures(t *testing.T) {
	lines := fixtures(t)
	clk := &clock{t0}
	q := NewQueue[*fault.Event](10, DropOldest)
	var c Counters
	f, _ := NewFilter("warning")
	p := &Pipeline{Filter: f, Dedup: NewDedup(15*time.Minute, 0), Sink: q, Counters: &c, Now: clk.now}

	steps := []struct {
		in   []byte
		want Outcome
	}{
		{lines[0], Enqueued},          // PodCrash crashy
		{lines[1], Enqueued},          // CrashLoop crashy: another fault type
		{lines[2], Duplicate},         // events mode BackOff → CrashLoop crashy again, same key
		{lines[3], Enqueued},          // prod-east checkout CrashLoop
		{lines[4], Enqueued},          // OOMKilled
		{lines[5], SubscriptionError}, // subscription_error
		{lines[0], Duplicate},
		{[]byte(`{"resource":{"kind":"Pod","name":"quiet"},"severity":"info"}`), Filtered},
		{[]byte(`{not json`), ParseError},
		{[]byte(`{"faultType":"CrashLoop"}`), ParseError},
	}
	for i, s := range steps {
		r, err := p.Ingest(s.in)
		if r.Outcome != s.want {
			t.Errorf("step %d: %v (%v), want %v", i, r.Outcome, err, s.want)
		}
		if (err != nil) != (s.want == ParseError) {
			t.Errorf("step %d: error %v", i, err)
		}
		if s.want == SubscriptionError && (r.SubscriptionError == nil || !r.SubscriptionError.Degraded) {
			t.Errorf("step %d: %+v", i, r)
		}
		if s.want == Enqueued && (r.Event == nil || r.Event.EventID == "") {
			t.Errorf("step %d: %+v", i, r)
		}
	}
	want := CounterValues{Received: 10, ParseErrors: 2, SubscriptionErrors: 1, Filtered: 1, Deduplicated: 2, Enqueued: 4}
	if got := c.Snapshot(); got != want {
		t.Errorf("counters\n got %+v\nwant %+v", got, want)
	}
	if q.Len() != 4 {
		t.Errorf("queue Len %d", q.Len())
	}
	// A window later the same fault is new again.
	clk.t = clk.t.Add(15 * time.Minute)
	if r, _ := p.Ingest(lines[0]); r.Outcome != Enqueued {
		t.Errorf("after the window: %v", r.Outcome)
	}
}

func TestPipelineDropForgets(t *testing.T) {
	clk := &clock{t0}
	q := NewQueue[*fault.Event](1, DropNew)
	var c Counters
	p := &Pipeline{Dedup: NewDedup(time.Hour, 0), Sink: q, Counters: &c, Now: clk.now}
	a := []byte(`{"resource":{"kind":"Pod","name":"a"},"faultType":"X"}`)
	b := []byte(`{"resource":{"kind":"Pod","name":"b"},"faultType":"X"}`)
	if r, _ := p.Ingest(a); r.Outcome != Enqueued {
		t.Fatal(r.Outcome)
	}
	r, _ := p.Ingest(b)
	if r.Outcome != Dropped || r.Lost != r.Event {
		t.Fatalf("full queue: %+v", r)
	}
	// b was never triaged: its next event is not a duplicate.
	q.TryPop()
	if r, _ := p.Ingest(b); r.Outcome != Enqueued {
		t.Fatalf("after drop: %v", r.Outcome)
	}
	if got := c.Snapshot(); got.Dropped != 1 || got.Enqueued != 2 {
		t.Errorf("counters %+v", got)
	}

	// DropOldest: the new one is queued, the old one reported lost and forgotten.
	q2 := NewQueue[*fault.Event](1, DropOldest)
	p2 := &Pipeline{Dedup: NewDedup(time.Hour, 0), Sink: q2, Now: clk.now}
	p2.Ingest(a)
	r, _ = p2.Ingest(b)
	if r.Outcome != Enqueued || r.Lost == nil || r.Lost.ResourceName() != "a" {
		t.Fatalf("drop-oldest: %+v", r)
	}
	if r, _ := p2.Ingest(a); r.Outcome != Enqueued {
		t.Fatalf("lost event's key still held: %v", r.Outcome)
	}
}

func TestPipelineIngestEvent(t *testing.T) {
	q := NewQueue[*fault.Event](10, DropOldest)
	var c Counters
	p := &Pipeline{Dedup: NewDedup(time.Minute, 0), Sink: q, Counters: &c}
	ev := &fault.Event{Cluster: "k", FaultType: "CrashLoop", Severity: "warning", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "n"}}
	if r := p.IngestEvent(ev); r.Outcome != Enqueued || ev.EventID == "" {
		t.Fatalf("%+v", r)
	}
	if r := p.IngestEvent(&fault.Event{Cluster: "k", FaultType: "CrashLoop", Resource: &fault.Resource{Kind: "Pod", Name: "p", Namespace: "n"}}); r.Outcome != Duplicate {
		t.Fatalf("%v", r.Outcome)
	}
	// A Pipeline with nothing but a sink passes everything.
	bare := &Pipeline{Sink: q}
	for i := 0; i < 2; i++ {
		if r, err := bare.Ingest([]byte(`{"resource":{"kind":"Pod","name":"p"},"severity":"debug"}`)); err != nil || r.Outcome != Enqueued {
			t.Fatalf("%v %v", r.Outcome, err)
		}
	}
	if _, err := bare.Ingest([]byte(`[]`)); !errors.Is(err, fault.ErrMalformed) {
		t.Fatalf("error %v", err)
	}
}

// Pipeline into Keyed: the whole path, concurrently, under -race.
func TestPipelineConcurrentKeyed(t *testing.T) {
	lines := fixtures(t)
	var handled sync.Map
	k := NewKeyed(t.Context(), 100, DropOldest, func(ev *fault.Event) string { return ev.Cluster }, func(ev *fault.Event) {
		handled.Store(ev.EventID, ev)
	})
	var c Counters
	p := &Pipeline{Dedup: NewDedup(time.Hour, 0), Sink: k, Counters: &c}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				p.Ingest(lines[i%len(lines)])
			}
		}()
	}
	wg.Wait()
	k.Close()
	k.Wait()
	s := c.Snapshot()
	if s.Received != 1600 || s.SubscriptionErrors == 0 {
		t.Errorf("counters %+v", s)
	}
	// Four distinct keys among the fixtures (crashy PodCrash, crashy CrashLoop, checkout, worker).
	if s.Enqueued != 4 {
		t.Errorf("enqueued %d, want 4", s.Enqueued)
	}
	n := 0
	handled.Range(func(any, any) bool { n++; return true })
	if n != 4 {
		t.Errorf("handled %d", n)
	}
	if s.Received != s.Enqueued+s.Deduplicated+s.SubscriptionErrors+s.ParseErrors+s.Filtered+s.Dropped {
		t.Errorf("counters do not add up: %+v", s)
	}
}

func TestPipelineIngestParsed(t *testing.T) {
	q := NewQueue[*fault.Event](10, DropOldest)
	var c Counters
	p := &Pipeline{Sink: q, Counters: &c}
	cases := []struct {
		logger, level, data string
		want                Outcome
		wantErr             bool
	}{
		{"kubernetes/faults", "warning", `{"faultId":"f1","faultType":"CrashLoop","severity":"warning","resource":{"kind":"Pod","name":"a","namespace":"ns"}}`, Enqueued, false},
		{"kubernetes/subscription_error", "error", `{"subscriptionId":"s1","error":"watch closed","degraded":true}`, SubscriptionError, false},
		{"kubernetes/faults", "warning", `{"faultType":"CrashLoop"}`, ParseError, true},
		{"some/other", "info", `{}`, ParseError, true},
	}
	for _, tc := range cases {
		r, err := p.IngestParsed(fault.ParseMessage(tc.logger, tc.level, []byte(tc.data)))
		if (err != nil) != tc.wantErr || r.Outcome != tc.want {
			t.Errorf("IngestParsed(ParseMessage(%s, %s)) = %v, %v; want %v (error %v)", tc.logger, tc.data, r.Outcome, err, tc.want, tc.wantErr)
		}
	}
	if v := c.Snapshot(); v.Received != 4 || v.Enqueued != 1 || v.SubscriptionErrors != 1 || v.ParseErrors != 2 {
		t.Errorf("counters = %+v", v)
	}
	if ev, ok := q.TryPop(); !ok || ev.ResourceName() != "a" || ev.EventID == "" {
		t.Errorf("queued %+v, %v; want pod a with an eventId", ev, ok)
	}
}
