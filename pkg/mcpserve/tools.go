package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Tool names.
const (
	ToolTriage          = "triage"
	ToolListIncidents   = "list_incidents"
	ToolShowIncident    = "show_incident"
	ToolGetEvidence     = "get_evidence"
	ToolTriageNamespace = "triage_namespace"
)

// readOnly is every tool's annotation: nothing here changes the cluster or
// anything else (a triage only adds its own incident workspace).
func readOnly(title string, idempotent bool) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: &no, IdempotentHint: idempotent, OpenWorldHint: &no}
}

// TriageInput is the triage tool's input.
type TriageInput struct {
	Target    string `json:"target" jsonschema:"the failing resource: TYPE/NAME (pod/web-0, deploy/web, job/backup) or a bare pod NAME"`
	Namespace string `json:"namespace,omitempty" jsonschema:"its namespace (default: the kubeconfig context's namespace)"`
	Context   string `json:"context,omitempty" jsonschema:"kubeconfig context (default: the current context)"`
}

// Evidence is one fact of a report, with the command that shows it.
type Evidence struct {
	ID      string `json:"id"`
	Fact    string `json:"fact"`
	Source  string `json:"source"`
	Command string `json:"command,omitempty" jsonschema:"the kubectl command that shows this fact"`
}

// Fix is a proposed action for a human; the server never runs it.
type Fix struct {
	Kind        string   `json:"kind" jsonschema:"immediate, long-term or check"`
	Description string   `json:"description"`
	Commands    []string `json:"commands,omitempty"`
	Risk        string   `json:"risk,omitempty"`
}

// Resource names a Kubernetes object.
type Resource struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// TriageOutput is the structured result of a triage, beside its report.
type TriageOutput struct {
	IncidentID      string     `json:"incidentId"`
	Status          string     `json:"status" jsonschema:"resolved, failed, agent_failed or investigating"`
	FailureReason   string     `json:"failureReason,omitempty" jsonschema:"why there is no report (timeout, cancelled, …)"`
	Resource        Resource   `json:"resource"`
	Cluster         string     `json:"cluster,omitempty"`
	Context         string     `json:"context,omitempty"`
	Agent           string     `json:"agent"`
	RootCause       string     `json:"rootCause,omitempty"`
	Confidence      float64    `json:"confidence,omitempty" jsonschema:"0 to 1"`
	ConfidenceLevel string     `json:"confidenceLevel,omitempty" jsonschema:"speculation, probable, confident or verified"`
	Culprit         string     `json:"culprit,omitempty" jsonschema:"the object, field, key, image or line to blame"`
	Category        string     `json:"category,omitempty"`
	Evidence        []Evidence `json:"evidence,omitempty"`
	ProposedFixes   []Fix      `json:"proposedFixes,omitempty" jsonschema:"actions for a human to take; never executed"`
	Workspace       string     `json:"workspace"`
	ReportURI       string     `json:"reportUri,omitempty" jsonschema:"the report as an MCP resource"`
	// Report is the markdown report itself (as in the text content): some
	// clients hand the model only the structured content.
	Report    string `json:"report,omitempty" jsonschema:"the report (markdown), when the incident resolved"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"the report text or this result was cut at the server's output cap (--max-output)"`
}

// ReportURI is the resource URI of an incident's report.
func ReportURI(id string) string { return "triage://incidents/" + id + "/investigation.md" }

// inputSchema is T's schema with the constraints struct tags cannot say:
// each edit gets the property's schema.
func inputSchema[T any](edits map[string]func(*jsonschema.Schema)) *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(T), err)) // a programming error
	}
	for name, edit := range edits {
		edit(sch.Properties[name])
	}
	return sch
}

func nonEmpty(p *jsonschema.Schema) { one := 1; p.MinLength = &one }

func between(lo, hi float64) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) {
		p.Minimum = &lo
		if hi > 0 {
			p.Maximum = &hi
		}
	}
}

func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        ToolTriage,
		InputSchema: inputSchema[TriageInput](map[string]func(*jsonschema.Schema){"target": nonEmpty}),
		Description: "Investigate why a Kubernetes resource is failing, read-only, and return the report: root cause with a confidence, the culprit, the evidence (each with the kubectl command that shows it) and proposed fixes (never run). Makes an incident that list_incidents, show_incident and get_evidence can read later.",
		Annotations: readOnly("Triage a failing resource", false),
	}, s.triage)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: ToolListIncidents,
		InputSchema: inputSchema[ListInput](map[string]func(*jsonschema.Schema){
			"status": func(p *jsonschema.Schema) {
				for _, st := range statuses {
					p.Enum = append(p.Enum, string(st))
				}
			},
			"limit": between(0, 200),
		}),
		Description: "List past triage incidents, newest first, with status and root cause.",
		Annotations: readOnly("List incidents", true),
	}, s.listIncidents)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        ToolShowIncident,
		InputSchema: inputSchema[ShowInput](map[string]func(*jsonschema.Schema){"id": nonEmpty}),
		Description: "Show one incident: its report (markdown) and its record (status, resource, root cause, workspace).",
		Annotations: readOnly("Show an incident", true),
	}, s.showIncident)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        ToolGetEvidence,
		InputSchema: inputSchema[EvidenceInput](map[string]func(*jsonschema.Schema){"id": nonEmpty, "offset": between(0, 0)}),
		Description: "Read one evidence file of an incident (context/events.json, context/logs.txt, context/resources/…), redacted and size-capped. Omit file to list the files.",
		Annotations: readOnly("Read an incident's evidence", true),
	}, s.getEvidence)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        ToolTriageNamespace,
		InputSchema: inputSchema[NamespaceInput](map[string]func(*jsonschema.Schema){"limit": between(0, maxNamespaceLimit)}),
		Description: "What is failing in a namespace: the faulty objects, most severe first, each with a one-line cause from the builtin investigator. Makes no incidents; call triage on one for the full report.",
		Annotations: readOnly("Triage a namespace", false),
	}, s.triageNamespace)
}

func (s *Server) triage(ctx context.Context, req *mcp.CallToolRequest, in TriageInput) (*mcp.CallToolResult, TriageOutput, error) {
	var out TriageOutput
	if strings.TrimSpace(in.Target) == "" {
		return nil, out, errors.New("target is required: TYPE/NAME (e.g. pod/web-0, deploy/web) or a pod NAME")
	}
	report := s.progressFor(ctx, req)
	release, err := s.acquire(ctx, report)
	if err != nil {
		return nil, out, err
	}
	defer release()
	log := s.log.With("client", clientName(req), "tool", ToolTriage, "target", in.Target, "namespace", in.Namespace, "context", in.Context)
	log.Info("triage started")
	res, err := s.opts.Engine.Triage(ctx, TriageRequest{Target: in.Target, Namespace: in.Namespace, Context: in.Context}, report)
	if err != nil {
		log.Warn("triage refused", "error", err)
		return nil, out, err
	}
	inc := res.Incident
	log.Info("triage finished", "incident_id", inc.IncidentID, "status", string(inc.Status), "failure_reason", inc.FailureReason)
	out = s.outputFor(inc, inc.Workspace)
	text := res.Markdown
	if inc.Status != incident.Resolved {
		text = fmt.Sprintf("Incident %s %s: %s\nWorkspace: %s\n", inc.IncidentID, inc.Status, orElse(inc.FailureReason, "no valid report"), inc.Workspace)
	}
	if res.RecordErr != nil {
		// incident.json does not hold this outcome: say so, as the CLI's
		// exit 4 does, rather than let list_incidents disagree silently.
		log.Error("incident outcome not recorded", "incident_id", inc.IncidentID, "error", res.RecordErr)
		text = fmt.Sprintf("Incident %s ended %s, but its record could not be saved: %v\nWorkspace: %s\n", inc.IncidentID, inc.Status, res.RecordErr, inc.Workspace)
		inc.Status = incident.Failed
		out.Status, out.FailureReason = string(incident.Failed), "record not saved: "+res.RecordErr.Error()
	}
	text, out.Truncated = s.cap(redact.Clean(text))
	if inc.Status == incident.Resolved {
		out.Report = text
		s.listReport(inc)
	}
	fitTriage(&out, s.opts.MaxOutput, func() int { return jsonLen(out) })
	result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if inc.Status != incident.Resolved {
		// The incident exists, and its record says why it has no report;
		// the assistant must not read it as a diagnosis.
		result.IsError = true
	}
	return result, out, nil
}

// outputFor is the structured result of an incident: its record, and the
// report's data when the agent wrote investigation.json.
func (s *Server) outputFor(inc *incident.Incident, dir string) TriageOutput {
	// The values are the incident's Summary, cleaned, as the CLI's
	// renderings show them.
	sum := incident.Summarize(inc).Clean()
	out := TriageOutput{
		IncidentID: inc.IncidentID, Status: string(inc.Status), FailureReason: sum.FailureReason,
		Resource: Resource{Kind: sum.Resource.Kind, Name: sum.Resource.Name, Namespace: sum.Resource.Namespace},
		Cluster:  sum.Cluster, Context: sum.Context, Agent: sum.Agent, Workspace: dir,
	}
	out.RootCause, out.Confidence, out.ConfidenceLevel = sum.RootCause, sum.Confidence, sum.ConfidenceLevel
	if inc.Status == incident.Resolved {
		out.ReportURI = ReportURI(inc.IncidentID)
	}
	e := &store.Entry{ID: inc.IncidentID, Incident: inc}
	data, err := s.store.ReadFile(e, workspace.ReportJSONFile)
	if err != nil {
		return out
	}
	// Redacted when the agent ended; a workspace from elsewhere may not be.
	var rep report.Report
	if json.Unmarshal(redact.CleanJSON(data), &rep) != nil {
		return out
	}
	out.Culprit, out.Category = rep.RootCause.Culprit, rep.RootCause.Category
	for _, ev := range rep.Evidence {
		out.Evidence = append(out.Evidence, Evidence{ID: ev.ID, Fact: ev.Fact, Source: ev.Source, Command: ev.Command})
	}
	for _, a := range rep.Actions {
		out.ProposedFixes = append(out.ProposedFixes, Fix{Kind: string(a.Kind), Description: a.Description, Commands: a.Commands, Risk: a.Risk})
	}
	return out
}

// cap cuts text at the output cap, on a line boundary when one is near,
// and says so at the end.
func (s *Server) cap(text string) (string, bool) {
	return capText(text, s.opts.MaxOutput)
}

func capText(text string, max int) (string, bool) {
	if len(text) <= max {
		return text, false
	}
	cut := text[:max]
	for len(cut) > 0 && !utf8Start(cut[len(cut)-1]) { // never split a character
		cut = cut[:len(cut)-1]
	}
	if len(cut) > 0 {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexByte(cut, '\n'); i > max/2 {
		cut = cut[:i+1]
	}
	return cut + fmt.Sprintf("\n[… truncated by kubectl-triage: %d of %d bytes shown]\n", len(cut), len(text)), true
}

// utf8Start: b begins a character (is not a continuation byte).
func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ---- list_incidents, show_incident -------------------------------------------

// ListInput filters list_incidents.
type ListInput struct {
	Status string `json:"status,omitempty" jsonschema:"only incidents with this status: resolved, failed, agent_failed or investigating"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many (default 20, at most 200)"`
}

// IncidentSummary is one line of list_incidents.
type IncidentSummary struct {
	IncidentID      string    `json:"incidentId"`
	Status          string    `json:"status"`
	Resource        Resource  `json:"resource"`
	Cluster         string    `json:"cluster,omitempty"`
	FaultType       string    `json:"faultType,omitempty"`
	Agent           string    `json:"agent"`
	RootCause       string    `json:"rootCause,omitempty"`
	ConfidenceLevel string    `json:"confidenceLevel,omitempty"`
	FailureReason   string    `json:"failureReason,omitempty"`
	CreatedAt       time.Time `json:"createdAt"`
}

// ListOutput is list_incidents' result.
type ListOutput struct {
	Incidents []IncidentSummary `json:"incidents"`
	Total     int               `json:"total" jsonschema:"incidents matching the filter, before the limit"`
	Truncated bool              `json:"truncated,omitempty" jsonschema:"the list was cut at the server's output cap (--max-output): total still counts them all"`
}

var statuses = []incident.Status{incident.Resolved, incident.Failed, incident.AgentFailed, incident.Investigating}

func (s *Server) listIncidents(_ context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	out := ListOutput{Incidents: []IncidentSummary{}}
	if in.Status != "" {
		ok := false
		for _, st := range statuses {
			ok = ok || string(st) == in.Status
		}
		if !ok {
			return nil, out, fmt.Errorf("unknown status %s: want resolved, failed, agent_failed or investigating", term.Quote(in.Status))
		}
	}
	limit := in.Limit
	switch {
	case limit < 0:
		return nil, out, fmt.Errorf("limit must not be negative, got %d", limit)
	case limit == 0:
		limit = 20
	case limit > 200:
		limit = 200
	}
	entries, _, err := s.store.List()
	if err != nil {
		return nil, out, err
	}
	var b strings.Builder
	for _, e := range entries {
		inc := e.Incident
		if in.Status != "" && string(inc.Status) != in.Status {
			continue
		}
		out.Total++
		if len(out.Incidents) >= limit {
			continue
		}
		s := incident.Summarize(inc).Clean() // the values the CLI's list shows
		sum := IncidentSummary{IncidentID: e.ID, Status: string(inc.Status), Cluster: s.Cluster,
			Resource:  Resource{Kind: inc.Resource.Kind, Name: inc.Resource.Name, Namespace: inc.Resource.Namespace},
			FaultType: inc.FaultType, Agent: inc.Agent.Name, FailureReason: s.FailureReason, CreatedAt: inc.CreatedAt,
			RootCause: s.RootCause, ConfidenceLevel: s.ConfidenceLevel}
		out.Incidents = append(out.Incidents, sum)
		fmt.Fprintf(&b, "%s  %s  %s  %s  %s\n", e.ID, inc.CreatedAt.UTC().Format(time.RFC3339), sum.Status, e.Resource(), orElse(sum.RootCause, sum.FailureReason))
	}
	if out.Total == 0 {
		b.WriteString("No incidents.\n")
	}
	text, _ := s.cap(redact.Clean(b.String()))
	fitList(&out, s.opts.MaxOutput)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// ShowInput names an incident.
type ShowInput struct {
	ID string `json:"id" jsonschema:"incident ID, or a unique prefix of one (at least 4 characters)"`
}

// ShowOutput is show_incident's result: the record and the report's data.
type ShowOutput struct {
	TriageOutput
	FaultType   string     `json:"faultType,omitempty"`
	Severity    string     `json:"severity,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	Sandbox     string     `json:"sandbox,omitempty"`
}

func (s *Server) find(id string) (*store.Entry, error) {
	e, err := s.store.Find(id)
	var nf *store.NotFoundError
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("%w; call list_incidents for the IDs", err)
	}
	return e, err
}

// refusal is the one-line error for a workspace file the reader refused
// (a link, a pipe, too large), naming it in the workspace; nil otherwise.
func refusal(e *store.Entry, rel string, err error) error {
	var refused *safefile.Error
	if errors.As(err, &refused) {
		return fmt.Errorf("incident %s: %s %s", e.ID, rel, refused.Reason())
	}
	return nil
}

func (s *Server) showIncident(_ context.Context, _ *mcp.CallToolRequest, in ShowInput) (*mcp.CallToolResult, ShowOutput, error) {
	var out ShowOutput
	e, err := s.find(in.ID)
	if err != nil {
		return nil, out, err
	}
	inc := e.Incident
	out = ShowOutput{TriageOutput: s.outputFor(inc, e.Dir), FaultType: inc.FaultType, Severity: inc.Severity,
		CreatedAt: inc.CreatedAt, CompletedAt: inc.CompletedAt, Sandbox: inc.Sandbox}
	var text string
	md, err := s.store.ReadFile(e, workspace.ReportFile)
	if err := refusal(e, workspace.ReportFile, err); err != nil {
		return nil, out, err
	}
	resolved := err == nil && inc.Status == incident.Resolved
	if resolved {
		text = string(md)
	} else {
		text = fmt.Sprintf("Incident %s (%s) is %s", e.ID, e.Resource(), inc.Status)
		if inc.FailureReason != "" {
			text += ": " + inc.FailureReason
		}
		text += "\nWorkspace: " + e.Dir + "\n"
	}
	text, out.Truncated = s.cap(redact.Clean(text))
	if resolved {
		out.Report = text
	}
	fitTriage(&out.TriageOutput, s.opts.MaxOutput, func() int { return jsonLen(out) })
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}
