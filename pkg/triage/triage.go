package triage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/gateway"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/prompt"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
	"github.com/kubectl-triage/kubectl-triage/plugins"
)

// populate writes what must exist from the first moment: the incident
// record, the verbatim event, the prompt and the read-only instructions.
func populate(ws *workspace.Workspace, inc *incident.Incident, ev *fault.Event, clusterAccess bool) error {
	record, err := incident.Encode(inc)
	if err != nil {
		return err
	}
	// Written at once: their fsyncs share the journal's commits.
	files := []atomicfile.File{
		{Path: ws.MustPath(workspace.IncidentFile), Data: record, Perm: 0o600},
		{Path: ws.MustPath(workspace.AgentKubeconfig), Data: []byte(noClusterKubeconfig), Perm: 0o600},
		{Path: ws.MustPath(workspace.EventFile), Data: ev.Raw, Perm: 0o600},
		{Path: ws.MustPath(workspace.PromptFile), Data: []byte(term.Clean(prompt.Build(inc, prompt.Options{ClusterAccess: clusterAccess}))), Perm: 0o600},
		{Path: ws.MustPath(workspace.InstructionsFile), Data: []byte(prompt.SystemInstructions), Perm: 0o600},
	}
	if err := atomicfile.WriteFiles(files); err != nil {
		return fmt.Errorf("write the workspace: %w", err)
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

// runner is one run's state: the incident it keeps current and what the
// steps share.
type runner struct {
	ws       *workspace.Workspace
	inc      *incident.Incident
	log      *slog.Logger
	cfg      Config
	caps     agent.Capabilities
	upstream *rest.Config // the gateway's upstream identity; nil: no gateway
	// collecting is the evidence, being collected since the run began.
	collecting *collection
	progress   progress.Func
	gateway    *gateway.Gateway
	event      *fault.Event // redacted
	info       bundle.ClusterInfo
	saveErr    error // the last failed save of incident.json, if the final one failed too

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
	r.progress(progress.Stepf("Read-only gateway for the agent at %s (audit: %s)", gw.URL, workspace.AuditFile))
	return gw, nil
}

// save writes incident.json. A failure is logged and kept: a later save
// that succeeds clears it, and one left at the end is the run's RecordErr.
// An agent's intermediate states are saved without the directory's fsync
// (incident.SaveStep): the outcome finish records supersedes them.
func (r *runner) save() { r.saveWith(incident.Save) }

func (r *runner) saveStep() { r.saveWith(incident.SaveStep) }

func (r *runner) saveWith(save func(string, *incident.Incident) error) {
	r.saveErr = save(r.ws.MustPath(workspace.IncidentFile), r.inc)
	if r.saveErr != nil {
		r.saveErr = fmt.Errorf("record the outcome in %s: %w", r.ws.MustPath(workspace.IncidentFile), r.saveErr)
		r.log.Error("save incident", "error", r.saveErr)
	}
}

func (r *runner) setState(s incident.AgentState) {
	r.inc.Agent.State = s
	attrs := []any{"state", string(s), "agent", r.inc.Agent.Name, "at", r.cfg.Now().UTC().Format(time.RFC3339Nano)}
	if r.inc.Agent.PID != 0 {
		attrs = append(attrs, "pid", r.inc.Agent.PID)
	}
	r.log.Debug("agent state", attrs...)
	r.saveStep()
}

func (r *runner) finish(status incident.Status, reason string) {
	now := r.cfg.Now().UTC()
	r.inc.Status = status
	r.inc.FailureReason = reason
	r.inc.CompletedAt = &now
	if reason == incident.ReasonCancelled {
		r.inc.CancelledBy = r.cancelRequester()
	}
	r.log.Info("incident finished", "status", string(status), "reason", reason)
	r.save()
}

// run goes through the steps; every outcome ends in finish, which records
// it.
func (r *runner) run(ctx context.Context, cs kubernetes.Interface) *Result {
	res := &Result{Incident: r.inc, Workspace: r.ws}

	b, err := r.collecting.wait(ctx)
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
		return res
	}
	r.progress(progress.Stepf("Collected %s, %s, %s (%s, %s)",
		count(len(b.Cluster.Involved), "object"), count(len(b.Events), "event"), count(len(b.Logs), "log stream"),
		count(b.Requests, "request"), r.collecting.took.Round(time.Millisecond)))
	for _, p := range b.Problems {
		r.progress(progress.Warnf("could not read %s: %s", p.What, p.Error))
	}
	opinion, err := r.secondOpinionFirst(b)
	if err != nil {
		r.setState(incident.AgentFailure)
		r.finish(incident.Failed, "builtin findings: "+err.Error())
		return res
	}

	actx := ctx
	if r.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, r.cfg.Timeout)
		defer cancel()
	}
	r.setState(incident.AgentStarting)
	r.progress(progress.Stepf("Investigating with the %s agent…", r.inc.Agent.Name))
	run := &agent.Run{
		Workspace: r.ws, Incident: *r.inc, Bundle: b, Progress: r.progress,
		Started: func(pid int) {
			now := r.cfg.Now().UTC()
			r.inc.StartedAt = &now
			r.inc.Agent.PID = pid
			r.setState(incident.AgentRunning)
		},
	}
	if r.caps.Sandbox != "" {
		r.inc.Sandbox = r.caps.Sandbox
		if reason, unsandboxed := strings.CutPrefix(r.inc.Sandbox, "none"); unsandboxed {
			r.progress(progress.Warnf("the %s agent runs without a sandbox%s: it can read any file your user can read", r.inc.Agent.Name, reason))
		} else {
			r.progress(progress.Stepf("sandbox: %s", r.inc.Sandbox))
		}
	}
	if r.upstream != nil {
		gw, err := r.startGateway(r.upstream)
		if err != nil {
			r.setState(incident.AgentFailure)
			r.finish(incident.Failed, "start the read-only gateway: "+err.Error())
			return res
		}
		defer gw.Stop()
		r.gateway = gw
		run.Gateway = strings.TrimPrefix(gw.URL, "https://")
	}
	out, err := r.cfg.Agent.Run(actx, run)
	if r.gateway != nil {
		// The token dies with the run, before the report is read.
		r.gateway.Stop()
	}
	r.collectArtifacts()
	r.sealOutput()
	if out != nil {
		code := out.ExitCode
		r.inc.Agent.ExitCode = &code
		r.inc.Agent.Signal = out.Signal
		r.inc.Effort = out.Effort
	}
	switch {
	case err != nil || actx.Err() != nil:
		if err == nil {
			err = actx.Err()
		}
		r.setState(stateFor(actx, err))
		r.finish(incident.Failed, reasonFor(actx, "agent", err))
		return res
	case out.ExitCode != 0:
		r.setState(incident.AgentFailure)
		r.finish(incident.Failed, fmt.Sprintf("agent exited with code %d", out.ExitCode))
		return res
	}
	r.setState(incident.AgentSuccess)

	rep, err := r.reportOf(out)
	if err != nil {
		r.finish(incident.AgentFailed, "missing or invalid investigation report: "+err.Error())
		return res
	}
	rep.Notes = append(rep.Notes, append(r.footer(), out.Notes...)...)
	if out.Effort != nil {
		rep.Notes = append(rep.Notes, out.Effort.Footer())
	}
	r.checkAgentReport(ctx, cs, opinion, rep)
	md, err := r.writeReport(rep)
	if err != nil {
		r.log.Error("write the report", "error", err)
		r.finish(incident.Failed, "write the report: "+err.Error())
		return res
	}
	r.inc.Report = reportRef(r.ws.MustPath(workspace.ReportFile), rep)
	r.finish(incident.Resolved, "")
	res.Report, res.Markdown = rep, md
	return res
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
		r.progress(progress.Warnf("artifact %s rejected: %s", rej.Path, rej.Reason))
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

// count is "1 event", "2 events".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
