package e2e

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-triage/kubectl-triage/pkg/gateway"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// BenchmarkGatewayLatency measures one GET of a pod directly against the
// API server and through the read-only gateway, reporting the median and
// p99 per request; the difference is the gateway's added latency.
func BenchmarkGatewayLatency(b *testing.B) {
	c := testcluster.Get(b)
	ns := c.Namespace(b)
	scenarioSetup(b, c, ns)
	gw, err := gateway.Start(c.UserConfig(), filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer gw.Stop()
	kc, err := gw.Kubeconfig(ns)
	if err != nil {
		b.Fatal(err)
	}
	viaCfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		b.Fatal(err)
	}
	direct := c.UserConfig()
	// client-go's default client-side limit (5 QPS) would be all we measure.
	viaCfg.QPS, direct.QPS = -1, -1
	for name, cs := range map[string]kubernetes.Interface{
		"direct":  kubernetes.NewForConfigOrDie(direct),
		"gateway": kubernetes.NewForConfigOrDie(viaCfg),
	} {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			if _, err := cs.CoreV1().Pods(ns).Get(ctx, "api", metav1.GetOptions{}); err != nil {
				b.Fatal(err) // also warms the connection
			}
			var lat []time.Duration
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				if _, err := cs.CoreV1().Pods(ns).Get(ctx, "api", metav1.GetOptions{}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
