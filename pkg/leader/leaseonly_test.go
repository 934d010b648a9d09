package leader

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestLeaseOnlyRefusesEverythingElse drives a real clientset through the
// lease-only transport: every request but the Lease's own is refused in
// the process, and the server behind it never sees one.
func TestLeaseOnlyRefusesEverythingElse(t *testing.T) {
	var mu sync.Mutex
	var reached []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"w","namespace":"triage"}}`))
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(LeaseOnlyConfig(&rest.Config{Host: srv.URL}, "triage", "w"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "triage"}}
	other := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "triage"}}
	refused := []struct {
		name string
		do   func() error
	}{
		{"create a pod", func() error {
			_, err := cs.CoreV1().Pods("triage").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
			return err
		}},
		{"delete a pod", func() error { return cs.CoreV1().Pods("shop").Delete(ctx, "api", metav1.DeleteOptions{}) }},
		{"patch a node", func() error {
			_, err := cs.CoreV1().Nodes().Patch(ctx, "n1", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		}},
		{"read a secret", func() error { _, err := cs.CoreV1().Secrets("triage").Get(ctx, "s", metav1.GetOptions{}); return err }},
		{"update a configmap", func() error {
			_, err := cs.CoreV1().ConfigMaps("triage").Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.UpdateOptions{})
			return err
		}},
		{"delete its own lease", func() error { return cs.CoordinationV1().Leases("triage").Delete(ctx, "w", metav1.DeleteOptions{}) }},
		{"update another lease", func() error {
			_, err := cs.CoordinationV1().Leases("triage").Update(ctx, other, metav1.UpdateOptions{})
			return err
		}},
		{"the same lease name in another namespace", func() error {
			_, err := cs.CoordinationV1().Leases("kube-system").Update(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "kube-system"}}, metav1.UpdateOptions{})
			return err
		}},
		{"list every lease", func() error {
			_, err := cs.CoordinationV1().Leases("triage").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"watch another lease", func() error {
			_, err := cs.CoordinationV1().Leases("triage").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=other"})
			return err
		}},
		{"delete the lease collection", func() error {
			return cs.CoordinationV1().Leases("triage").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "metadata.name=w"})
		}},
	}
	for _, r := range refused {
		if err := r.do(); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: err = %v; want it refused", r.name, err)
		}
	}
	mu.Lock()
	if len(reached) != 0 {
		t.Fatalf("refused requests reached the server: %v", reached)
	}
	mu.Unlock()

	// What leader election needs goes through.
	allowed := []struct {
		name string
		do   func() error
	}{
		{"get", func() error {
			_, err := cs.CoordinationV1().Leases("triage").Get(ctx, "w", metav1.GetOptions{})
			return err
		}},
		{"create", func() error {
			_, err := cs.CoordinationV1().Leases("triage").Create(ctx, lease, metav1.CreateOptions{})
			return err
		}},
		{"update", func() error {
			_, err := cs.CoordinationV1().Leases("triage").Update(ctx, lease, metav1.UpdateOptions{})
			return err
		}},
		{"list narrowed to it", func() error {
			_, err := cs.CoordinationV1().Leases("triage").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=w"})
			return err
		}},
	}
	for _, a := range allowed {
		if err := a.do(); errors.Is(err, ErrRefused) {
			t.Errorf("%s of its own lease refused: %v", a.name, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) != len(allowed) {
		t.Fatalf("reached the server: %v; want the %d allowed requests", reached, len(allowed))
	}
}

func TestNamespaceAndLeaseName(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/namespace"
	if got := namespaceFrom(file, "shop"); got != "shop" {
		t.Errorf("outside a pod: %q; want the context's", got)
	}
	if got := namespaceFrom(file, ""); got != "default" {
		t.Errorf("no context namespace: %q", got)
	}
	writeFile(t, file, "triage-system\n")
	if got := namespaceFrom(file, "shop"); got != "triage-system" {
		t.Errorf("in a pod: %q; want the pod's own", got)
	}
	for _, tc := range []struct{ source, endpoint, ns, want string }{
		{"cluster", "", "", "kubectl-triage-watch"},
		{"cluster", "", "shop", "kubectl-triage-watch-shop"},
		{"mcp", "http://mcp.tools:8080/mcp", "", "kubectl-triage-watch-mcp-http-mcp-tools-8080-mcp"},
	} {
		if got := LeaseName(tc.source, tc.endpoint, tc.ns); got != tc.want {
			t.Errorf("LeaseName(%q, %q, %q) = %q; want %q", tc.source, tc.endpoint, tc.ns, got, tc.want)
		}
	}
	if n := LeaseName("mcp", "http://"+string(make([]byte, 0))+"a-very-long-host-name-that-goes-on-and-on.example.com:8080/mcp", "namespace"); len(n) > 63 {
		t.Errorf("LeaseName too long: %d", len(n))
	}
}

// TestCheckReportsAForbiddenLease: credentials that may not read the Lease
// fail the start; a Lease not created yet does not.
func TestCheckReportsAForbiddenLease(t *testing.T) {
	for _, tc := range []struct {
		code    int
		reason  string
		wantErr bool
	}{
		{http.StatusForbidden, "Forbidden", true},
		{http.StatusNotFound, "NotFound", false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.code)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d,"details":{"group":"coordination.k8s.io","kind":"leases","name":"w"}}`, tc.reason, tc.code)
		}))
		e, err := New(Config{Config: &rest.Config{Host: srv.URL}, Namespace: "triage", Name: "w",
			LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline, RetryPeriod: DefaultRetryPeriod}, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = e.Check(context.Background())
		if (err != nil) != tc.wantErr || (err != nil && !strings.Contains(err.Error(), "Lease triage/w")) {
			t.Errorf("%d: Check = %v; want error %v", tc.code, err, tc.wantErr)
		}
		srv.Close()
	}
}
