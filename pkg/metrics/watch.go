package metrics

import (
	"maps"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

// watchDescs are the kubectl_triage_* metrics of a watch source. Their values
// are read from the source's own atomics at scrape time, so the ingest path
// pays nothing for being measured.
var (
	clusterLabel = []string{"cluster"}

	eventsReceivedDesc = prometheus.NewDesc("kubectl_triage_events_received_total",
		"Fault notifications received from the source.", clusterLabel, nil)
	eventsParseErrorsDesc = prometheus.NewDesc("kubectl_triage_events_parse_errors_total",
		"Notifications skipped because they were not a usable fault event.", clusterLabel, nil)
	subscriptionErrorsDesc = prometheus.NewDesc("kubectl_triage_subscription_errors_total",
		"subscription_error notifications received from the source.", clusterLabel, nil)
	eventsFilteredDesc = prometheus.NewDesc("kubectl_triage_events_filtered_total",
		"Fault events skipped by the filter: below --min-severity, or outside the namespace of -n (the log line of each says which).", clusterLabel, nil)
	eventsDeduplicatedDesc = prometheus.NewDesc("kubectl_triage_events_deduplicated_total",
		"Fault events skipped as repeats within --dedup-window.", clusterLabel, nil)
	eventsGroupedDesc = prometheus.NewDesc("kubectl_triage_events_grouped_total",
		"Fault events not triaged on their own: they share the cause of an earlier fault within --group-window and joined its incident.", clusterLabel, nil)
	eventsDroppedDesc = prometheus.NewDesc("kubectl_triage_events_dropped_total",
		"Fault events lost to a full queue.", clusterLabel, nil)
	eventsEnqueuedDesc = prometheus.NewDesc("kubectl_triage_events_enqueued_total",
		"Fault events queued for investigation.", clusterLabel, nil)
	queueDepthDesc = prometheus.NewDesc("kubectl_triage_queue_depth",
		"Fault events waiting for an agent.", clusterLabel, nil)
	mcpReconnectsDesc = prometheus.NewDesc("kubectl_triage_mcp_reconnects_total",
		"Reconnections to the MCP server after a lost subscription.", clusterLabel, nil)
	handoffDroppedDesc = prometheus.NewDesc("kubectl_triage_handoff_dropped_total",
		"Fault events lost between the source and the pipeline.", clusterLabel, nil)
)

type watchSource struct {
	counters     *watch.Counters
	queueDepth   func() int
	reconnects   func() uint64
	handoffDrops func() uint64
}

// watchCollector reports every watch source registered with WatchSource.
type watchCollector struct {
	mu      sync.Mutex
	sources map[string]watchSource // by cluster
}

func newWatchCollector() *watchCollector {
	return &watchCollector{sources: map[string]watchSource{}}
}

// WatchSource reports a watch source's counters under cluster, read when
// scraped. A nil counters or func leaves its metrics out (a cluster source
// has no MCP reconnects). Calling it again for the same cluster replaces the
// earlier source, so a source that is rebuilt does not report twice.
func (m *Metrics) WatchSource(cluster string, counters *watch.Counters, queueDepth func() int, reconnects func() uint64, handoffDrops func() uint64) {
	if m == nil {
		return
	}
	m.watchSources.mu.Lock()
	defer m.watchSources.mu.Unlock()
	m.watchSources.sources[cluster] = watchSource{
		counters:     counters,
		queueDepth:   queueDepth,
		reconnects:   reconnects,
		handoffDrops: handoffDrops,
	}
}

func (c *watchCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		eventsReceivedDesc, eventsParseErrorsDesc, subscriptionErrorsDesc, eventsFilteredDesc,
		eventsDeduplicatedDesc, eventsGroupedDesc, eventsDroppedDesc, eventsEnqueuedDesc, queueDepthDesc,
		mcpReconnectsDesc, handoffDroppedDesc,
	} {
		ch <- d
	}
}

func (c *watchCollector) Collect(ch chan<- prometheus.Metric) {
	// Copy, then call the sources' funcs unlocked: they may take locks of
	// their own, and WatchSource must not wait on a slow scrape.
	c.mu.Lock()
	sources := maps.Clone(c.sources)
	c.mu.Unlock()

	counter := func(desc *prometheus.Desc, v uint64, cluster string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), cluster)
	}
	for cluster, s := range sources {
		if s.counters != nil {
			v := s.counters.Snapshot()
			counter(eventsReceivedDesc, v.Received, cluster)
			counter(eventsParseErrorsDesc, v.ParseErrors, cluster)
			counter(subscriptionErrorsDesc, v.SubscriptionErrors, cluster)
			counter(eventsFilteredDesc, v.Filtered, cluster)
			counter(eventsDeduplicatedDesc, v.Deduplicated, cluster)
			counter(eventsGroupedDesc, v.Grouped, cluster)
			counter(eventsDroppedDesc, v.Dropped, cluster)
			counter(eventsEnqueuedDesc, v.Enqueued, cluster)
		}
		if s.queueDepth != nil {
			ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(s.queueDepth()), cluster)
		}
		if s.reconnects != nil {
			counter(mcpReconnectsDesc, s.reconnects(), cluster)
		}
		if s.handoffDrops != nil {
			counter(handoffDroppedDesc, s.handoffDrops(), cluster)
		}
	}
}
