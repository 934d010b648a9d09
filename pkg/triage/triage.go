// Package triage is the engine of one run: incident → workspace → bundle →
// agent → report, with incident.json kept current at every step. The CLI
// and watch mode both drive it.
package triage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/gateway"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
	"github.com/kubectl-triage/kubectl-triage/pkg/prompt"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/registry"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
	"github.com/kubectl-triage/kubectl-triage/plugins"
)

// Options configure a run.
type Options struct {
	WorkspaceRoot string
	Agent         agent.Agent
	Timeout       time.Duration
	Cluster       bundle.ClusterInfo
	// AgentUpstream is the identity an exec agent's read-only gateway
	// forwards with (the user's, or a dedicated read-only one); nil means
	// the agent gets no cluster access beyond the context files.
	AgentUpstream *rest.Config
	Bundle        bundle.Options
	// Progress reports steps to the user; nil means silent.
	Progress func(format string, a ...any)
	Logger   *slog.Logger
	Now      func() time.Time
}

// Result is how a run ended.
type Result struct {
	Incident  *incident.Incident
	Workspace *workspace.Workspace
	Report    string // the markdown report, when valid
	// RecordErr is set when the outcome could not be saved in incident.json
	// (disk full, the file replaced): the record on disk is stale, the
	// Incident here is what happened.
	RecordErr error
}

// Run triages one fault whose resource is obj (already fetched through the
// read-only client cs). It returns an error only when no incident could be
// created; every later failure is recorded in the incident and its Result.
func Run(ctx context.Context, cs kubernetes.Interface, ev *fault.Event, obj *unstructured.Unstructured, opts Options) (*Result, error) {
	if opts.Progress == nil {
		opts.Progress = func(string, ...any) {}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Bundle.Concurrency == 0 {
		opts.Bundle = bundle.DefaultOptions()
	}
	id := uuid.NewString()
	inc := incident.New(id, ev, opts.Cluster.Context, opts.Agent.Name(), opts.Now())
	inc.Agent.Command = opts.Agent.Command()
	inc.Agent.Model = opts.Agent.Model()
	self := owner.Self()
	inc.Owner = &self
	// What is written comes from the redacted copy; ev stays as received.
	redacted, _ := redact.Event(ev)
	cluster := inc.Cluster
	if cluster == "" { // a single-cluster MCP server names none: it is the context's
		cluster = inc.Context
	}
	log := opts.Logger.With("incident_id", id, "cluster", cluster)

	ws, err := workspace.Create(opts.WorkspaceRoot, id, func(tmp *workspace.Workspace, final string) error {
		inc.Workspace = final
		if err := populate(tmp, inc, redacted, gatewayFor(opts) != nil); err != nil {
			return err
		}
		if p, ok := opts.Agent.(agent.Preparer); ok {
			return p.Prepare(tmp)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("create incident workspace: %w", err)
	}
	log = log.With("workspace", ws.Dir)
	log.Info("incident created", "event", ev.EventID, "resource", inc.Resource.Kind+"/"+inc.Resource.Name)
	opts.Progress("Incident %s (workspace %s)", id, ws.Dir)

	r := &runner{ws: ws, inc: inc, log: log, opts: opts, event: redacted, root: opts.WorkspaceRoot}
	ctx, stop := r.watchCancel(ctx)
	defer stop()
	res, err := r.run(ctx, cs, obj)
	if res != nil {
		res.RecordErr = r.saveErr
	}
	return res, err
}

// populate writes what must exist from the first moment: the incident
// record, the verbatim event, the prompt and the read-only instructions.
func populate(ws *workspace.Workspace, inc *incident.Incident, ev *fault.Event, clusterAccess bool) error {
	if err := incident.Save(ws.MustPath(workspace.IncidentFile), inc); err != nil {
		return err
	}
	files := map[string][]byte{
		workspace.AgentKubeconfig:  []byte(noClusterKubeconfig),
		workspace.EventFile:        ev.Raw,
		workspace.PromptFile:       []byte(term.Clean(prompt.Build(inc, prompt.Options{ClusterAccess: clusterAccess}))),
		workspace.InstructionsFile: []byte(prompt.SystemInstructions),
	}
	for rel, data := range files {
		if err := atomicfile.Write(ws.MustPath(rel), data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
	}
	// Every workspace gets its own copy of the skill, whatever the agent.
	return ws.InstallSkills(plugins.Skills, "skills")
}

// noClusterKubeconfig is context/kubeconfig when no read-only cluster access
// is configured for the agent: a valid, empty config, so kubectl fails
// clearly instead of falling back to anything of the user's.
const noClusterKubeconfig = `# kubectl-triage: no read-only cluster access is configured for this run;
# the evidence is in context/. This file holds no credential.
apiVersion: v1
kind: Config
clusters: []
contexts: []
users: []
current-context: ""
`

type runner struct {
	ws      *workspace.Workspace
	inc     *incident.Incident
	log     *slog.Logger
	opts    Options
	gateway *gateway.Gateway
	event   *fault.Event // redacted
	root    string
	saveErr error // the last failed save of incident.json, if the final one failed too

	cancelMu  sync.Mutex
	cancelWho string // who requested cancellation (cancel.go)
}

// addEventSamples adds the log excerpts a fault event carried (the older
// nested shape) to the bundle's logs, redacted: for a resource that is gone
// they may be the only logs left.
func addEventSamples(b *bundle.Bundle, ev *fault.Event) {
	for _, l := range ev.Logs {
		if l.Sample == "" {
			continue
		}
		text, _ := redact.Text(l.Sample)
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: ev.Namespace(), Pod: ev.ResourceName(), Container: l.Container,
			Previous: l.Previous, Text: text + "\n", FromEvent: true})
	}
}

// gatewayFor returns the upstream identity when this run's agent talks to
// the cluster through a gateway: exec agents only; the builtin agent reads
// through the plugin's own read-only client.
func gatewayFor(opts Options) *rest.Config {
	if _, ok := opts.Agent.(agent.ClusterUser); ok && opts.AgentUpstream != nil {
		return opts.AgentUpstream
	}
	return nil
}

// startGateway serves the agent's read-only endpoint and points
// context/kubeconfig at it.
func (r *runner) startGateway(upstream *rest.Config) (*gateway.Gateway, error) {
	gw, err := gateway.Start(upstream, r.ws.MustPath(workspace.AuditFile))
	if err != nil {
		return nil, err
	}
	kc, err := gw.Kubeconfig(r.inc.Namespace)
	if err == nil {
		err = atomicfile.Write(r.ws.MustPath(workspace.AgentKubeconfig), kc, 0o600)
	}
	if err != nil {
		gw.Stop()
		return nil, err
	}
	r.log.Info("gateway started", "url", gw.URL)
	r.opts.Progress("Read-only gateway for the agent at %s (audit: %s)", gw.URL, workspace.AuditFile)
	return gw, nil
}

// save writes incident.json. A failure is logged and kept: a later save
// that succeeds clears it, and one left at the end is the run's RecordErr.
func (r *runner) save() {
	r.saveErr = incident.Save(r.ws.MustPath(workspace.IncidentFile), r.inc)
	if r.saveErr != nil {
		r.saveErr = fmt.Errorf("record the outcome in %s: %w", r.ws.MustPath(workspace.IncidentFile), r.saveErr)
		r.log.Error("save incident", "error", r.saveErr)
	}
}

func (r *runner) setState(s incident.AgentState) {
	r.inc.Agent.State = s
	attrs := []any{"state", string(s), "agent", r.inc.Agent.Name, "at", r.opts.Now().UTC().Format(time.RFC3339Nano)}
	if r.inc.Agent.PID != 0 {
		attrs = append(attrs, "pid", r.inc.Agent.PID)
	}
	r.log.Debug("agent state", attrs...)
	r.save()
}

func (r *runner) finish(status incident.Status, reason string) {
	now := r.opts.Now().UTC()
	r.inc.Status = status
	r.inc.FailureReason = reason
	r.inc.CompletedAt = &now
	if reason == incident.ReasonCancelled {
		r.inc.CancelledBy = r.cancelRequester()
	}
	r.log.Info("incident finished", "status", string(status), "reason", reason)
	r.save()
}

func (r *runner) run(ctx context.Context, cs kubernetes.Interface, obj *unstructured.Unstructured) (*Result, error) {
	res := &Result{Incident: r.inc, Workspace: r.ws}

	start := time.Now()
	// The collector fetches what the investigator's rules for this kind
	// need (their declared Needs), no more.
	collect := r.opts.Bundle
	if collect.Needs == nil {
		collect.Needs = registry.Needs(obj.GetKind())
	}
	b, err := bundle.Collect(ctx, cs, obj, r.opts.Cluster, collect)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // collection may end early without an error of its own
	}
	if err == nil {
		addEventSamples(b, r.event)
		err = b.Write(r.ws.MustPath(workspace.ContextDir))
	}
	if err != nil {
		r.setState(stateFor(ctx, err))
		r.finish(incident.Failed, reasonFor(ctx, "collect evidence", err))
		return res, nil
	}
	r.opts.Progress("Collected %s, %s, %s (%s, %s)",
		count(len(b.Cluster.Involved), "object"), count(len(b.Events), "event"), count(len(b.Logs), "log stream"),
		count(b.Requests, "request"), time.Since(start).Round(time.Millisecond))
	for _, p := range b.Problems {
		r.opts.Progress("warning: could not read %s: %s", p.What, p.Error)
	}

	actx := ctx
	if r.opts.Timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, r.opts.Timeout)
		defer cancel()
	}
	r.setState(incident.AgentStarting)
	r.opts.Progress("Investigating with the %s agent…", r.inc.Agent.Name)
	run := &agent.Run{
		Workspace: r.ws, Incident: *r.inc, Bundle: b, Progress: r.opts.Progress,
		Started: func(pid int) {
			now := r.opts.Now().UTC()
			r.inc.StartedAt = &now
			r.inc.Agent.PID = pid
			r.setState(incident.AgentRunning)
		},
	}
	if s, ok := r.opts.Agent.(agent.Sandboxed); ok {
		r.inc.Sandbox = s.Sandbox()
		if reason, unsandboxed := strings.CutPrefix(r.inc.Sandbox, "none"); unsandboxed {
			r.opts.Progress("warning: the %s agent runs without a sandbox%s: it can read any file your user can read", r.inc.Agent.Name, reason)
		} else {
			r.opts.Progress("sandbox: %s", r.inc.Sandbox)
		}
	}
	if upstream := gatewayFor(r.opts); upstream != nil {
		gw, err := r.startGateway(upstream)
		if err != nil {
			r.setState(incident.AgentFailure)
			r.finish(incident.Failed, "start the read-only gateway: "+err.Error())
			return res, nil
		}
		defer gw.Stop()
		r.gateway = gw
		run.Gateway = strings.TrimPrefix(gw.URL, "https://")
	}
	out, err := r.opts.Agent.Run(actx, run)
	if r.gateway != nil {
		// The token dies with the run, before the report is read.
		r.gateway.Stop()
	}
	r.collectArtifacts()
	if out != nil {
		code := out.ExitCode
		r.inc.Agent.ExitCode = &code
		r.inc.Agent.Signal = out.Signal
	}
	switch {
	case err != nil || actx.Err() != nil:
		if err == nil {
			err = actx.Err()
		}
		r.setState(stateFor(actx, err))
		r.finish(incident.Failed, reasonFor(actx, "agent", err))
		return res, nil
	case out.ExitCode != 0:
		r.setState(incident.AgentFailure)
		r.finish(incident.Failed, fmt.Sprintf("agent exited with code %d", out.ExitCode))
		return res, nil
	}
	r.setState(incident.AgentSuccess)

	md, err := os.ReadFile(r.ws.MustPath(workspace.ReportFile))
	if err == nil {
		err = report.Validate(string(md))
	}
	if err != nil {
		r.finish(incident.AgentFailed, "missing or invalid investigation report: "+err.Error())
		return res, nil
	}
	// The report crosses the same passes as everything else: no credential
	// it quotes, and no escape sequence that `cat investigation.md` would
	// run later, stays in the file.
	clean, _ := redact.Text(term.Clean(string(md)))
	notes := append(r.footer(), out.Notes...)
	if len(notes) > 0 {
		clean += "\n---\n" + strings.Join(notes, "  \n") + "\n"
	}
	if clean != string(md) {
		md = []byte(clean)
		if err := atomicfile.Write(r.ws.MustPath(workspace.ReportFile), md, 0o600); err != nil {
			r.log.Error("rewrite the report", "error", err)
			r.finish(incident.Failed, "write the report: "+err.Error())
			return res, nil
		}
	}
	stmt, level := report.RootCauseLine(string(md))
	r.inc.Report = &incident.ReportRef{Path: r.ws.MustPath(workspace.ReportFile), RootCause: stmt, ConfidenceLevel: string(level)}
	if rep := readJSONReport(r.ws); rep != nil {
		r.inc.Report.RootCause, _ = redact.Text(term.Clean(rep.RootCause.Statement))
		r.inc.Report.Confidence = rep.Confidence
		r.inc.Report.ConfidenceLevel = string(rep.ConfidenceLevel)
	}
	r.finish(incident.Resolved, "")
	res.Report = string(md)
	return res, nil
}

// footer lists what the reader of an external agent's report must know
// about how it was produced.
func (r *runner) footer() []string {
	var notes []string
	if r.gateway != nil {
		total, denied := r.gateway.Counts()
		notes = append(notes, fmt.Sprintf("kubectl-triage: the agent made %d API requests through the read-only gateway; %d were denied (see %s).", total, denied, workspace.AuditFile))
	}
	if _, weaker, ok := strings.Cut(r.inc.Sandbox, " (not contained: "); ok {
		notes = append(notes, fmt.Sprintf("kubectl-triage: the %s agent's sandbox did not contain %s", r.inc.Agent.Name, strings.TrimSuffix(weaker, ")")))
	}
	if strings.HasPrefix(r.inc.Sandbox, "none") {
		notes = append(notes, fmt.Sprintf("kubectl-triage: the %s agent ran without a sandbox (%s).", r.inc.Agent.Name, strings.TrimPrefix(strings.TrimPrefix(r.inc.Sandbox, "none"), ": ")))
	}
	return notes
}

// collectArtifacts catalogues output/artifacts into output/artifacts.json.
func (r *runner) collectArtifacts() {
	cat, err := r.ws.CollectArtifacts()
	if err != nil {
		r.log.Error("collect artifacts", "error", err)
		return
	}
	if len(cat.Artifacts) == 0 && len(cat.Rejected) == 0 {
		return
	}
	for _, rej := range cat.Rejected {
		r.opts.Progress("warning: artifact %s rejected: %s", rej.Path, rej.Reason)
	}
	data, _ := json.MarshalIndent(cat, "", "  ")
	if err := atomicfile.Write(r.ws.MustPath(workspace.ArtifactsCatalog), append(data, '\n'), 0o600); err != nil {
		r.log.Error("write artifact catalog", "error", err)
	}
}

func stateFor(ctx context.Context, err error) incident.AgentState {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return incident.AgentTimeout
	case errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled):
		return incident.AgentCancelled
	}
	return incident.AgentFailure
}

func reasonFor(ctx context.Context, step string, err error) string {
	switch stateFor(ctx, err) {
	case incident.AgentTimeout:
		return incident.ReasonTimeout
	case incident.AgentCancelled:
		return incident.ReasonCancelled
	}
	return fmt.Sprintf("%s: %v", step, err)
}

// readJSONReport reads output/investigation.json when the agent wrote one.
func readJSONReport(ws *workspace.Workspace) *report.Report {
	data, err := os.ReadFile(ws.MustPath(workspace.ReportJSONFile))
	if err != nil {
		return nil
	}
	var rep report.Report
	if json.Unmarshal(data, &rep) != nil || rep.RootCause.Statement == "" {
		return nil
	}
	return &rep
}

// count is "1 event", "2 events".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
