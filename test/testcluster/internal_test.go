package testcluster

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/proc"
)

// A port taken between picking and binding must surface as proc.ErrAddrInUse, or
// Start would not retry with new ports.
func TestPortInUseIsRetryable(t *testing.T) {
	shared := Get(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Something that answers quickly, as a real squatter would; a bare
	// listener would make each health probe wait for its client timeout.
	squatter := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not etcd", http.StatusServiceUnavailable)
	})}
	go squatter.Serve(ln)
	defer squatter.Close()
	busy := ln.Addr().(*net.TCPAddr).Port
	free, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	newCluster := func() *Cluster {
		dir := t.TempDir()
		p, err := genPKI(filepath.Join(dir, "pki"))
		if err != nil {
			t.Fatal(err)
		}
		return &Cluster{Dir: dir, BinDir: shared.BinDir, pki: p, Server: "https://127.0.0.1:" + strconv.Itoa(busy),
			EtcdLogPath: filepath.Join(dir, "etcd.log"), APIServerLogPath: filepath.Join(dir, "kube-apiserver.log"),
			AuditLogPath: filepath.Join(dir, "audit.log")}
	}

	t.Run("etcd", func(t *testing.T) {
		c := newCluster()
		defer c.Stop()
		err := c.startEtcd(ctx, busy, free[0])
		if !errors.Is(err, proc.ErrAddrInUse) {
			t.Fatalf("got %v, want proc.ErrAddrInUse", err)
		}
	})
	t.Run("kube-apiserver", func(t *testing.T) {
		c := newCluster()
		defer c.Stop()
		err := c.startAPIServer(ctx, shared.etcdPort, busy, nil)
		if !errors.Is(err, proc.ErrAddrInUse) {
			t.Fatalf("got %v, want proc.ErrAddrInUse", err)
		}
	})
}

func TestTailLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\nc\n", 5, "a\nb\nc\n"},
		{"a\nb\nc\n", 0, ""},
		{"", 3, ""},
	} {
		if got := string(tailLines([]byte(tc.in), tc.n)); got != tc.want {
			t.Errorf("tailLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
