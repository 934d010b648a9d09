package triage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Cancellation from another terminal (kubectl triage cancel ID) works through
// the workspace root, with no server to run: the command writes a request
// file, .cancel-<id>, beside the workspace (not in it: the agent can write
// its workspace, and must not be able to forge or remove a request), and
// the process that owns the incident, which polls for it, cancels that one
// run the way Ctrl-C does (SIGINT to the agent's process group, SIGKILL
// after the wait delay) and records who asked. A watch goes on with its
// other faults.

// cancelPoll is how often a running incident looks for a request.
const cancelPoll = 200 * time.Millisecond

// ErrCancelRequested is the cause of a run's context when it was cancelled
// on request.
var ErrCancelRequested = errors.New("cancelled on request")

// cancelFile is the request file for incident id under root.
func cancelFile(root, id string) (string, error) {
	if err := workspace.ValidateID(id); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workspace root %q: %w", root, err)
	}
	return filepath.Join(abs, workspace.CancelPrefix+id), nil
}

// RequestCancel asks the owner of incident id to cancel it; who says who
// asked (user, host, process).
func RequestCancel(root, id, who string) error {
	p, err := cancelFile(root, id)
	if err != nil {
		return err
	}
	return atomicfile.Write(p, []byte(who+"\n"), 0o600)
}

// AwaitFinished waits up to wait for incident id to finish once its
// cancellation was requested (its owner recorded the request, or the run
// ended before it saw it), reading the record through find. It returns the
// finished record, or nil when wait passed first.
func AwaitFinished(find func(id string) (*incident.Incident, error), id string, wait time.Duration) *incident.Incident {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if inc, err := find(id); err == nil && inc.Finished() {
			return inc
		}
	}
	return nil
}

// watchCancel returns a context cancelled when a request for this incident
// appears, and a function to stop watching (which removes the request).
func (r *runner) watchCancel(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	p, err := cancelFile(r.cfg.WorkspaceRoot, r.inc.IncidentID)
	if err != nil {
		return ctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(cancelPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// Read as any file of the root: a pipe or a link planted
			// there must not hold the run (nor this poll) forever.
			data, err := safefile.Dir{Base: filepath.Dir(p), Limit: workspace.ReadLimit}.ReadFile(ctx, filepath.Base(p))
			if err != nil {
				continue
			}
			who := strings.TrimSpace(string(data))
			if len(who) > 200 {
				who = who[:200]
			}
			r.cancelledBy(who)
			cancel(fmt.Errorf("%w by %s", ErrCancelRequested, who))
			return
		}
	}()
	return ctx, func() {
		close(done)
		<-stopped
		cancel(nil)
		os.Remove(p)
	}
}

// cancelledBy notes who asked; finish records it with the outcome.
func (r *runner) cancelledBy(who string) {
	r.cancelMu.Lock()
	r.cancelWho = who
	r.cancelMu.Unlock()
	r.progress(progress.Stepf("Cancellation of incident %s requested by %s", r.inc.IncidentID, who))
	r.log.Info("cancellation requested", "by", who)
}

func (r *runner) cancelRequester() string {
	r.cancelMu.Lock()
	defer r.cancelMu.Unlock()
	return r.cancelWho
}
