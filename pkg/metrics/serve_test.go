package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

// get fetches url from the test server, failing the test on transport errors.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

func TestServeMetrics(t *testing.T) {
	m := New()
	m.AgentStarted("prod")
	m.AgentFinished("prod", "success", time.Second, 1, "")
	m.AgentStarted("prod")
	m.AgentFinished("prod", "failed", time.Second, 1, "exit_code")
	m.WatchSource("prod", &watch.Counters{}, func() int { return 0 }, func() uint64 { return 0 }, func() uint64 { return 0 })

	addr, err := Serve(t.Context(), "127.0.0.1:0", m, nil, nil)
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	code, body := get(t, "http://"+addr+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: status %d, body %q", code, body)
	}
	for _, name := range append([]string{
		InvocationsName, DurationName + "_bucket", ActiveAgentsName, WorkspaceSizeName, ErrorsName,
		"go_goroutines", "process_start_time_seconds", "promhttp_metric_handler_requests_total",
	}, watchMetricNames...) {
		if !strings.Contains(body, "\n"+name+"{") && !strings.Contains(body, "\n"+name+" ") {
			t.Errorf("GET /metrics has no %s", name)
		}
	}
}

func TestServeHealthz(t *testing.T) {
	tests := []struct {
		name     string
		health   func() error
		role     string // SetRole's answer, when set
		wantCode int
		wantBody string
	}{
		{name: "no health check", wantCode: http.StatusOK, wantBody: "ok\n"},
		{name: "leader", health: func() error { return nil }, role: "leader", wantCode: http.StatusOK, wantBody: "ok: leader\n"},
		{name: "follower", role: "follower", wantCode: http.StatusOK, wantBody: "ok: follower\n"},
		{name: "unhealthy follower", health: func() error { return errors.New("not synced") }, role: "follower", wantCode: http.StatusServiceUnavailable, wantBody: "not synced\n"},
		{name: "healthy", health: func() error { return nil }, wantCode: http.StatusOK, wantBody: "ok\n"},
		{
			name:     "unhealthy",
			health:   func() error { return errors.New("not subscribed to http://127.0.0.1:8080/mcp") },
			wantCode: http.StatusServiceUnavailable,
			wantBody: "not subscribed to http://127.0.0.1:8080/mcp\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			if tt.role != "" {
				m.SetRole(func() string { return tt.role })
			}
			addr, err := Serve(t.Context(), "127.0.0.1:0", m, tt.health, nil)
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			code, body := get(t, "http://"+addr+"/healthz")
			if code != tt.wantCode || body != tt.wantBody {
				t.Errorf("GET /healthz = %d %q, want %d %q", code, body, tt.wantCode, tt.wantBody)
			}
		})
	}
}

func TestServeListenErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer busy.Close()
	busyAddr := busy.Addr().String()

	tests := []struct {
		name    string
		addr    string
		wantErr string
		wantIs  error
	}{
		{name: "port in use", addr: busyAddr, wantErr: "--metrics-addr " + busyAddr + ": address already in use", wantIs: syscall.EADDRINUSE},
		{name: "no port", addr: "127.0.0.1", wantErr: "--metrics-addr 127.0.0.1: missing port in address"},
		{name: "port out of range", addr: "127.0.0.1:99999", wantErr: "--metrics-addr 127.0.0.1:99999: invalid port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Serve(t.Context(), tt.addr, New(), nil, nil)
			if err == nil {
				t.Fatalf("Serve(%q) succeeded, want an error", tt.addr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("Serve(%q) error = %q, want %q", tt.addr, err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Serve(%q) error %v is not %v", tt.addr, err, tt.wantIs)
			}
		})
	}
}

func TestServeStopsWhenContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	addr, err := Serve(ctx, "127.0.0.1:0", New(), nil, nil)
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if code, _ := get(t, "http://"+addr+"/healthz"); code != http.StatusOK {
		t.Fatalf("GET /healthz before cancel: status %d", code)
	}

	cancel()
	// The port is free again once the server has closed its listener.
	err = wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return false, nil
		}
		return true, l.Close()
	})
	if err != nil {
		t.Fatalf("%s still in use after the context was cancelled: %v", addr, err)
	}
}
