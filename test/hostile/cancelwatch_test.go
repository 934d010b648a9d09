package hostile

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// runningIncident waits for an incident of root whose agent runs and that
// is not in skip.
func runningIncident(t *testing.T, root string, skip map[string]bool) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, name := range rootEntries(t, root) {
			if skip[name] {
				continue
			}
			if inc, err := incident.Load(filepath.Join(root, name, incident.FileName)); err == nil && inc.Agent.State == incident.AgentRunning {
				return name
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no incident's agent started")
	return ""
}

// TestCancelOneOfWatchs: cancelling one of watch's incidents from another
// terminal ends that incident (failed, cancelled) and the watch goes on
// with the next fault.
func TestCancelOneOfWatchs(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "first")
	crashPod(t, c, ns, "second")
	root := filepath.Join(t.TempDir(), "incidents")
	cmd := plugin(t, c, root, "watch", "-n", ns, "--include-existing", "-o", "json", "--agent-command", "sleep 30", "--drain-timeout", "5s")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start(t, cmd)
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	seen := map[string]bool{}
	for i := 0; i < 2; i++ {
		id := runningIncident(t, root, seen)
		seen[id] = true
		if r := run(t, c, root, "cancel", id); r.code != 0 || !strings.Contains(r.stdout, "cancelled") {
			t.Fatalf("cancel %s: exit %d %s %s", id, r.code, r.stdout, r.stderr)
		}
		var line struct{ IncidentID, Status, FailureReason string }
		select {
		case l := <-lines:
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("watch line %q: %v", l, err)
			}
		case <-time.After(time.Minute):
			t.Fatal("watch printed no line for the cancelled incident")
		}
		if line.IncidentID != id || line.Status != "failed" || line.FailureReason != "cancelled" {
			t.Errorf("watch line %+v, want %s failed/cancelled", line, id)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, cmd, 30*time.Second); code != 0 {
		t.Errorf("watch exit %d after SIGTERM", code)
	}
	if !assertSettled(t, root) {
		t.Error("watch left a half-written incident")
	}
}
