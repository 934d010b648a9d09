package e2e

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestWatchGap: the MCP server never sends a fault that began while the
// subscription was down; after the reconnect, watch finds it by scanning
// the cluster and triages it. A fault that was there before the watch
// started is not triaged, as the server would not report it either.
func TestWatchGap(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-connection-refused-bare-name").setup(t, c, ns) // pod/worker, broken before the watch
	mcp := startMCP(t, mcpserver.Options{})
	// -n: the scan covers the test's namespace only, not the other tests'.
	w := startWatch(t, c, "--mcp-endpoint", mcp.Endpoint(), "-n", ns, "--max-incidents", "1")
	w.logged(t, "subscribed to the MCP server's events", time.Minute)
	noted := w.logged(t, "noted the faults present now: after a gap, only faults that began later are triaged", time.Minute)
	if noted["faulty"] != float64(1) {
		t.Errorf("faults present at the start: %v, want 1 (pod/worker)", noted["faulty"])
	}

	// The server goes down; pod/api begins crash-looping meanwhile; the
	// server comes back on the same endpoint, and never says so.
	gap(t, w, mcp, mcpserver.Options{}, func() { scenarioNamed("crashloop-missing-env").setup(t, c, ns) })

	il := w.next(t, 2*time.Minute)
	if il.Status != "resolved" || il.Namespace != ns || il.Kind != "Pod" || il.Name != "api" || il.FaultType != "CrashLoop" || !strings.Contains(il.RootCause, "DATABASE_URL") {
		t.Errorf("incident: %+v", il)
	}
	if code, rest := w.wait(t, time.Minute); code != 0 || len(rest) != 0 {
		t.Errorf("exit %d, extra lines %q; stderr:\n%s", code, rest, w.stderr.String())
	}
	reconciled := w.logged(t, "reconciling after a gap", time.Second)
	if reconciled["faults"] != float64(1) || reconciled["faulty"] != float64(2) {
		t.Errorf("reconciled %v, want 1 new fault of 2 faulty objects", reconciled)
	}
}

// TestWatchGapServerNamesContext: kubernetes-mcp-server run with a
// kubeconfig names the cluster by its context ("cluster":"triage" here),
// while the reconciling scan finds the same faults in the current context.
// A fault the server reported before a gap is not triaged again after it:
// one identity for the cluster across both, so the reconciler knows what
// the server reported and dedup keys match. Only pod/worker, which began
// during the gap unreported, is triaged after it.
func TestWatchGapServerNamesContext(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	mcp := startMCP(t, mcpserver.Options{Cluster: "triage"}) // the user kubeconfig's context
	w := startWatch(t, c, "--mcp-endpoint", mcp.Endpoint(), "-n", ns, "--max-incidents", "2")
	w.logged(t, "subscribed to the MCP server's events", time.Minute)
	w.logged(t, "noted the faults present now: after a gap, only faults that began later are triaged", time.Minute)

	scenarioNamed("crashloop-missing-env").setup(t, c, ns) // pod/api, reported by the server
	send(t, mcp, podFault(ns, "api", "CrashLoop", "critical"))
	first := w.next(t, 2*time.Minute)
	if first.Name != "api" || first.Cluster != "triage" || first.Status != "resolved" {
		t.Fatalf("first incident: %+v", first)
	}

	gap(t, w, mcp, mcpserver.Options{Cluster: "triage"}, func() {
		scenarioNamed("crashloop-connection-refused-bare-name").setup(t, c, ns) // pod/worker, never reported
	})
	second := w.next(t, 2*time.Minute)
	if second.Name != "worker" || second.Cluster != "triage" {
		t.Errorf("second incident: %+v, want pod/worker (pod/api was triaged already)", second)
	}
	if code, rest := w.wait(t, time.Minute); code != 0 || len(rest) != 0 {
		t.Errorf("exit %d, extra lines %q; stderr:\n%s", code, rest, w.stderr.String())
	}
	reconciled := w.logged(t, "reconciling after a gap", time.Second)
	if reconciled["faults"] != float64(1) || reconciled["faulty"] != float64(2) {
		t.Errorf("reconciled %v, want 1 new fault (pod/worker) of 2 faulty objects", reconciled)
	}
}

// gap stops the MCP server as a crash does, waits until watch noticed (and
// noted the faults present as the gap began), runs during, and starts the
// server again on the same endpoint with opts.
func gap(t *testing.T, w *watchProc, s *mcpserver.Server, opts mcpserver.Options, during func()) *mcpserver.Server {
	t.Helper()
	u, err := url.Parse(s.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	w.logged(t, "noted the faults present as the gap began: after it, only faults that began during it are triaged", time.Minute)
	during()
	opts.Addr = u.Host
	return startMCP(t, opts)
}

// TestWatchGapOnlyItsFaults: after a gap, the scan triages the faults that
// began during it, not those that began after the watch started but
// before the gap (which the server did not report: not a gap's loss).
func TestWatchGapOnlyItsFaults(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	mcp := startMCP(t, mcpserver.Options{})
	w := startWatch(t, c, "--mcp-endpoint", mcp.Endpoint(), "-n", ns, "--max-incidents", "1")
	w.logged(t, "subscribed to the MCP server's events", time.Minute)
	w.logged(t, "noted the faults present now: after a gap, only faults that began later are triaged", time.Minute)

	// pod/api begins while the watch runs, unreported; pod/worker during
	// the gap. A scan lists api first.
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	gap(t, w, mcp, mcpserver.Options{}, func() { scenarioNamed("crashloop-connection-refused-bare-name").setup(t, c, ns) })
	il := w.next(t, 2*time.Minute)
	if il.Name != "worker" {
		t.Errorf("incident: %+v, want pod/worker, the gap's fault", il)
	}
	if code, rest := w.wait(t, time.Minute); code != 0 || len(rest) != 0 {
		t.Errorf("exit %d, extra lines %q; stderr:\n%s", code, rest, w.stderr.String())
	}
	reconciled := w.logged(t, "reconciling after a gap", time.Second)
	if reconciled["faults"] != float64(1) || reconciled["faulty"] != float64(2) {
		t.Errorf("reconciled %v, want 1 new fault (pod/worker) of 2 faulty objects", reconciled)
	}
}
