//go:build !windows

package agent

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestCancelInterruptsAgain: an agent group that misses the first
// interrupt (here it ignores SIGINT for its first 1.5 s, as an init does
// before its handler is set) still ends on a later one, long before the
// WaitDelay's SIGKILL.
func TestCancelInterruptsAgain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", `trap "" INT; sleep 1.5; trap - INT; exec sleep 30`)
	exited := setProcessGroup(cmd)
	cmd.WaitDelay = 20 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cancel()
	cmd.Wait()
	exited()
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the agent ended %s after the cancel: the later interrupts did not reach it", took.Round(time.Millisecond))
	}
	if !cmd.ProcessState.Exited() && cmd.ProcessState.String() != "signal: interrupt" {
		t.Errorf("the agent ended by %s, want an interrupt", cmd.ProcessState)
	}
}
