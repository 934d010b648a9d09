package readonly

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func TestAllowed(t *testing.T) {
	tests := []struct {
		method, path string
		want         bool
	}{
		{"GET", "/api/v1/namespaces/x/pods", true},
		{"GET", "/api/v1/namespaces/x/pods/p/log", true},
		{"HEAD", "/version", true},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", true},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", true},
		{"POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", false},
		{"POST", "/api/v1/namespaces/x/pods", false},
		{"POST", "/api/v1/namespaces/x/pods/p/exec", false},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews/../../../../api/v1/namespaces/x/pods", false},
		{"PUT", "/api/v1/namespaces/x/pods/p", false},
		{"PATCH", "/api/v1/namespaces/x/pods/p", false},
		{"DELETE", "/api/v1/namespaces/x/pods/p", false},
		{"OPTIONS", "/api/v1", false},
		{"CONNECT", "/api/v1/namespaces/x/pods/p/portforward", false},
		{"GET", "/api/v1/namespaces/x/secrets/db", false},
		{"GET", "/api/v1/namespaces/x/secrets", false},
		{"GET", "/api/v1/secrets", false},
		{"GET", "/api/v1/watch/namespaces/x/secrets", false},
		{"GET", "/api/v1/namespaces/secrets", true}, // the namespace named "secrets"
		{"GET", "/api/v1/namespaces/secrets/pods", true},
		{"GET", "/apis/example.com/v1/namespaces/x/secrets", true}, // a CRD of that name is not a core Secret
	}
	for _, tt := range tests {
		if got := Allowed(tt.method, tt.path); got != tt.want {
			t.Errorf("Allowed(%s %s) = %v, want %v", tt.method, tt.path, got, tt.want)
		}
	}
}

// TestConfigRefusesWritesBeforeTheNetwork proves a write never reaches the
// server: the server counts every request it sees.
func TestConfigRefusesWritesBeforeTheNetwork(t *testing.T) {
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"x"}}`))
	}))
	defer srv.Close()

	cs, err := kubernetes.NewForConfig(Config(&rest.Config{Host: srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Pods("x").Get(ctx, "p", metav1.GetOptions{}); err != nil {
		t.Fatalf("GET was refused: %v", err)
	}
	writes := map[string]func() error{
		"create": func() error {
			_, err := cs.CoreV1().Pods("x").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q"}}, metav1.CreateOptions{})
			return err
		},
		"delete": func() error { return cs.CoreV1().Pods("x").Delete(ctx, "p", metav1.DeleteOptions{}) },
		"update": func() error {
			_, err := cs.CoreV1().Pods("x").Update(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.UpdateOptions{})
			return err
		},
		"patch": func() error {
			_, err := cs.CoreV1().Pods("x").Patch(ctx, "p", "application/merge-patch+json", []byte(`{}`), metav1.PatchOptions{})
			return err
		},
		"evict": func() error {
			return cs.CoreV1().Pods("x").EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p"}})
		},
	}
	for name, do := range writes {
		if err := do(); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: err = %v, want ErrRefused", name, err)
		}
	}
	if n := seen.Load(); n != 1 {
		t.Errorf("server saw %d requests, want only the GET", n)
	}
}

// TestSecretExistenceOnly: whether one named Secret exists may be asked as
// a table row without the object; never its data or metadata, never listed
// or watched.
func TestSecretExistenceOnly(t *testing.T) {
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":["tls","kubernetes.io/tls",2,"1d"]}]}`))
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(Config(&rest.Config{Host: srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	row := func() *rest.Request {
		return cs.CoreV1().RESTClient().Get().Namespace("x").Resource("secrets").Name("tls").Param("includeObject", "None")
	}
	if err := row().SetHeader("Accept", SecretTableAccept).Do(ctx).Error(); err != nil {
		t.Fatalf("table-row GET was refused: %v", err)
	}
	const metadata = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	refused := map[string]func() error{
		"get":  func() error { _, err := cs.CoreV1().Secrets("x").Get(ctx, "tls", metav1.GetOptions{}); return err },
		"list": func() error { _, err := cs.CoreV1().Secrets("x").List(ctx, metav1.ListOptions{}); return err },
		"list as table": func() error {
			return cs.CoreV1().RESTClient().Get().Namespace("x").Resource("secrets").Param("includeObject", "None").SetHeader("Accept", SecretTableAccept).Do(ctx).Error()
		},
		"table with its object": func() error {
			return cs.CoreV1().RESTClient().Get().Namespace("x").Resource("secrets").Name("tls").Param("includeObject", "Object").SetHeader("Accept", SecretTableAccept).Do(ctx).Error()
		},
		"table with its metadata (default)": func() error {
			return cs.CoreV1().RESTClient().Get().Namespace("x").Resource("secrets").Name("tls").SetHeader("Accept", SecretTableAccept).Do(ctx).Error()
		},
		"metadata":            func() error { return row().SetHeader("Accept", metadata).Do(ctx).Error() },
		"table or the object": func() error { return row().SetHeader("Accept", SecretTableAccept+",application/json").Do(ctx).Error() },
		"watch as table": func() error {
			return row().Param("watch", "true").SetHeader("Accept", SecretTableAccept).Do(ctx).Error()
		},
	}
	for name, do := range refused {
		if err := do(); !errors.Is(err, ErrSecret) {
			t.Errorf("%s: err = %v, want ErrSecret", name, err)
		}
	}
	if n := seen.Load(); n != 1 {
		t.Errorf("server saw %d requests, want only the table-row GET", n)
	}
}
