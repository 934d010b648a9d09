package mcpserve

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// ReportURITemplate is the resource template of incident reports.
const ReportURITemplate = "triage://incidents/{id}/investigation.md"

// PromptInvestigate is the prompt that guides an assistant through a triage.
const PromptInvestigate = "investigate-workload"

// listedReports bounds the reports listed as resources: the newest ones;
// the template reads any.
const listedReports = 50

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "incident-report",
		Title:       "Incident report",
		Description: "The investigation report of a triage incident (markdown); the IDs come from list_incidents or a triage result.",
		URITemplate: ReportURITemplate,
		MIMEType:    "text/markdown",
	}, s.readReport)
	entries, _, err := s.store.List()
	if err != nil {
		s.log.Warn("cannot list the incidents' reports", "error", err)
		return
	}
	var resolved []*incident.Incident // newest first, as listed
	for _, e := range entries {
		if e.Incident.Status == incident.Resolved && len(resolved) < listedReports {
			resolved = append(resolved, e.Incident)
		}
	}
	for i := len(resolved) - 1; i >= 0; i-- {
		s.listReport(resolved[i])
	}
}

// listReport lists a resolved incident's report as a resource (clients
// offer them for mentions), dropping the oldest beyond listedReports.
func (s *Server) listReport(inc *incident.Incident) {
	s.listedMu.Lock()
	defer s.listedMu.Unlock()
	uri := ReportURI(inc.IncidentID)
	title := inc.Resource.Kind + "/" + inc.Resource.Name
	if inc.Report != nil && inc.Report.RootCause != "" {
		title += ": " + inc.Report.RootCause
	}
	s.mcp.AddResource(&mcp.Resource{
		URI: uri, Name: "report-" + inc.IncidentID, Title: oneLine(redact.Clean(title)), MIMEType: "text/markdown",
		Description: fmt.Sprintf("Triage report of %s/%s in %s, %s", inc.Resource.Kind, inc.Resource.Name, inc.Resource.Namespace, inc.CreatedAt.UTC().Format("2006-01-02 15:04 MST")),
	}, s.readReport)
	s.listed = append(s.listed, uri)
	if len(s.listed) > listedReports {
		s.mcp.RemoveResources(s.listed[0])
		s.listed = s.listed[1:]
	}
}

// readReport serves triage://incidents/{id}/investigation.md.
func (s *Server) readReport(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "triage://incidents/")
	if ok {
		id, ok = strings.CutSuffix(id, "/investigation.md")
	}
	// A full ID only: a URI names one resource for good.
	if !ok || workspace.ValidateID(id) != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	e, err := s.store.Find(id)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if e.Incident.Status != incident.Resolved {
		return nil, fmt.Errorf("incident %s has no report: it is %s (%s)", id, e.Incident.Status, orElse(e.Incident.FailureReason, "no reason recorded"))
	}
	md, err := s.store.ReadFile(e, workspace.ReportFile)
	if err := refusal(e, workspace.ReportFile, err); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text, _ := s.cap(redact.Clean(string(md)))
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}

func (s *Server) addPrompts() {
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        PromptInvestigate,
		Title:       "Investigate a workload",
		Description: "Find out why a Kubernetes workload is failing: triage it read-only first, then explain the cause with its evidence and propose fixes for a human.",
		Arguments: []*mcp.PromptArgument{
			{Name: "target", Description: "the failing resource: TYPE/NAME or a pod name", Required: true},
			{Name: "namespace", Description: "its namespace (default: the kubeconfig context's)"},
		},
	}, s.investigatePrompt)
}

func (s *Server) investigatePrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	target := strings.TrimSpace(req.Params.Arguments["target"])
	if target == "" {
		return nil, fmt.Errorf("the prompt needs a target: TYPE/NAME (e.g. deploy/web) or a pod name")
	}
	ns := strings.TrimSpace(req.Params.Arguments["namespace"])
	args := fmt.Sprintf("target %q", target)
	where := ""
	if ns != "" {
		args += fmt.Sprintf(", namespace %q", ns)
		where = " in namespace " + ns
	}
	text := fmt.Sprintf(`Investigate why %s%s is failing.

1. Call the "triage" tool first, with %s. Do not run kubectl or guess before it returns.
2. Report the root cause it found, its confidence level, and the culprit, quoting the evidence IDs (E1, E2, …) and the kubectl command that shows each one.
3. If the confidence is below "confident", or the report says the data was limited, read the evidence it cites with "get_evidence" (context/logs.txt, context/events.json, context/resources/…) and say what a human should check next.
4. Propose the fixes from the report for a human to apply, with their risks. Do not apply them: the triage tools are read-only, and changing the cluster is the user's decision.
If you do not know which resource is failing, call "triage_namespace" first.`, target, where, args)
	return &mcp.GetPromptResult{
		Description: "Investigate " + target + where,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}
