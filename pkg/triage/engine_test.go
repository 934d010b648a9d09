package triage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// The engine's state machine, driven by a fake agent: every way a run can
// end, the incident it records (status, failure reason, the agent's state
// transitions) and the exit code the CLI maps it to. The cluster side
// (collection) is replaced too: what is tested is the engine's logic, not
// the bundle (test/e2e runs the same engine against a real API server).

// fakeAgent is an agent whose run is a function of the test's.
type fakeAgent struct {
	caps agent.Capabilities
	run  func(ctx context.Context, r *agent.Run) (*agent.Outcome, error)
}

func (*fakeAgent) Name() string                           { return "fake" }
func (*fakeAgent) Command() []string                      { return []string{"fake-agent", "--read-only"} }
func (*fakeAgent) Model() string                          { return "fake-model" }
func (a *fakeAgent) Capabilities() agent.Capabilities     { return a.caps }
func (*fakeAgent) Prepare(tmp *workspace.Workspace) error { return nil }
func (a *fakeAgent) Run(ctx context.Context, r *agent.Run) (*agent.Outcome, error) {
	r.Started(4242)
	return a.run(ctx, r)
}

// stateLog keeps the agent states the engine logged, in order.
type stateLog struct {
	mu     sync.Mutex
	states []string
}

func (s *stateLog) Enabled(context.Context, slog.Level) bool { return true }
func (s *stateLog) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *stateLog) WithGroup(string) slog.Handler            { return s }
func (s *stateLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "agent state" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "state" {
			s.mu.Lock()
			s.states = append(s.states, a.Value.String())
			s.mu.Unlock()
		}
		return true
	})
	return nil
}

func (s *stateLog) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.states)
}

// typedReport is what the builtin agent returns: a report as data.
func typedReport(statement string, score float64) *report.Report {
	r := &report.Report{
		Agent: "fake", Resource: report.Resource{Kind: "Pod", Name: "api", Namespace: "shop"},
		Title: statement, Summary: statement + ".", RootCause: report.RootCause{Statement: statement},
	}
	r.SetConfidence(score)
	return r
}

const externalMarkdown = `# Triage: Pod/api (shop) — DATABASE_URL is unset

## Summary

The container exits because DATABASE_URL is unset.

## Root cause

**DATABASE_URL is unset** (probable, 0.6)
`

// writeFile writes rel in the run's workspace, as an external agent does.
func writeFile(t *testing.T, r *agent.Run, rel, text string) {
	t.Helper()
	if err := os.WriteFile(r.Workspace.MustPath(rel), []byte(text), 0o600); err != nil {
		t.Error(err)
	}
}

type run struct {
	res      *Result
	states   []string
	events   []progress.Event
	root     string
	markdown string // output/investigation.md on disk
	json     string // output/investigation.json on disk
	onDisk   *incident.Incident
}

type setup struct {
	caps     agent.Capabilities
	upstream *rest.Config // the cluster's identity for an agent's gateway
	timeout  time.Duration
	collect  func() (*bundle.Bundle, error)
	noHints  bool // Config.NoBuiltinHints
	// during runs beside the agent once it has started (the incident's ID
	// in hand); cancel ends the run's parent context.
	during func(t *testing.T, root, id string, cancel context.CancelFunc)
}

func triageWith(t *testing.T, s setup, agentRun func(ctx context.Context, r *agent.Run) (*agent.Outcome, error)) run {
	t.Helper()
	root := t.TempDir()
	states := &stateLog{}
	started := make(chan string, 1)
	wrapped := func(ctx context.Context, r *agent.Run) (*agent.Outcome, error) {
		started <- r.Incident.IncidentID
		return agentRun(ctx, r)
	}
	e := New(Config{WorkspaceRoot: root, Agent: &fakeAgent{caps: s.caps, run: wrapped}, Timeout: s.timeout, Logger: slog.New(states), NoBuiltinHints: s.noHints})
	e.collect = func(ctx context.Context, _ kubernetes.Interface, obj *unstructured.Unstructured, info bundle.ClusterInfo, _ bundle.Options) (*bundle.Bundle, error) {
		if s.collect != nil {
			return s.collect()
		}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: obj.GetName(), Namespace: obj.GetNamespace()}, Object: obj, Cluster: info, Requests: 3}, nil
	}
	at := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	ev, err := fault.Synthesize("prod", fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop", UID: "u1"}, fault.TypeCrashLoop, fault.SeverityCritical, "back-off restarting", at)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind("Pod")
	obj.SetName("api")
	obj.SetNamespace("shop")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var events []progress.Event
	report := func(ev progress.Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}
	done := make(chan struct{})
	if s.during != nil {
		go func() {
			defer close(done)
			select {
			case id := <-started:
				s.during(t, root, id, cancel)
			case <-ctx.Done():
			}
		}()
	} else {
		close(done)
	}
	client := &clusters.Client{Name: "prod-ctx", Info: bundle.ClusterInfo{Context: "prod-ctx", Cluster: "prod", Namespace: "default"}, Upstream: s.upstream}
	res, err := e.Run(ctx, Request{Client: client, Namespace: "shop", Event: ev, Object: obj, Progress: report})
	cancel()
	<-done
	if err != nil {
		t.Fatalf("no incident: %v", err)
	}
	out := run{res: res, states: states.get(), events: events, root: root}
	md, _ := os.ReadFile(res.Workspace.MustPath(workspace.ReportFile))
	js, _ := os.ReadFile(res.Workspace.MustPath(workspace.ReportJSONFile))
	out.markdown, out.json = string(md), string(js)
	out.onDisk, _ = incident.Load(res.Workspace.MustPath(workspace.IncidentFile))
	return out
}

func TestEngineStateMachine(t *testing.T) {
	tests := []struct {
		name      string
		setup     setup
		agent     func(t *testing.T) func(ctx context.Context, r *agent.Run) (*agent.Outcome, error)
		status    incident.Status
		reason    string // failureReason, or a prefix of it ending in ":"
		states    []string
		exit      int
		rootCause string
		level     string
		check     func(t *testing.T, got run)
	}{
		{
			name: "typed report resolves",
			agent: func(*testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(context.Context, *agent.Run) (*agent.Outcome, error) {
					return &agent.Outcome{Report: typedReport("DATABASE_URL is unset", 0.95)}, nil
				}
			},
			status: incident.Resolved, states: []string{"starting", "running", "success"}, exit: ExitResolved,
			rootCause: "DATABASE_URL is unset", level: "verified",
			check: func(t *testing.T, got run) {
				// The engine renders the typed report: markdown and data.
				if !strings.Contains(got.markdown, "## Root cause") || got.markdown != got.res.Markdown {
					t.Errorf("investigation.md is not the rendered report:\n%s", got.markdown)
				}
				if !strings.Contains(got.json, `"statement": "DATABASE_URL is unset"`) {
					t.Errorf("investigation.json lacks the report:\n%s", got.json)
				}
				if got.res.Report == nil || got.res.Report.RootCause.Statement != "DATABASE_URL is unset" {
					t.Errorf("result's report: %+v", got.res.Report)
				}
			},
		},
		{
			name:  "external markdown is parsed once and footed",
			setup: setup{caps: agent.Capabilities{UsesCluster: true, Sandbox: "none: no user namespaces here"}},
			agent: func(t *testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
					writeFile(t, r, workspace.ReportFile, externalMarkdown)
					return &agent.Outcome{Notes: []string{"kubectl-triage: the agent's stream reported 3 tool calls."}}, nil
				}
			},
			status: incident.Resolved, states: []string{"starting", "running", "success"}, exit: ExitResolved,
			rootCause: "DATABASE_URL is unset", level: "probable",
			check: func(t *testing.T, got run) {
				if !strings.HasPrefix(got.markdown, externalMarkdown) {
					t.Errorf("the agent's markdown is not kept as written:\n%s", got.markdown)
				}
				for _, note := range []string{"ran without a sandbox (no user namespaces here)", "reported 3 tool calls"} {
					if !strings.Contains(got.markdown, note) {
						t.Errorf("footer lacks %q:\n%s", note, got.markdown)
					}
				}
				if got.json != "" {
					t.Errorf("an agent that wrote only markdown got an investigation.json:\n%s", got.json)
				}
				if got.onDisk.Sandbox != "none: no user namespaces here" {
					t.Errorf("sandbox %q", got.onDisk.Sandbox)
				}
				if !slices.ContainsFunc(got.events, func(e progress.Event) bool {
					return e.Kind == progress.Warning && strings.Contains(e.Message, "without a sandbox")
				}) {
					t.Errorf("no warning event about the missing sandbox: %v", got.events)
				}
			},
		},
		{
			name: "an external agent's data sets the headline, its band follows its score",
			agent: func(t *testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
					writeFile(t, r, workspace.ReportFile, externalMarkdown)
					writeFile(t, r, workspace.ReportJSONFile, `{"rootCause":{"statement":"the Secret db-creds lacks key url"},"confidence":0.3,"confidenceLevel":"verified"}`)
					return &agent.Outcome{}, nil
				}
			},
			status: incident.Resolved, states: []string{"starting", "running", "success"}, exit: ExitResolved,
			rootCause: "the Secret db-creds lacks key url", level: "speculation",
		},
		{
			name: "no report",
			agent: func(*testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(context.Context, *agent.Run) (*agent.Outcome, error) { return &agent.Outcome{}, nil }
			},
			status: incident.AgentFailed, reason: "missing or invalid investigation report:", states: []string{"starting", "running", "success"}, exit: ExitAgentFailed,
		},
		{
			name: "invalid report",
			agent: func(t *testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
					writeFile(t, r, workspace.ReportFile, "I looked around and it seems fine.\n")
					return &agent.Outcome{}, nil
				}
			},
			status: incident.AgentFailed, reason: "missing or invalid investigation report:", states: []string{"starting", "running", "success"}, exit: ExitAgentFailed,
		},
		{
			name: "typed report without a root cause",
			agent: func(*testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(context.Context, *agent.Run) (*agent.Outcome, error) {
					return &agent.Outcome{Report: typedReport("", 0.2)}, nil
				}
			},
			status: incident.AgentFailed, reason: "missing or invalid investigation report:", states: []string{"starting", "running", "success"}, exit: ExitAgentFailed,
		},
		{
			name: "agent exits non-zero",
			agent: func(t *testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
					writeFile(t, r, workspace.ReportFile, externalMarkdown) // a report does not make a failed run resolved
					return &agent.Outcome{ExitCode: 2}, nil
				}
			},
			status: incident.Failed, reason: "agent exited with code 2", states: []string{"starting", "running", "failed"}, exit: ExitFailed,
			check: func(t *testing.T, got run) {
				if got.onDisk.Agent.ExitCode == nil || *got.onDisk.Agent.ExitCode != 2 {
					t.Errorf("agent exit code not recorded: %+v", got.onDisk.Agent)
				}
				if got.onDisk.Report != nil {
					t.Errorf("a failed run has a report: %+v", got.onDisk.Report)
				}
			},
		},
		{
			name: "agent error",
			agent: func(*testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(context.Context, *agent.Run) (*agent.Outcome, error) {
					return nil, errors.New("model API unreachable")
				}
			},
			status: incident.Failed, reason: "agent: model API unreachable", states: []string{"starting", "running", "failed"}, exit: ExitFailed,
		},
		{
			name:  "timeout",
			setup: setup{timeout: 50 * time.Millisecond},
			agent: func(*testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(ctx context.Context, _ *agent.Run) (*agent.Outcome, error) {
					<-ctx.Done()
					return &agent.Outcome{ExitCode: -1, Signal: "interrupt"}, ctx.Err()
				}
			},
			status: incident.Failed, reason: incident.ReasonTimeout, states: []string{"starting", "running", "timeout"}, exit: ExitTimeout,
			check: func(t *testing.T, got run) {
				if got.onDisk.Agent.Signal != "interrupt" {
					t.Errorf("signal not recorded: %+v", got.onDisk.Agent)
				}
			},
		},
		{
			name:  "interrupted (Ctrl-C)",
			setup: setup{during: func(_ *testing.T, _, _ string, cancel context.CancelFunc) { cancel() }},
			agent: func(*testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(ctx context.Context, _ *agent.Run) (*agent.Outcome, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				}
			},
			status: incident.Failed, reason: incident.ReasonCancelled, states: []string{"starting", "running", "cancelled"}, exit: ExitCancelled,
		},
		{
			name: "cancelled on request (kubectl triage cancel)",
			setup: setup{during: func(t *testing.T, root, id string, _ context.CancelFunc) {
				if err := RequestCancel(root, id, "alice@laptop (pid 7)"); err != nil {
					t.Error(err)
				}
			}},
			agent: func(*testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(ctx context.Context, _ *agent.Run) (*agent.Outcome, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				}
			},
			status: incident.Failed, reason: incident.ReasonCancelled, states: []string{"starting", "running", "cancelled"}, exit: ExitCancelled,
			check: func(t *testing.T, got run) {
				if got.onDisk.CancelledBy != "alice@laptop (pid 7)" {
					t.Errorf("cancelledBy %q", got.onDisk.CancelledBy)
				}
				if _, err := os.Stat(filepath.Join(got.root, ".cancel-"+got.res.Incident.IncidentID)); !os.IsNotExist(err) {
					t.Errorf("the cancel request outlived the run: %v", err)
				}
			},
		},
		{
			name: "collection fails",
			setup: setup{collect: func() (*bundle.Bundle, error) {
				return nil, errors.New("the server is currently unable to handle the request")
			}},
			agent: func(t *testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(context.Context, *agent.Run) (*agent.Outcome, error) {
					t.Error("the agent ran without evidence")
					return nil, nil
				}
			},
			status: incident.Failed, reason: "collect evidence: the server is currently unable to handle the request", states: []string{"failed"}, exit: ExitFailed,
		},
		{
			name: "outcome not recorded",
			agent: func(t *testing.T) func(context.Context, *agent.Run) (*agent.Outcome, error) {
				return func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
					// incident.json replaced by a directory: no later save can land.
					p := r.Workspace.MustPath(workspace.IncidentFile)
					if err := os.Remove(p); err != nil {
						t.Error(err)
					}
					if err := os.Mkdir(p, 0o700); err != nil {
						t.Error(err)
					}
					return &agent.Outcome{Report: typedReport("DATABASE_URL is unset", 0.95)}, nil
				}
			},
			status: incident.Resolved, states: []string{"starting", "running", "success"}, exit: ExitFailed,
			rootCause: "DATABASE_URL is unset", level: "verified",
			check: func(t *testing.T, got run) {
				if got.res.RecordErr == nil {
					t.Error("no RecordErr although incident.json could not be written")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := triageWith(t, tt.setup, tt.agent(t))
			inc := got.res.Incident
			if inc.Status != tt.status {
				t.Errorf("status %s, want %s (reason %q)", inc.Status, tt.status, inc.FailureReason)
			}
			if want, prefix := strings.CutSuffix(tt.reason, ":"); prefix && !strings.HasPrefix(inc.FailureReason, tt.reason) ||
				!prefix && inc.FailureReason != want {
				t.Errorf("failureReason %q, want %q", inc.FailureReason, tt.reason)
			}
			if !slices.Equal(got.states, tt.states) {
				t.Errorf("agent states %v, want %v", got.states, tt.states)
			}
			if code := got.res.ExitCode(); code != tt.exit {
				t.Errorf("exit code %d, want %d", code, tt.exit)
			}
			if inc.CompletedAt == nil || inc.Finished() != true {
				t.Errorf("the incident did not finish: %+v", inc)
			}
			if tt.rootCause != "" {
				if inc.Report == nil || inc.Report.RootCause != tt.rootCause || inc.Report.ConfidenceLevel != tt.level {
					t.Errorf("report ref %+v, want root cause %q at %s", inc.Report, tt.rootCause, tt.level)
				}
			} else if inc.Report != nil {
				t.Errorf("unexpected report ref %+v", inc.Report)
			}
			// What is on disk is what the run returned, unless it could not
			// be written.
			if got.res.RecordErr == nil {
				if got.onDisk == nil || got.onDisk.Status != inc.Status || got.onDisk.FailureReason != inc.FailureReason {
					t.Errorf("incident.json says %+v", got.onDisk)
				}
			}
			if len(got.events) == 0 || got.events[0].Kind != progress.Incident {
				t.Errorf("the first event does not name the incident: %v", got.events)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

// While the agent runs, incident.json says investigating, with the agent
// running under this process; once this process is gone, the same record
// reads as interrupted, and the CLI's code for it is that of a failure.
func TestEngineRecordsARunningIncident(t *testing.T) {
	var during *incident.Incident
	got := triageWith(t, setup{}, func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
		inc, err := incident.Load(r.Workspace.MustPath(workspace.IncidentFile))
		if err != nil {
			return nil, err
		}
		during = inc
		return &agent.Outcome{Report: typedReport("DATABASE_URL is unset", 0.8)}, nil
	})
	if got.res.Incident.Status != incident.Resolved {
		t.Fatalf("status %s", got.res.Incident.Status)
	}
	if during == nil || during.Status != incident.Investigating || during.Agent.State != incident.AgentRunning || during.Agent.PID != 4242 {
		t.Fatalf("while running, incident.json said %+v", during)
	}
	if during.Interrupted() {
		t.Fatal("a running incident of this live process reads as interrupted")
	}
	if code := ExitCode(during); code != ExitFailed {
		t.Errorf("an unfinished incident maps to %d, want %d", code, ExitFailed)
	}
	// The same record, as another process finds it after this one died.
	gone := owner.Process{PID: 1 << 30, Host: during.Owner.Host}
	during.Owner = &gone
	if !during.MarkInterrupted() || during.Status != incident.Failed || during.FailureReason != incident.ReasonInterrupted {
		t.Fatalf("not interrupted: %+v", during)
	}
	if code := ExitCode(during); code != ExitFailed {
		t.Errorf("interrupted maps to %d, want %d", code, ExitFailed)
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		status incident.Status
		reason string
		want   int
	}{
		{incident.Resolved, "", ExitResolved},
		{incident.AgentFailed, "missing or invalid investigation report", ExitAgentFailed},
		{incident.Failed, "agent exited with code 2", ExitFailed},
		{incident.Failed, incident.ReasonTimeout, ExitTimeout},
		{incident.Failed, incident.ReasonCancelled, ExitCancelled},
		{incident.Failed, incident.ReasonInterrupted, ExitFailed},
		{incident.Investigating, "", ExitFailed},
	}
	for _, tt := range tests {
		if got := ExitCode(&incident.Incident{Status: tt.status, FailureReason: tt.reason}); got != tt.want {
			t.Errorf("%s/%s: exit %d, want %d", tt.status, tt.reason, got, tt.want)
		}
	}
}

// An agent that declares it uses the cluster gets a read-only gateway for
// its run (its kubeconfig points there, its report's footer counts its
// requests); one that does not gets none, even when an identity for one is
// at hand.
func TestEngineGatewayFollowsCapabilities(t *testing.T) {
	upstream := &rest.Config{Host: "https://127.0.0.1:1"}
	for _, usesCluster := range []bool{true, false} {
		t.Run(fmt.Sprintf("UsesCluster=%v", usesCluster), func(t *testing.T) {
			var gw, kubeconfig string
			got := triageWith(t, setup{caps: agent.Capabilities{UsesCluster: usesCluster, Sandbox: "namespaces"}, upstream: upstream},
				func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
					gw = r.Gateway
					data, _ := os.ReadFile(r.Workspace.MustPath(workspace.AgentKubeconfig))
					kubeconfig = string(data)
					writeFile(t, r, workspace.ReportFile, externalMarkdown)
					return &agent.Outcome{}, nil
				})
			if got.res.Incident.Status != incident.Resolved {
				t.Fatalf("status %s: %s", got.res.Incident.Status, got.res.Incident.FailureReason)
			}
			footer := strings.Contains(got.markdown, "through the read-only gateway")
			if usesCluster {
				if !strings.HasPrefix(gw, "127.0.0.1:") || !strings.Contains(kubeconfig, "server: https://"+gw) || !footer {
					t.Errorf("no gateway: %q, kubeconfig:\n%s\nreport:\n%s", gw, kubeconfig, got.markdown)
				}
			} else if gw != "" || kubeconfig != noClusterKubeconfig || footer {
				t.Errorf("a gateway for an agent that does not use the cluster: %q, kubeconfig:\n%s", gw, kubeconfig)
			}
			if got.onDisk.Sandbox != "namespaces" {
				t.Errorf("sandbox %q", got.onDisk.Sandbox)
			}
		})
	}
}
