package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The lifecycle of kubectl triage mcp's calls: the concurrency bound,
// cancellation by the client, the per-call timeout, and the server stopping
// mid-triage. An agent that blocks keeps a triage running.

// blockingAgentScript is an agent CLI that runs until killed.
const blockingAgentScript = "#!/bin/sh\nsleep 3141\n"

// TestMCPCancelAndConcurrency runs a server whose agent blocks, over both
// transports: at most two triages run at once (a third waits for a slot),
// and a client that cancels its call ends the incident cancelled with no
// agent process left.
func TestMCPCancelAndConcurrency(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	agentCmd := filepath.Join(t.TempDir(), "slow-agent")
	if err := os.WriteFile(agentCmd, []byte(blockingAgentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			s := startServe(t, c, transport, "--agent-command", agentCmd, "--wait-delay", "1s")
			type call struct {
				cancel context.CancelFunc
				done   chan error
			}
			start := func() call {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				done := make(chan error, 1)
				go func() {
					res, err := s.call(ctx, t, "triage", map[string]any{"target": "api", "namespace": ns})
					if err == nil && res.IsError {
						err = errors.New(textOf(res))
					}
					done <- err
				}()
				return call{cancel, done}
			}
			first, second := start(), start()
			s.progress.waitFor(t, "Investigating", 2)
			third := start()
			s.progress.waitFor(t, "Waiting for a slot: 2 triages are running", 1)
			if n := countWorkspaces(t, s.root); n != 2 {
				t.Errorf("%d incidents while two triages run and one waits, want 2", n)
			}
			// "Investigating" comes just before the agent starts.
			for deadline := time.Now().Add(10 * time.Second); countProcs(t) < 2 && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			if n := countProcs(t); n != 2 {
				t.Errorf("%d agent processes run, want 2", n)
			}

			first.cancel()
			if err := <-first.done; err == nil {
				t.Errorf("a cancelled call returned no error")
			}
			s.progress.waitFor(t, "Investigating", 3) // the third got the slot
			second.cancel()
			third.cancel()
			<-second.done
			<-third.done

			// Every incident ends cancelled, every agent is gone.
			deadline := time.Now().Add(20 * time.Second)
			for {
				var pending []string
				for _, inc := range loadAll(t, s.root) {
					if inc.Status != incident.Failed || inc.FailureReason != incident.ReasonCancelled || inc.Agent.State != incident.AgentCancelled {
						pending = append(pending, fmt.Sprintf("%s %s %q %s", inc.IncidentID, inc.Status, inc.FailureReason, inc.Agent.State))
					}
				}
				if len(pending) == 0 && countProcs(t) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after cancelling: incidents %v, %d agent processes left\n%s", pending, countProcs(t), s.stderr)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if n := countWorkspaces(t, s.root); n != 3 {
				t.Errorf("%d incidents, want 3", n)
			}
		})
	}
}

func countWorkspaces(t *testing.T, root string) int {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

func loadAll(t *testing.T, root string) []*incident.Incident {
	t.Helper()
	entries, _ := os.ReadDir(root)
	var out []*incident.Incident
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		inc, err := incident.Load(filepath.Join(root, e.Name(), "incident.json"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, inc)
	}
	return out
}

// countProcs counts the blocking agent's processes on the host.
func countProcs(t *testing.T) int {
	t.Helper()
	out, _ := exec.Command("pgrep", "-f", "sleep 3141").Output()
	return len(strings.Fields(string(out)))
}

// TestMCPCallTimeout: a call that outlives --call-timeout ends its incident
// failed with reason timeout, and its agent is gone.
func TestMCPCallTimeout(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	agentCmd := filepath.Join(t.TempDir(), "slow-agent")
	if err := os.WriteFile(agentCmd, []byte(blockingAgentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, c, "stdio", "--agent-command", agentCmd, "--wait-delay", "1s", "--call-timeout", "3s")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.call(ctx, t, "triage", map[string]any{"target": "pod/api", "namespace": ns})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ IncidentID, Status, FailureReason string }
	structured(t, res, &out)
	if !res.IsError || out.Status != "failed" || out.FailureReason != incident.ReasonTimeout {
		t.Errorf("after the call timeout: error %v, %+v\n%s", res.IsError, out, textOf(res))
	}
	inc := loadIncident(t, filepath.Join(s.root, out.IncidentID))
	if inc.Status != incident.Failed || inc.FailureReason != incident.ReasonTimeout || inc.Agent.State != incident.AgentTimeout {
		t.Errorf("incident: %s %q %s", inc.Status, inc.FailureReason, inc.Agent.State)
	}
	if n := countProcs(t); n != 0 {
		t.Errorf("%d agent processes left after the timeout", n)
	}
}

// TestMCPServerStops: a stdio client that goes away, or SIGTERM to the HTTP
// server, mid-triage: the run is cancelled, its incident recorded
// cancelled, and no agent process is left.
func TestMCPServerStops(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	agentCmd := filepath.Join(t.TempDir(), "slow-agent")
	if err := os.WriteFile(agentCmd, []byte(blockingAgentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			s := startServe(t, c, transport, "--agent-command", agentCmd, "--wait-delay", "1s")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			go s.call(ctx, t, "triage", map[string]any{"target": "pod/api", "namespace": ns})
			s.progress.waitFor(t, "Investigating", 1)
			for deadline := time.Now().Add(10 * time.Second); countProcs(t) < 1 && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			s.stop(t)
			incs := loadAll(t, s.root)
			if len(incs) != 1 || incs[0].Status != incident.Failed || incs[0].FailureReason != incident.ReasonCancelled {
				for _, inc := range incs {
					t.Errorf("incident %s %s %q", inc.IncidentID, inc.Status, inc.FailureReason)
				}
				t.Fatalf("want one cancelled incident once the server stopped\n%s", s.stderr)
			}
			if n := countProcs(t); n != 0 {
				t.Errorf("%d agent processes outlived the server", n)
			}
		})
	}
}
