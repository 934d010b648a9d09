package clusters

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// blackHole accepts connections and never answers them.
func blackHole(t *testing.T) (addr string, accepted *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = &atomic.Int32{}
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String(), accepted
}

// client is what a rest.Config's WrapTransport makes of b around base.
func client(b *Bound, base http.RoundTripper) *http.Client {
	cfg := b.Config(&rest.Config{})
	return &http.Client{Transport: cfg.WrapTransport(base)}
}

func insecure(handshake time.Duration) *http.Transport {
	return &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, TLSHandshakeTimeout: handshake}
}

func TestBoundEndsRequestsWithTheRun(t *testing.T) {
	hang := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer hang.Close()
	hole, _ := blackHole(t)
	tests := []struct {
		name string
		url  string
	}{
		{"server answers the handshake, then nothing", hang.URL},
		{"server accepts the connection, then nothing", "https://" + hole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			c := client(NewBound(ctx), insecure(time.Minute))
			time.AfterFunc(50*time.Millisecond, cancel)
			done := make(chan error, 1)
			go func() {
				resp, err := c.Get(tt.url)
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("got %v, want the run's cancellation", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the request outlived the run's context")
			}
			// Once the run is over nothing is even dialled.
			if _, err := c.Get(tt.url); !errors.Is(err, context.Canceled) {
				t.Errorf("after the run: %v", err)
			}
		})
	}
}

func TestBoundKeepsTheBodyReadable(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first "))
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		w.Write([]byte("second"))
	}))
	defer srv.Close()
	c := client(NewBound(context.Background()), insecure(time.Minute))
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "first second" {
		t.Errorf("body %q, %v", body, err)
	}
}

func TestBoundRemembersAServerThatCannotBeConnected(t *testing.T) {
	hole, accepted := blackHole(t)
	b := NewBound(context.Background())
	now := time.Now()
	b.now = func() time.Time { return now }
	c := client(b, insecure(100*time.Millisecond))
	url := "https://" + hole + "/api"

	_, first := c.Get(url)
	if first == nil || !strings.Contains(first.Error(), "TLS handshake timeout") {
		t.Fatalf("first request: %v, want a handshake timeout", first)
	}
	t0 := time.Now()
	_, again := c.Get(url + "s")
	if again == nil || !strings.Contains(again.Error(), "TLS handshake timeout") || time.Since(t0) > 50*time.Millisecond {
		t.Errorf("second request: %v after %s, want the first one's error at once", again, time.Since(t0))
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
	// After downFor the server is tried again: a long run is not cut off
	// by a passing failure.
	now = now.Add(downFor + time.Second)
	if _, err := c.Get(url); err == nil {
		t.Fatal("a black hole answered")
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections after downFor, want 2", n)
	}
}

func TestBoundDoesNotCutASlowAnswerShort(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			time.Sleep(200 * time.Millisecond) // slower than the client's timeout
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	c := client(NewBound(context.Background()), insecure(time.Minute))
	c.Timeout = 100 * time.Millisecond
	if _, err := c.Get(srv.URL); err == nil {
		t.Fatal("the slow answer came within the timeout")
	}
	c.Timeout = 0
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("a request timeout marked the server unreachable: %v", err)
	}
	resp.Body.Close()
}

// TestLazyIsBound: the one-shot run's clientset is a Lazy made from a
// Bound config, so every group's client, made before the run ends or
// after, and discovery share the Bound transport and end with the run.
func TestLazyIsBound(t *testing.T) {
	hang := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer func() { hang.CloseClientConnections(); hang.Close() }() // a failed run leaves requests open
	ctx, cancel := context.WithCancel(context.Background())
	cfg := NewBound(ctx).Config(&rest.Config{Host: hang.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	l, err := NewLazy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		call func() error
	}{
		{"core/v1, made with the clientset", func() error {
			_, err := l.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
			return err
		}},
		{"apps/v1, made on first use", func() error {
			_, err := l.AppsV1().Deployments("default").List(context.Background(), metav1.ListOptions{})
			return err
		}},
		{"discovery, which takes no context", func() error {
			_, err := l.Discovery().ServerVersion()
			return err
		}},
	}
	done := make(chan error, len(calls))
	for _, c := range calls {
		go func() {
			if err := c.call(); err != nil {
				done <- fmt.Errorf("%s: %w", c.name, err)
			} else {
				done <- fmt.Errorf("%s: answered", c.name)
			}
		}()
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	for range calls {
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want the run's cancellation", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a request outlived the run's context")
		}
	}
	// A group first asked for once the run is over is bound too.
	if _, err := l.BatchV1().Jobs("default").List(context.Background(), metav1.ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("batch/v1 after the run: %v", err)
	}
}
