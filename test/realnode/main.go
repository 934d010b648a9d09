package realnode

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

// EnvReport names a file that receives the tier's one-line outcome (the
// skip reason, or the fault tally), so `make test` can print it although
// `go test ./...` hides a passing package's output.
const EnvReport = "KUBECTL_TRIAGE_REALNODE_REPORT"

var global *Node

// Summary, set by the tests, is the line printed after the run (e.g. the
// tally of fault classes produced and triaged correctly).
var Summary func() string

// Main runs the test package on a real node: from TestMain,
//
//	func TestMain(m *testing.M) { os.Exit(realnode.Main(m)) }
//
// Where the tier cannot run it says why in one line and returns 0.
func Main(m *testing.M) int {
	flag.Parse()
	dir := InsideDir()
	if dir == "" {
		if why := Unavailable(); why != "" {
			say("real node: tier skipped: " + why)
			return 0
		}
		binDir, err := FindBinDir()
		if err != nil {
			say("real node: " + err.Error())
			return 1
		}
		code, err := Isolate(os.Args, EnvTestBin+"="+binDir)
		if err != nil {
			say("real node: " + err.Error())
			if code == 0 {
				code = 1
			}
		}
		return code
	}

	if err := RecordNetns(dir); err != nil {
		fmt.Fprintf(os.Stderr, "realnode: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	n, err := Start(ctx, dir, os.Getenv(EnvTestBin))
	cancel()
	if err != nil {
		say("real node: bring-up failed: " + err.Error())
		return 1
	}
	fmt.Fprintf(os.Stderr, "realnode: node %s Ready in %v (logs in %s)\n", NodeName, n.StartedIn.Round(time.Millisecond), n.LogsDir())
	global = n
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; ok {
			n.Stop()
			os.Exit(130)
		}
	}()
	code := m.Run()
	signal.Stop(sigs)
	n.Stop()
	if Summary != nil {
		if line := Summary(); line != "" {
			say(line)
		}
	}
	return code
}

// say prints the tier's outcome line and appends it to $EnvReport.
func say(line string) {
	fmt.Fprintln(os.Stderr, line)
	if p := os.Getenv(EnvReport); p != "" {
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
}

// Get returns the node started by Main.
func Get(t testing.TB) *Node {
	t.Helper()
	if global == nil {
		t.Fatal("realnode: no node; call os.Exit(realnode.Main(m)) from TestMain")
	}
	return global
}
