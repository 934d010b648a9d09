// Package triage is the engine of one run: incident → workspace → bundle →
// agent → report, with incident.json kept current at every step. The
// one-shot command, watch mode and the MCP server all drive the same Engine.
package triage

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/target"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Config is what every run of an Engine shares: one process, one agent,
// one workspace root.
type Config struct {
	WorkspaceRoot string
	Agent         agent.Agent
	Timeout       time.Duration
	Bundle        bundle.Options
	Logger        *slog.Logger
	Now           func() time.Time
	// NoBuiltinHints runs an external agent blind: the builtin
	// investigator still runs first (for the second opinion and the
	// safe-fix policy) but its findings are not given to the agent.
	NoBuiltinHints bool
}

// Engine runs triages. Safe for concurrent use: each run has its own
// incident, workspace and runner.
type Engine struct {
	cfg Config
	// collect gathers the evidence (bundle.Collect); tests replace it.
	collect func(ctx context.Context, cs kubernetes.Interface, obj *unstructured.Unstructured, info bundle.ClusterInfo, opts bundle.Options) (*bundle.Bundle, error)
}

// New returns an engine.
func New(cfg Config) *Engine {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Bundle.Concurrency == 0 {
		cfg.Bundle = bundle.DefaultOptions()
	}
	return &Engine{cfg: cfg, collect: bundle.Collect}
}

// Request is one triage: a fault and its resource on one cluster.
type Request struct {
	// Client is the cluster's read-only access (pkg/clusters).
	Client *clusters.Client
	// Namespace is the namespace the report is about; "" means the
	// context's.
	Namespace string
	// Event is the fault (synthesised for a picked resource).
	Event *fault.Event
	// Object is the fault's resource, fetched through the read-only
	// client (or a stub carrying bundle.GoneAnnotation when it is gone).
	Object *unstructured.Unstructured
	// PodEvents, for a pod target, is its events list already under way
	// (bundle.StartPodEvents); nil: the collection lists them.
	PodEvents *bundle.PodEvents
	// Progress receives the run's steps; nil discards them.
	Progress progress.Func
}

// Result is how a run ended.
type Result struct {
	Incident  *incident.Incident
	Workspace *workspace.Workspace
	// Report is the investigation as data, when the run produced a valid
	// one; Markdown is output/investigation.md as written.
	Report   *report.Report
	Markdown string
	// RecordErr is set when the outcome could not be saved in incident.json
	// (disk full, the file replaced): the record on disk is stale, the
	// Incident here is what happened.
	RecordErr error
}

// ExitCode is the CLI's exit code for the run (DESIGN.md §4): a run whose
// outcome could not be recorded is not a success, whatever the agent did.
func (r *Result) ExitCode() int {
	if r.RecordErr != nil {
		return ExitFailed
	}
	return ExitCode(r.Incident)
}

// Run triages one fault. It returns an error only when no incident could
// be created; every later failure is recorded in the incident and its
// Result.
func (e *Engine) Run(ctx context.Context, req Request) (*Result, error) {
	if req.Progress == nil {
		req.Progress = progress.Discard
	}
	info := req.Client.Info
	if req.Namespace != "" {
		info.Namespace = req.Namespace
	}
	ev := req.Event
	id := uuid.NewString()
	inc := incident.New(id, ev, info.Context, e.cfg.Agent.Name(), e.cfg.Now())
	inc.Agent.Command = e.cfg.Agent.Command()
	inc.Agent.Model = e.cfg.Agent.Model()
	self := owner.Self()
	inc.Owner = &self
	// What is written comes from the redacted copy; ev stays as received.
	redacted, _ := redact.Event(ev)
	log := e.cfg.Logger.With("incident_id", id, "cluster", inc.ClusterName())
	caps := e.cfg.Agent.Capabilities()
	upstream := req.Client.Upstream
	if !caps.UsesCluster {
		// The builtin agent reads through the plugin's own read-only
		// client: no gateway, so no identity to forward.
		upstream = nil
	}

	// The evidence depends on the object alone, not on the workspace:
	// collecting starts now, while the workspace is made and populated.
	collecting := e.startCollect(ctx, req.Client, req.Object, info, req.PodEvents)

	ws, err := workspace.Create(e.cfg.WorkspaceRoot, id, func(tmp *workspace.Workspace, final string) error {
		inc.Workspace = final
		if err := populate(tmp, inc, redacted, upstream != nil); err != nil {
			return err
		}
		return e.cfg.Agent.Prepare(tmp)
	})
	if err != nil {
		collecting.stop(err)
		return nil, fmt.Errorf("create incident workspace: %w", err)
	}
	log = log.With("workspace", ws.Dir)
	log.Info("incident created", "event", ev.EventID, "resource", inc.Resource.Kind+"/"+inc.Resource.Name)
	req.Progress(progress.Incidentf("Incident %s (workspace %s)", id, ws.Dir))

	r := &runner{ws: ws, inc: inc, log: log, cfg: e.cfg, caps: caps, upstream: upstream, collecting: collecting,
		progress: req.Progress, event: redacted, info: info}
	ctx, stop := r.watchCancel(ctx)
	defer stop()
	res := r.run(ctx, req.Client.Clientset)
	res.RecordErr = r.saveErr
	return res, nil
}

// Fault resolves a fault's resource on its cluster and triages it, as
// watch mode does for every fault: the report is about the fault's
// namespace. An error means no incident was created.
func (e *Engine) Fault(ctx context.Context, c *clusters.Client, ev *fault.Event, p progress.Func) (*Result, error) {
	if p == nil {
		p = progress.Discard
	}
	// c.Info.Namespace is the context's namespace, for faults that name none.
	t, err := ResolveFault(c.Flags, c.Info.Namespace, ev, p)
	if err != nil {
		return nil, fmt.Errorf("resolve %s/%s: %w", ev.ResourceKind(), ev.ResourceName(), err)
	}
	return e.Run(ctx, Request{Client: c, Namespace: ev.Namespace(), Event: ev, Object: t.Object, Progress: p})
}

// ResolveFault finds the event's resource in the cluster. A resource that
// is gone is not an error: the report says so and works from what the
// event carried.
func ResolveFault(flags *kubeflags.ConfigFlags, defaultNamespace string, ev *fault.Event, p progress.Func) (*target.Target, error) {
	res := *ev.Resource
	ns := res.Namespace
	if ns == "" {
		ns = defaultNamespace
	}
	typ := strings.ToLower(res.Kind)
	if gv, err := schema.ParseGroupVersion(res.APIVersion); err == nil && gv.Group != "" {
		typ += "." + gv.Group
	}
	p(progress.Stepf("Fault %s (%s, severity %s) for %s/%s in namespace %s", ev.FaultType, ev.EventID, ev.Severity, res.Kind, res.Name, ns))
	t, err := target.Resolve(flags, ns, []string{typ, res.Name})
	if err == nil {
		return t, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	p(progress.Stepf("%s/%s no longer exists: triaging from what the event carried", res.Kind, res.Name))
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(res.APIVersion)
	obj.SetKind(res.Kind)
	obj.SetName(res.Name)
	obj.SetNamespace(ns)
	obj.SetUID(types.UID(res.UID))
	obj.SetAnnotations(map[string]string{bundle.GoneAnnotation: "true"})
	return &target.Target{Object: obj}, nil
}
