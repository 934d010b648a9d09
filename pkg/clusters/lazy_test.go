package clusters

import (
	"context"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The real API server TestLazy talks to.
func TestMain(m *testing.M) { os.Exit(testcluster.Main(m)) }

// TestLazy: the groups a caller uses work against a real API server, are
// made once and share one rate limiter; the rest are never made.
func TestLazy(t *testing.T) {
	c := testcluster.Get(t)
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 50, 100
	l, err := NewLazy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := l.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("core: %v", err)
	}
	if l.g.appsV1.v != nil {
		t.Fatal("apps/v1 made before it was asked for")
	}
	if _, err := l.AppsV1().Deployments("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("apps/v1: %v", err)
	}
	if l.AppsV1() != l.AppsV1() {
		t.Error("apps/v1 made twice")
	}
	if _, err := l.Discovery().ServerVersion(); err != nil {
		t.Fatalf("discovery: %v", err)
	}
	if core, apps := l.CoreV1().RESTClient().GetRateLimiter(), l.AppsV1().RESTClient().GetRateLimiter(); core == nil || core != apps {
		t.Errorf("the groups do not share one rate limiter (%p, %p)", core, apps)
	}
	if l.g.batchV1.v != nil || l.g.rbacV1.v != nil {
		t.Error("groups nobody asked for were made")
	}
}

// TestLazyBadConfig fails as kubernetes.NewForConfig does.
func TestLazyBadConfig(t *testing.T) {
	for _, cfg := range []*rest.Config{
		{Host: "https://127.0.0.1:1", QPS: 5}, // no burst
		{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{CAFile: "/nonexistent/ca.crt"}},
	} {
		if _, err := NewLazy(cfg); err == nil {
			t.Errorf("NewLazy(%+v) succeeded", cfg)
		}
	}
}
