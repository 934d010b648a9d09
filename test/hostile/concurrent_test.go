package hostile

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestFiftyConcurrentTriages starts 50 triages at once into one workspace
// root: each gets its own incident, every one is recorded and listed, and
// list/gc see no half-written workspace while they run.
func TestFiftyConcurrentTriages(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	root := filepath.Join(t.TempDir(), "incidents")
	const n = 50
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runCmd(t, plugin(t, c, root, "pod/victim", "-n", ns, "-o", "json"), 5*time.Minute)
		}()
	}
	// Readers while the writers run: list and gc must not trip over
	// workspaces being created.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
			if r := run(t, c, root, "list"); r.code != 0 {
				t.Errorf("list during the runs: exit %d: %s", r.code, r.stderr)
			}
			if r := run(t, c, root, "gc", "--older-than", "1h"); r.code != 0 {
				t.Errorf("gc during the runs: exit %d: %s", r.code, r.stderr)
			}
		}
	}
	figures.concurrentRuns.Add(n)
	ok := 0
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	seen := map[string]bool{}
	for _, inc := range listJSON(t, c, root) {
		if seen[inc.IncidentID] {
			t.Errorf("incident %s listed twice", inc.IncidentID)
		}
		seen[inc.IncidentID] = true
		if inc.Status == incident.Resolved {
			ok++
		} else {
			t.Errorf("incident %s: %s %s", inc.IncidentID, inc.Status, inc.FailureReason)
		}
	}
	if len(seen) != n {
		t.Errorf("%d incidents listed, want %d", len(seen), n)
	}
	if !assertSettled(t, root) {
		ok = 0
	}
	figures.concurrentClean.Add(int64(ok))
}
