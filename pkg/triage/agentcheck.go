package triage

// An external agent is a checked second opinion (DESIGN.md §6): the
// builtin investigator runs first on the same bundle and its findings go
// into the workspace; once the agent has reported, its claims are checked
// against what it read, its proposed commands pass the safe-fix policy as
// the builtin's do, and its root cause is set beside the builtin's. The
// engine calls in here at two points of a run (secondOpinionFirst before
// the agent starts, checkAgentReport once its markdown is parsed); the
// logic is in pkg/investigate, pkg/claims, pkg/safefix and
// pkg/secondopinion.

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/claims"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/prompt"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefix"
	"github.com/kubectl-triage/kubectl-triage/pkg/secondopinion"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// opinion is what a run keeps between the two points: the builtin's
// assessment of the bundle and its findings.
type opinion struct {
	b          *bundle.Bundle
	assessment investigate.Assessment
	findings   *secondopinion.Findings
	hinted     bool
}

// secondOpinionFirst runs the builtin investigator on the bundle before an
// external agent starts and writes its findings to
// context/builtin-findings.json; unless hints are off, PROMPT.md then asks
// the agent to confirm, refute or extend them. Nil for the builtin agent.
func (r *runner) secondOpinionFirst(b *bundle.Bundle) (*opinion, error) {
	if r.inc.Agent.Name == agent.BuiltinName {
		return nil, nil
	}
	a := investigate.Assess(b, investigate.Options{IncidentID: r.inc.IncidentID, Agent: agent.BuiltinName, Severity: r.inc.Severity, Now: r.cfg.Now()})
	op := &opinion{b: b, assessment: a, findings: secondopinion.FromAssessment(a), hinted: !r.cfg.NoBuiltinHints}
	if !op.hinted {
		// Blind, for comparison: nothing of the builtin's in the workspace.
		r.progress(progress.Stepf("Builtin investigator: %s (not shown to the agent: --no-builtin-hints)", a.Report.RootCause.Statement))
		return op, nil
	}
	if err := atomicfile.Write(r.ws.MustPath(workspace.BuiltinFindingsFile), op.findings.JSON(), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", workspace.BuiltinFindingsFile, err)
	}
	p := prompt.Build(r.inc, prompt.Options{ClusterAccess: r.upstream != nil, Builtin: op.findings})
	if err := atomicfile.Write(r.ws.MustPath(workspace.PromptFile), []byte(term.Clean(p)), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", workspace.PromptFile, err)
	}
	r.progress(progress.Stepf("Builtin investigator first: %s (%s); the agent is asked for a second opinion (%s)",
		a.Report.RootCause.Statement, a.Report.ConfidenceLevel, workspace.BuiltinFindingsFile))
	return op, nil
}

// checkAgentReport checks an external agent's parsed report: its claims
// against the reads, its commands against the safe-fix policy, its root
// cause against the builtin's. What it finds is marked in the report,
// footed, and recorded in the incident.
func (r *runner) checkAgentReport(ctx context.Context, cs kubernetes.Interface, op *opinion, rep *report.Report) {
	if op == nil || rep.Source == "" {
		return
	}
	res := claims.Check(rep, r.reads(op.b), r.inc.Namespace)
	r.inc.Claims = &incident.Claims{Verified: res.Verified, Unverified: res.Unverified, Capped: res.Capped}
	rep.Notes = append(rep.Notes, res.Footer())
	if res.Unverified > 0 {
		r.progress(progress.Warnf("%d of the agent's %d claims are not backed by anything it read (marked unverified in the report)", res.Unverified, res.Total()))
	}

	before := len(rep.Withheld)
	safefix.Apply(rep, r.policyState(ctx, cs, op.b, rep), op.assessment.History)
	if n := len(rep.Withheld) - before; n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("kubectl-triage: the safe-fix policy withheld %d of the agent's proposed actions (under \"Not proposed\", with the reason).", n))
		r.progress(progress.Warnf("the safe-fix policy withheld %d of the agent's proposed actions", n))
	}

	so := secondopinion.Compare(op.findings, rep, op.hinted)
	r.inc.SecondOpinion = &so
	rep.Notes = append(rep.Notes, secondopinion.Footer(so))
	if md := secondopinion.Addendum(so, op.findings, rep, r.inc.Agent.Name); md != "" {
		rep.Addenda = append(rep.Addenda, md)
	}
	r.progress(progress.Stepf("Second opinion: %s (%s)", so.Agreement, so.Basis))
}

// reads are what the agent read: its requests through the gateway that
// answered (a 404 is an answer), and the context files.
func (r *runner) reads(b *bundle.Bundle) []claims.Read {
	var out []claims.Read
	if r.gateway != nil {
		for _, g := range r.gateway.Reads() {
			if g.Code >= http.StatusBadRequest && g.Code != http.StatusNotFound {
				continue
			}
			out = append(out, claims.FromGateway(g.Method, g.Path, g.Query, g.Resource, g.Subresource, g.Namespace, g.Name, g.Body))
		}
	}
	return append(out, claims.FromBundle(b)...)
}

// policyState is the state the safe-fix policy checks the agent's commands
// against: the bundle, and what a destructive command names that the
// collector did not read (a pod the agent found on its own), fetched now
// through the read-only client. The bundle itself, which context/ holds,
// is left as collected.
func (r *runner) policyState(ctx context.Context, cs kubernetes.Interface, b *bundle.Bundle, rep *report.Report) *bundle.Bundle {
	missing := safefix.Unknown(rep, b)
	if len(missing) == 0 || cs == nil {
		return b
	}
	s := *b
	s.Pods, s.Nodes, s.Deployments = slices.Clone(b.Pods), slices.Clone(b.Nodes), slices.Clone(b.Deployments)
	s.StatefulSets, s.PVCs = slices.Clone(b.StatefulSets), slices.Clone(b.PVCs)
	get := metav1.GetOptions{}
	for _, ref := range missing {
		var err error
		switch ref.Kind {
		case safefix.KindPod:
			p, e := cs.CoreV1().Pods(ref.Namespace).Get(ctx, ref.Name, get)
			if err = e; e == nil {
				s.Pods = append(s.Pods, p)
			}
		case safefix.KindNode:
			n, e := cs.CoreV1().Nodes().Get(ctx, ref.Name, get)
			if err = e; e == nil {
				s.Nodes = append(s.Nodes, n)
			}
		case safefix.KindDeployment:
			d, e := cs.AppsV1().Deployments(ref.Namespace).Get(ctx, ref.Name, get)
			if err = e; e == nil {
				s.Deployments = append(s.Deployments, d)
			}
		case safefix.KindStatefulSet:
			st, e := cs.AppsV1().StatefulSets(ref.Namespace).Get(ctx, ref.Name, get)
			if err = e; e == nil {
				s.StatefulSets = append(s.StatefulSets, st)
			}
		case safefix.KindPVC:
			c, e := cs.CoreV1().PersistentVolumeClaims(ref.Namespace).Get(ctx, ref.Name, get)
			if err = e; e == nil {
				s.PVCs = append(s.PVCs, c)
			}
		}
		if err != nil && !apierrors.IsNotFound(err) {
			r.log.Warn("read an object the agent's command names", "kind", string(ref.Kind), "name", ref.Name, "error", err)
		}
	}
	return &s
}
