package e2e

import (
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

	// pod/api begins crash-looping and the server never says so: as if it
	// happened during the gap.
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	mcp.DropConnections()

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
