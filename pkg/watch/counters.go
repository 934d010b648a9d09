package watch

import "sync/atomic"

// Counters count what the ingest pipeline did with each notification; safe
// for concurrent use. Metrics read them with Snapshot.
type Counters struct {
	Received           atomic.Uint64 // notifications in
	ParseErrors        atomic.Uint64 // bad JSON, no resource, unknown logger…: counted and skipped
	SubscriptionErrors atomic.Uint64 // subscription_error notifications
	Filtered           atomic.Uint64 // below --min-severity or outside -n (Result.FilterReason)
	Deduplicated       atomic.Uint64 // repeats within --dedup-window
	Grouped            atomic.Uint64 // joined an earlier fault's incident (same cause within --group-window)
	Dropped            atomic.Uint64 // lost to a full queue
	Enqueued           atomic.Uint64 // handed to the queue
}

// CounterValues is a point-in-time copy of Counters.
type CounterValues struct {
	Received, ParseErrors, SubscriptionErrors, Filtered, Deduplicated, Grouped, Dropped, Enqueued uint64
}

// Snapshot reads every counter (each atomically; the set is not one
// transaction, which metrics do not need).
func (c *Counters) Snapshot() CounterValues {
	return CounterValues{
		Received:           c.Received.Load(),
		ParseErrors:        c.ParseErrors.Load(),
		SubscriptionErrors: c.SubscriptionErrors.Load(),
		Filtered:           c.Filtered.Load(),
		Deduplicated:       c.Deduplicated.Load(),
		Grouped:            c.Grouped.Load(),
		Dropped:            c.Dropped.Load(),
		Enqueued:           c.Enqueued.Load(),
	}
}
