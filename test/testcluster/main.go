package testcluster

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// startTimeout bounds Start in Main. Cold starts take a few seconds; the
// bound only matters when something hangs.
const startTimeout = 3 * time.Minute

var global *Cluster

// Main starts one cluster for the test package, runs the tests and stops
// it. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testcluster.Main(m)) }
//
// On start failure it prints the error (which carries the last lines of the
// apiserver/etcd logs) and returns 1.
func Main(m *testing.M) int {
	flag.Parse() // for testing.Verbose below; m.Run tolerates a second parse

	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	t0 := time.Now()
	c, err := Start(ctx, Options{})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testcluster: %v\n", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "testcluster: started in %v at %s (dir %s)\n", time.Since(t0).Round(time.Millisecond), c.Server, c.Dir)
	}
	global = c

	// On ^C or SIGTERM, stop the children in order and clean up instead of
	// leaving Dir behind (Pdeathsig would kill the children anyway).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; ok {
			c.Stop()
			os.Exit(130)
		}
	}()

	code := m.Run()
	signal.Stop(sigs)
	close(sigs)
	t1 := time.Now()
	c.Stop()
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "testcluster: stopped in %v\n", time.Since(t1).Round(time.Millisecond))
	}
	return code
}

// Get returns the cluster started by Main.
func Get(t testing.TB) *Cluster {
	t.Helper()
	if global == nil {
		t.Fatal("testcluster: no cluster; call os.Exit(testcluster.Main(m)) from TestMain")
	}
	return global
}
