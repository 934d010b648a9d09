package leader

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/leaderelection"
)

// The gauge Kubernetes components export (component-base's leader-election
// metrics), so existing dashboards and alerts on it work for the watch.
var (
	masterStatus = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
	}, []string{"name"})
	slowpath = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "leader_election_slowpath_total",
		Help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
	}, []string{"name"})
	setProvider sync.Once
)

// Collectors are the leader-election metrics, fed by client-go's
// leaderelection through its metrics provider hook (set once per process,
// before the first Elector is made). Register them on the metrics registry.
func Collectors() []prometheus.Collector {
	setProvider.Do(func() { leaderelection.SetProvider(provider{}) })
	return []prometheus.Collector{masterStatus, slowpath}
}

type provider struct{}

func (provider) NewLeaderMetric() leaderelection.LeaderMetric { return metric{} }

type metric struct{}

func (metric) On(name string)                { masterStatus.WithLabelValues(name).Set(1) }
func (metric) Off(name string)               { masterStatus.WithLabelValues(name).Set(0) }
func (metric) SlowpathExercised(name string) { slowpath.WithLabelValues(name).Inc() }
