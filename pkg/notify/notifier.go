package notify

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// DefaultFailureThreshold is how many consecutive failed triages on one
// cluster open the circuit (and send its alert).
const DefaultFailureThreshold = 3

// Notifier is what watch mode calls after every incident: it posts the
// incident's message and runs a per-cluster circuit breaker over the
// results. A string of failures on one cluster usually means the agent, not
// the workloads, is broken (credentials, model, timeout), so it gets one
// alert of its own, and a recovery message when a triage succeeds again.
//
// A Notifier without a Slack client sends nothing. It never fails the
// caller: delivery errors are logged and counted. Safe for concurrent use.
type Notifier struct {
	// FailureThreshold is how many consecutive failures on one cluster open
	// the circuit; zero means DefaultFailureThreshold. Set it before first
	// use.
	FailureThreshold int

	// Sent and Failed count delivered and undeliverable messages (incident,
	// alert and recovery messages alike), for metrics.
	Sent   atomic.Uint64
	Failed atomic.Uint64

	slack *Slack
	log   *slog.Logger

	mu      sync.Mutex
	streaks map[string]*streak // by cluster; only clusters whose last triage failed
}

// streak is one cluster's run of consecutive failures.
type streak struct {
	count   int
	recent  []Failure // the latest, oldest first, at most maxRecentFailures
	alerted bool      // the alert went out (or is going out) for this streak
}

// NewNotifier returns a Notifier posting through s; s nil means
// notifications are off. logger nil discards.
func NewNotifier(s *Slack, logger *slog.Logger) *Notifier {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Notifier{slack: s, log: logger, streaks: map[string]*streak{}}
}

// Enabled reports whether notifications are sent at all.
func (n *Notifier) Enabled() bool { return n != nil && n.slack != nil }

// Incident notifies about one finished incident, then updates its cluster's
// circuit: the third (FailureThreshold-th) consecutive failure sends the
// alert, once per streak; the first success after an alert sends the
// recovery message. A cancelled triage (shutdown, interrupt) says nothing
// about the agent, so it neither counts as a failure nor ends a streak.
// duration is how long the triage took (zero: from the incident's
// timestamps). ctx bounds all the posting this call does, retries included.
func (n *Notifier) Incident(ctx context.Context, inc *incident.Incident, duration time.Duration) {
	if !n.Enabled() || inc == nil {
		return
	}
	cluster := clusterOf(incident.Summarize(inc).Clean())
	log := n.log.With("incident_id", inc.IncidentID, "cluster", cluster)
	if !inc.Finished() {
		log.Debug("not notifying about an unfinished incident", "status", string(inc.Status))
		return
	}

	n.send(ctx, log, "incident", IncidentMessage(inc, duration))

	switch {
	case inc.Status == incident.Resolved:
		if failures, recovered := n.succeeded(cluster); recovered {
			n.send(ctx, log, "recovery", RecoveredMessage(cluster, failures, inc))
		}
	case inc.FailureReason == incident.ReasonCancelled:
	default:
		if st, alert := n.failed(cluster, failureSummary(inc)); alert != nil {
			if !n.send(ctx, log, "circuit_breaker", alert) {
				n.alertUndelivered(cluster, st)
			}
		}
	}
}

// succeeded ends cluster's streak; it reports the streak's length and
// whether its alert went out (so a recovery message is due).
func (n *Notifier) succeeded(cluster string) (failures int, recovered bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	st, ok := n.streaks[cluster]
	if !ok {
		return 0, false
	}
	delete(n.streaks, cluster)
	return st.count, st.alerted
}

// failed adds f to cluster's streak and returns the alert to send when the
// streak has just reached the threshold (or its alert could not be
// delivered before).
func (n *Notifier) failed(cluster string, f Failure) (*streak, *Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	st, ok := n.streaks[cluster]
	if !ok {
		st = &streak{}
		n.streaks[cluster] = st
	}
	st.count++
	st.recent = append(st.recent, f)
	if len(st.recent) > maxRecentFailures {
		st.recent = append(st.recent[:0], st.recent[len(st.recent)-maxRecentFailures:]...)
	}
	threshold := n.FailureThreshold
	if threshold <= 0 {
		threshold = DefaultFailureThreshold
	}
	if st.alerted || st.count < threshold {
		return st, nil
	}
	st.alerted = true
	return st, BreakerOpenMessage(cluster, st.count, st.recent)
}

// alertUndelivered lets the next failure of the same streak try the alert
// again: an alert nobody saw has not been sent.
func (n *Notifier) alertUndelivered(cluster string, st *streak) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.streaks[cluster] == st {
		st.alerted = false
	}
}

// send posts msg, logging and counting the outcome.
func (n *Notifier) send(ctx context.Context, log *slog.Logger, kind string, msg *Message) bool {
	if err := n.slack.Post(ctx, msg); err != nil {
		n.Failed.Add(1)
		log.Error("could not send Slack notification", "notification", kind, "error", err)
		return false
	}
	n.Sent.Add(1)
	log.Debug("sent Slack notification", "notification", kind)
	return true
}
