package triage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// preparingAgent is a fakeAgent whose Prepare (run while the workspace is
// made) calls prepare.
type preparingAgent struct {
	fakeAgent
	prepare func() error
}

func (a *preparingAgent) Prepare(*workspace.Workspace) error { return a.prepare() }

func okAgent(context.Context, *agent.Run) (*agent.Outcome, error) {
	return &agent.Outcome{Report: typedReport("DATABASE_URL is unset", 0.95)}, nil
}

func podRequest(t *testing.T) Request {
	t.Helper()
	ev, err := fault.Synthesize("prod", fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop", UID: "u1"}, fault.TypeCrashLoop, fault.SeverityCritical, "back-off restarting", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind("Pod")
	obj.SetName("api")
	obj.SetNamespace("shop")
	return Request{Client: &clusters.Client{Name: "prod"}, Namespace: "shop", Event: ev, Object: obj}
}

// TestCollectionOverlapsWorkspace: the evidence is being collected while
// the workspace is made (its reads depend on the object alone); a run whose
// workspace cannot be made stops its collection before it returns.
func TestCollectionOverlapsWorkspace(t *testing.T) {
	t.Run("overlap", func(t *testing.T) {
		started := make(chan struct{})
		a := &preparingAgent{fakeAgent: fakeAgent{run: okAgent}, prepare: func() error {
			select {
			case <-started:
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("the workspace was made before collection began")
			}
		}}
		e := New(Config{WorkspaceRoot: t.TempDir(), Agent: a})
		e.collect = func(ctx context.Context, _ kubernetes.Interface, obj *unstructured.Unstructured, info bundle.ClusterInfo, _ bundle.Options) (*bundle.Bundle, error) {
			close(started)
			return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: obj.GetName(), Namespace: obj.GetNamespace()}, Object: obj}, nil
		}
		res, err := e.Run(context.Background(), podRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode() != ExitResolved {
			t.Errorf("exit %d: %s", res.ExitCode(), res.Incident.FailureReason)
		}
	})
	t.Run("workspace fails", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(root, nil, 0o600); err != nil { // a file: no workspace can be made under it
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		e := New(Config{WorkspaceRoot: root, Agent: &fakeAgent{run: okAgent}})
		e.collect = func(ctx context.Context, _ kubernetes.Interface, _ *unstructured.Unstructured, _ bundle.ClusterInfo, _ bundle.Options) (*bundle.Bundle, error) {
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		}
		if _, err := e.Run(context.Background(), podRequest(t)); err == nil {
			t.Fatal("a run under a file made an incident")
		}
		select {
		case <-ended:
		default:
			t.Error("Run returned while its collection still ran")
		}
	})
}
