package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/readonly"
	engine "github.com/kubectl-triage/kubectl-triage/pkg/triage"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// blockingAgent runs until its context ends, recording what incident.json
// said while it was running.
type blockingAgent struct {
	started  chan struct{}
	midState *incident.Incident
}

func (*blockingAgent) Name() string      { return "blocking" }
func (*blockingAgent) Command() []string { return []string{"blocking-agent"} }
func (*blockingAgent) Model() string     { return "" }

func (*blockingAgent) Capabilities() agent.Capabilities   { return agent.Capabilities{} }
func (*blockingAgent) Prepare(*workspace.Workspace) error { return nil }
func (a *blockingAgent) Run(ctx context.Context, r *agent.Run) (*agent.Outcome, error) {
	r.Started(4242)
	inc, err := incident.Load(r.Workspace.MustPath(workspace.IncidentFile))
	if err == nil {
		a.midState = inc
	}
	close(a.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestCancelDuringAgent: cancelling (Ctrl-C) while the agent runs ends the
// incident failed/cancelled with every transition on disk, and incident.json
// said investigating/running in the meantime.
func TestCancelDuringAgent(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	cfg := readonly.Config(c.UserConfig())
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	obj, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(ns).Get(context.Background(), "api", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := fault.Synthesize("testcluster", fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: ns, UID: string(obj.GetUID())}, fault.TypeCrashLoop, fault.SeverityCritical, "test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	a := &blockingAgent{started: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-a.started; cancel() }()
	e := engine.New(engine.Config{WorkspaceRoot: filepath.Join(t.TempDir(), "ws"), Agent: a, Timeout: time.Minute})
	res, err := e.Run(ctx, engine.Request{Client: &clusters.Client{Clientset: cs}, Event: ev, Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	if a.midState == nil || a.midState.Status != incident.Investigating || a.midState.Agent.State != incident.AgentRunning || a.midState.Agent.PID != 4242 || a.midState.StartedAt == nil {
		t.Errorf("while running, incident.json said %+v", a.midState)
	}
	inc, err := incident.Load(filepath.Join(res.Workspace.Dir, "incident.json"))
	if err != nil {
		t.Fatal(err)
	}
	if inc.Status != incident.Failed || inc.FailureReason != incident.ReasonCancelled || inc.Agent.State != incident.AgentCancelled || inc.CompletedAt == nil {
		t.Errorf("after cancel: status %q reason %q state %q completed %v", inc.Status, inc.FailureReason, inc.Agent.State, inc.CompletedAt)
	}
	if inc.Agent.Command[0] != "blocking-agent" {
		t.Errorf("agent command not recorded: %v", inc.Agent.Command)
	}
}
