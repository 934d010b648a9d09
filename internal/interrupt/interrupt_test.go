package interrupt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// The child modes run in a copy of this test binary, since what they check
// is how the process ends.
const childEnv = "INTERRUPT_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "early-then-context":
		// A signal before Context: the context is cancelled by it.
		Catch()
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(100 * time.Millisecond)
		ctx, stop := Context(context.Background())
		defer stop()
		select {
		case <-ctx.Done():
			os.Exit(130)
		case <-time.After(5 * time.Second):
			os.Exit(3)
		}
	case "second-kills":
		// After the first signal the default handling is back.
		ctx, stop := Context(context.Background())
		defer stop()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(5 * time.Second)
		os.Exit(4)
	}
	os.Exit(2)
}

func TestProcessEnds(t *testing.T) {
	tests := []struct {
		mode     string
		code     int            // exit status, when signal is 0
		signaled syscall.Signal // ended by this signal
	}{
		{"early-then-context", 130, 0},
		{"second-kills", 0, syscall.SIGINT},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+tt.mode)
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case tt.signaled != 0:
				if !ws.Signaled() || ws.Signal() != tt.signaled {
					t.Errorf("ended with %v, want killed by %v", ws, tt.signaled)
				}
			case ws.Signaled() || ws.ExitStatus() != tt.code:
				t.Errorf("ended with status %d (signaled %v), want exit %d", ws.ExitStatus(), ws.Signaled(), tt.code)
			}
		})
	}
}

func TestContextStopReleases(t *testing.T) {
	ctx, stop := Context(context.Background())
	stop()
	if ctx.Err() == nil {
		t.Error("stop did not end the context")
	}
	// Catching again works (a second Execute in one process, as tests do).
	ctx, stop = Context(context.Background())
	defer stop()
	if ctx.Err() != nil {
		t.Error("a new context is already done")
	}
}
