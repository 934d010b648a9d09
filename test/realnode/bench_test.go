package realnode

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkRealNodeTriage: the time of one triage (ns/op) of a pod that
// crash-loops on the real node, with the node's bring-up and the time the
// fault took to settle into CrashLoopBackOff as extra metrics.
func BenchmarkRealNodeTriage(b *testing.B) {
	n := Get(b)
	plugin := pluginBinary(b)
	ctx := context.Background()
	ns := "rn-bench"
	if _, err := n.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); ignoreExists(err) != nil {
		b.Fatal(err)
	}
	if err := poll(ctx, time.Minute, func() bool {
		_, err := n.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	}); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	p := shellPod("orders", `echo 'config: required key DATABASE_URL missing value'; exit 1`)(ns)
	if _, err := n.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); ignoreExists(err) != nil {
		b.Fatal(err)
	}
	backoff := waitingReason("app", "CrashLoopBackOff")
	if err := poll(ctx, 2*time.Minute, func() bool {
		got, err := n.Client.CoreV1().Pods(ns).Get(ctx, "orders", metav1.GetOptions{})
		return err == nil && backoff([]corev1.Pod{*got}, nil)
	}); err != nil {
		b.Fatal(err)
	}
	settle := time.Since(t0)
	b.ResetTimer()
	for range b.N {
		if r, _, out := triage(b, n, plugin, ns, "pod/orders"); r == nil {
			b.Fatalf("no report: %s", out)
		}
	}
	b.StopTimer()
	b.ReportMetric(n.StartedIn.Seconds(), "bringup-s")
	b.ReportMetric(settle.Seconds(), "settle-s")
}
