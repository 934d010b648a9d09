// Package watch is the pure logic of watch mode's ingest pipeline
// (DESIGN.md §9): parse → eventId → severity filter → dedup → bounded queue,
// and a per-key (per-cluster) runner. It knows nothing of MCP, the cluster
// or the CLI: sources hand it bytes or events, the triage loop takes events.
package watch

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Sink takes accepted events: a *Queue[*fault.Event] or a *Keyed[*fault.Event].
type Sink interface {
	Push(*fault.Event) (lost *fault.Event, dropped bool)
}

// Outcome is what Ingest did with one notification.
type Outcome int

const (
	Enqueued          Outcome = iota // accepted and queued (possibly pushing out an older one: Result.Lost)
	ParseError                       // not a usable fault event; the error says why
	SubscriptionError                // a subscription_error notification: Result.SubscriptionError
	Filtered                         // dropped by the filter: Result.FilterReason says why
	Duplicate                        // a repeat within the dedup window
	Dropped                          // the queue was full (DropNew) or closed
	Grouped                          // joined the incident of an earlier fault with the same cause: Result.Group
)

func (o Outcome) String() string {
	return [...]string{"enqueued", "parse_error", "subscription_error", "filtered", "duplicate", "dropped", "grouped"}[o]
}

// Result is one Ingest's outcome.
type Result struct {
	Outcome           Outcome
	Event             *fault.Event             // the parsed event (nil for ParseError and SubscriptionError)
	Lost              *fault.Event             // an event the queue dropped to make room, or Event itself when Dropped
	SubscriptionError *fault.SubscriptionError // for SubscriptionError
	FilterReason      FilterReason             // for Filtered
	Group             *Group                   // for Grouped: the group it joined
}

// Pipeline is the ingest path. Filter's zero value passes all; a nil Dedup
// does not dedup; a nil Group groups nothing; Counters and Now may be nil
// (no counting; time.Now).
// Ingest is safe for concurrent use when Sink is.
type Pipeline struct {
	Filter   Filter
	Dedup    *Dedup
	Group    *Grouper
	Sink     Sink
	Counters *Counters
	Now      func() time.Time
}

var noCounters Counters // sink for a Pipeline without Counters

// Ingest parses one notification (any shape fault.Parse reads) and passes
// it down the pipeline. Bad input is counted and reported, never fatal.
func (p *Pipeline) Ingest(data []byte) (Result, error) {
	return p.IngestParsed(fault.ParseNotification(data))
}

// IngestParsed is Ingest for a notification the caller parsed already
// (with fault.ParseMessage, for the MCP client's split messages): it takes
// the parser's results as they are.
func (p *Pipeline) IngestParsed(ev *fault.Event, se *fault.SubscriptionError, err error) (Result, error) {
	c := p.counters()
	c.Received.Add(1)
	switch {
	case err != nil:
		c.ParseErrors.Add(1)
		return Result{Outcome: ParseError}, err
	case se != nil:
		c.SubscriptionErrors.Add(1)
		return Result{Outcome: SubscriptionError, SubscriptionError: se}, nil
	}
	return p.admit(ev, c), nil
}

// IngestEvent passes an already parsed event (from the cluster source) down
// the pipeline. It gets an EventID if it has none.
func (p *Pipeline) IngestEvent(ev *fault.Event) Result {
	c := p.counters()
	c.Received.Add(1)
	if ev.EventID == "" {
		ev.EventID = uuid.NewString()
	}
	return p.admit(ev, c)
}

func (p *Pipeline) admit(ev *fault.Event, c *Counters) Result {
	if why := p.Filter.Why(ev); why != NotFiltered {
		c.Filtered.Add(1)
		return Result{Outcome: Filtered, Event: ev, FilterReason: why}
	}
	var key string
	if p.Dedup != nil {
		key = KeyOf(ev)
		if p.Dedup.Seen(key, p.now()) {
			c.Deduplicated.Add(1)
			return Result{Outcome: Duplicate, Event: ev}
		}
	}
	if p.Sink == nil {
		panic(errors.New("watch: Pipeline without Sink"))
	}
	// After dedup: a repeat of a fault is a duplicate, not a member.
	if g := p.Group.Admit(ev, p.now()); g != nil {
		c.Grouped.Add(1)
		return Result{Outcome: Grouped, Event: ev, Group: g}
	}
	lost, dropped := p.Sink.Push(ev)
	if dropped {
		c.Dropped.Add(1)
		// Never triaged, so a repeat must not count as a duplicate of it,
		// nor a fault with its cause as a member of its incident.
		if p.Dedup != nil && lost != nil {
			p.Dedup.Forget(KeyOf(lost))
		}
		p.Group.Forget(lost)
		if lost == ev {
			return Result{Outcome: Dropped, Event: ev, Lost: ev}
		}
	}
	c.Enqueued.Add(1)
	return Result{Outcome: Enqueued, Event: ev, Lost: lost}
}

func (p *Pipeline) counters() *Counters {
	if p.Counters != nil {
		return p.Counters
	}
	return &noCounters
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}
