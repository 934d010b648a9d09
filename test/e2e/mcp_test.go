package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// mcpClientName is how the tests' MCP client introduces itself; the
// server's log must name it.
const mcpClientName = "e2e-mcp-client"

// serveProc is `kubectl triage mcp` running as an assistant runs it.
type serveProc struct {
	session  *mcp.ClientSession
	stderr   *lockedBuffer
	root     string
	url      string // HTTP mode only
	token    string
	progress *progressLog
	stop     func(t *testing.T) // the client goes away (stdio) or SIGTERM (HTTP); waits for the exit
}

// progressLog keeps the progress notifications a client received.
type progressLog struct {
	mu   sync.Mutex
	msgs []string
}

func (p *progressLog) add(m string) { p.mu.Lock(); p.msgs = append(p.msgs, m); p.mu.Unlock() }
func (p *progressLog) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.msgs)
}

// waitFor polls the messages for one containing sub.
func (p *progressLog) waitFor(t *testing.T, sub string, count int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		for _, m := range p.all() {
			if strings.Contains(m, sub) {
				n++
			}
		}
		if n >= count {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %d progress messages with %q; got %q", count, sub, p.all())
}

// startServe runs the plugin's MCP server over transport ("stdio" or "http")
// with the user's kubeconfig and a private workspace root, and connects a
// go-sdk client to it.
func startServe(t *testing.T, c *testcluster.Cluster, transport string, args ...string) *serveProc {
	t.Helper()
	s := &serveProc{stderr: &lockedBuffer{}, root: filepath.Join(t.TempDir(), "incidents"), progress: &progressLog{}}
	full := append([]string{"mcp", "--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache"),
		"--workspace-root", s.root}, args...)
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}
	client := mcp.NewClient(&mcp.Implementation{Name: mcpClientName, Version: "1.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.progress.add(req.Params.Message)
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var tr mcp.Transport
	switch transport {
	case "stdio":
		// The client's end of the pipes, as an assistant holds them:
		// closing stdin is the client going away.
		cmd := exec.Command(pluginBinary(t), full...)
		cmd.Env, cmd.Stderr = env, s.stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		s.stop = func(t *testing.T) {
			stdin.Close()
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Errorf("the stdio server did not exit when its client went away:\n%s", s.stderr)
			}
		}
		t.Cleanup(func() { s.stop(t) })
		tr = &mcp.IOTransport{Reader: stdout, Writer: stdin}
	case "http":
		s.token = "e2e-token-" + strings.Repeat("x", 24)
		tokenFile := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(tokenFile, []byte(s.token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		full = append(full, "--listen", "127.0.0.1:0", "--token-file", tokenFile)
		cmd := exec.Command(pluginBinary(t), full...)
		cmd.Env, cmd.Stderr = env, s.stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		s.stop = func(t *testing.T) {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Errorf("the HTTP server did not stop on SIGTERM:\n%s", s.stderr)
			}
		}
		t.Cleanup(func() { s.stop(t) })
		s.url = waitForURL(t, s.stderr, exited)
		tr = &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}}}
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	session, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect over %s: %v\n%s", transport, err, s.stderr)
	}
	s.session = session
	return s
}

var urlLine = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)

func waitForURL(t *testing.T, stderr *lockedBuffer, exited chan struct{}) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if m := urlLine.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case <-exited:
			t.Fatalf("the server exited:\n%s", stderr)
		case <-deadline:
			t.Fatalf("the server never said where it listens:\n%s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// call calls a tool with a progress token and returns its result.
func (s *serveProc) call(ctx context.Context, t *testing.T, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	p.SetProgressToken(fmt.Sprintf("%s-%d", tool, time.Now().UnixNano()))
	return s.session.CallTool(ctx, p)
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a result's structured content into v.
func structured(t *testing.T, r *mcp.CallToolResult, v any) {
	t.Helper()
	data, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
}

// TestMCPServer drives `kubectl triage mcp` with the go-sdk client over
// stdio and streamable HTTP on a crash-looping pod: the tools and their
// schemas, a triage that names the cause with structured output matching
// the report on disk, the incidents, evidence, report resource, prompt and
// namespace overview, all read-only and without the planted secret.
func TestMCPServer(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			mark := c.AuditMark()
			s := startServe(t, c, transport)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			schemas := checkTools(ctx, t, s)

			res, err := s.call(ctx, t, "triage", map[string]any{"target": "pod/api", "namespace": ns})
			if err != nil {
				t.Fatalf("triage: %v\n%s", err, s.stderr)
			}
			text := textOf(res)
			if res.IsError || !strings.HasPrefix(text, "# Triage: Pod/api") || !strings.Contains(text, "DATABASE_URL") {
				t.Fatalf("triage did not name the cause (error %v):\n%s\n%s", res.IsError, text, s.stderr)
			}
			validate(t, schemas["triage"], res.StructuredContent)
			var out struct {
				IncidentID, Status, RootCause, ConfidenceLevel, Culprit, Workspace, ReportURI, Report string
				Confidence                                                                            float64
				Evidence                                                                              []struct{ ID, Fact, Source, Command string }
				ProposedFixes                                                                         []struct {
					Kind, Description string
					Commands          []string
				}
			}
			structured(t, res, &out)
			dir := filepath.Join(s.root, out.IncidentID)
			inc := assertWorkspace(t, dir, incident.Resolved)
			rep := readReportJSON(t, dir)
			md, _ := os.ReadFile(filepath.Join(dir, "output", "investigation.md"))
			if text != string(md) || out.Report != text {
				t.Errorf("the tool's text and structured report are not the report on disk")
			}
			if out.Status != "resolved" || out.Workspace != dir || out.RootCause != inc.Report.RootCause || out.RootCause != rep.RootCause.Statement ||
				out.Confidence != rep.Confidence || out.ConfidenceLevel != string(rep.ConfidenceLevel) || out.Culprit != rep.RootCause.Culprit ||
				!strings.Contains(out.RootCause, "DATABASE_URL") {
				t.Errorf("structured output does not match the report: %+v\nincident %+v\nreport root cause %+v", out, inc.Report, rep.RootCause)
			}
			if parsed, err := report.Parse(text); err != nil || !strings.Contains(parsed.RootCause.Statement, "DATABASE_URL") {
				t.Errorf("the report's Root cause section does not name the cause: %+v %v", parsed, err)
			}
			if len(out.Evidence) != len(rep.Evidence) || len(out.Evidence) == 0 || len(out.ProposedFixes) != len(rep.Actions) || len(out.ProposedFixes) == 0 {
				t.Errorf("structured evidence/fixes %d/%d, report has %d/%d", len(out.Evidence), len(out.ProposedFixes), len(rep.Evidence), len(rep.Actions))
			}
			withCommand := 0
			for i, e := range out.Evidence {
				if e.ID != rep.Evidence[i].ID || e.Fact != rep.Evidence[i].Fact || e.Command != rep.Evidence[i].Command || !strings.Contains(text, e.ID) {
					t.Errorf("evidence %d: %+v, report %+v", i, e, rep.Evidence[i])
				}
				if strings.HasPrefix(e.Command, "kubectl ") {
					withCommand++
				}
			}
			if withCommand == 0 {
				t.Errorf("no evidence carries the kubectl command that shows it: %+v", out.Evidence)
			}
			// The client handles notifications on their own goroutines: the
			// last ones may be handled after the call returned.
			s.progress.waitFor(t, "Collected ", 1)

			checkIncidentTools(ctx, t, s, schemas, out.IncidentID, out.RootCause, text, ns)

			if !strings.Contains(s.stderr.String(), "client="+mcpClientName) || !strings.Contains(s.stderr.String(), "tool=triage") {
				t.Errorf("the server's log does not name the client and tool:\n%s", s.stderr)
			}
			assertReadOnly(t, c, mark)
		})
	}
}

// checkTools lists the tools: all five, read-only, each with valid input
// and output schemas. It returns the output schemas by tool.
func checkTools(ctx context.Context, t *testing.T, s *serveProc) map[string]*jsonschema.Resolved {
	t.Helper()
	list, err := s.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("tool %s is not annotated read-only and non-destructive: %+v", tool.Name, a)
		}
		if in := resolve(t, tool.Name+" input", tool.InputSchema); in == nil || in.Schema().Type != "object" {
			t.Errorf("tool %s: input schema is not an object", tool.Name)
		}
		out[tool.Name] = resolve(t, tool.Name+" output", tool.OutputSchema)
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"get_evidence", "list_incidents", "show_incident", "triage", "triage_namespace"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if in := resolve(t, "triage input", list.Tools[slices.Index(names, "triage")].InputSchema); in != nil {
		if !slices.Contains(in.Schema().Required, "target") {
			t.Errorf("triage's input schema does not require target: %v", in.Schema().Required)
		}
	}
	return out
}

// resolve parses and resolves a JSON Schema (draft 2020-12), failing the
// test when it is not valid.
func resolve(t *testing.T, what string, schema any) *jsonschema.Resolved {
	t.Helper()
	if schema == nil {
		t.Errorf("%s: no schema", what)
		return nil
	}
	data, _ := json.Marshal(schema)
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Errorf("%s schema is not a JSON Schema: %v", what, err)
		return nil
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Errorf("%s schema does not resolve: %v", what, err)
		return nil
	}
	return r
}

// validate checks structured content against a tool's output schema.
func validate(t *testing.T, schema *jsonschema.Resolved, v any) {
	t.Helper()
	if schema == nil {
		return
	}
	data, _ := json.Marshal(v)
	var inst any
	json.Unmarshal(data, &inst)
	if err := schema.Validate(inst); err != nil {
		t.Errorf("structured content does not match the output schema: %v\n%s", err, data)
	}
}

// plantedSecret is the value the crashloop scenario puts in an env var: no
// answer of the server may carry it.
const plantedSecret = "hunter2-planted-secret"

func checkIncidentTools(ctx context.Context, t *testing.T, s *serveProc, schemas map[string]*jsonschema.Resolved, id, rootCause, report, ns string) {
	t.Helper()
	call := func(tool string, args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := s.call(ctx, t, tool, args)
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		data, _ := json.Marshal(res)
		if strings.Contains(string(data), plantedSecret) {
			t.Errorf("%s %v returned the planted secret", tool, args)
		}
		if !res.IsError {
			validate(t, schemas[tool], res.StructuredContent)
		}
		return res, textOf(res)
	}

	res, text := call("list_incidents", map[string]any{"status": "resolved"})
	var list struct {
		Incidents []struct{ IncidentID, RootCause string }
		Total     int
	}
	structured(t, res, &list)
	if list.Total != 1 || len(list.Incidents) != 1 || list.Incidents[0].IncidentID != id || list.Incidents[0].RootCause != rootCause || !strings.Contains(text, id) {
		t.Errorf("list_incidents: %+v\n%s", list, text)
	}
	if res, _ := call("list_incidents", map[string]any{"status": "bogus"}); !res.IsError {
		t.Errorf("list_incidents accepted an unknown status")
	}

	res, text = call("show_incident", map[string]any{"id": id[:8]})
	var show struct{ IncidentID, RootCause, Status string }
	structured(t, res, &show)
	if show.IncidentID != id || show.RootCause != rootCause || text != report {
		t.Errorf("show_incident by prefix: %+v", show)
	}

	res, text = call("get_evidence", map[string]any{"id": id})
	var files struct{ Files []struct{ Path string } }
	structured(t, res, &files)
	var paths []string
	for _, f := range files.Files {
		paths = append(paths, f.Path)
	}
	if !slices.Contains(paths, "context/logs.txt") || !slices.Contains(paths, "context/events.json") || slices.Contains(paths, "context/kubeconfig") {
		t.Errorf("get_evidence lists %v", paths)
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "context/") {
			t.Errorf("get_evidence lists a file outside context/: %s", p)
		}
		if strings.HasPrefix(p, "context/resources/") {
			call("get_evidence", map[string]any{"id": id, "file": p}) // checked for the secret
		}
	}
	if _, text = call("get_evidence", map[string]any{"id": id, "file": "context/logs.txt"}); !strings.Contains(text, "DATABASE_URL is empty") {
		t.Errorf("get_evidence context/logs.txt:\n%s", text)
	}
	for _, bad := range []string{"context/kubeconfig", "../incident.json", "context/../incident.json", "/etc/passwd", "output/investigation.md", "context/../../" + id + "/incident.json"} {
		if res, text := call("get_evidence", map[string]any{"id": id, "file": bad}); !res.IsError {
			t.Errorf("get_evidence %q was served:\n%s", bad, text)
		}
	}
	if res, _ := call("get_evidence", map[string]any{"id": "../../etc", "file": "context/logs.txt"}); !res.IsError {
		t.Errorf("get_evidence accepted a path as the incident ID")
	}

	rr, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "triage://incidents/" + id + "/investigation.md"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != report || rr.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("report resource: %v %+v", err, rr)
	}
	if _, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "triage://incidents/../../etc/passwd/investigation.md"}); err == nil {
		t.Errorf("a resource URI with a path was served")
	}
	listed, err := s.session.ListResources(ctx, nil)
	if err != nil || len(listed.Resources) != 1 || listed.Resources[0].URI != "triage://incidents/"+id+"/investigation.md" || !strings.Contains(listed.Resources[0].Title, "DATABASE_URL") {
		t.Errorf("listed resources: %v %+v", err, listed)
	}
	tmpl, err := s.session.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "triage://incidents/{id}/investigation.md" {
		t.Errorf("resource templates: %v %+v", err, tmpl)
	}

	pr, err := s.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "investigate-workload", Arguments: map[string]string{"target": "deploy/web", "namespace": ns}})
	if err != nil || len(pr.Messages) == 0 {
		t.Fatalf("prompt: %v", err)
	}
	if pt, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(pt.Text, `Call the "triage" tool first`) || !strings.Contains(pt.Text, `"deploy/web"`) {
		t.Errorf("prompt text: %+v", pr.Messages[0].Content)
	}

	// Secrets are never read, not even to triage one.
	if res, text := call("triage", map[string]any{"target": "secret/db", "namespace": ns}); !res.IsError || !strings.Contains(text, "never reads Secrets") {
		t.Errorf("triage of a Secret: %s", text)
	}

	res, text = call("triage_namespace", map[string]any{"namespace": ns})
	var overview struct {
		Namespace string
		Failing   []struct {
			Rank     int
			Resource struct{ Kind, Name string }
			Cause    string
			Target   string
		}
	}
	structured(t, res, &overview)
	if overview.Namespace != ns || len(overview.Failing) == 0 || overview.Failing[0].Rank != 1 || overview.Failing[0].Target != "pod/api" ||
		!strings.Contains(overview.Failing[0].Cause, "DATABASE_URL") {
		t.Errorf("triage_namespace: %+v\n%s", overview, text)
	}
	if entries, _ := os.ReadDir(s.root); len(entries) != 1 {
		t.Errorf("triage_namespace made incidents: %d workspaces", len(entries))
	}
}

// TestMCPHTTPRefusesWithoutToken: the HTTP mode answers 401 to a request
// without the bearer token or with a wrong one, before MCP sees it.
func TestMCPHTTPRefusesWithoutToken(t *testing.T) {
	c := testcluster.Get(t)
	s := startServe(t, c, "http")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for name, header := range map[string]string{"no token": "", "wrong token": "Bearer nope-" + strings.Repeat("y", 30), "basic": "Basic " + s.token} {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, resp.StatusCode)
		}
	}
	if !strings.Contains(s.stderr.String(), "missing or wrong bearer token") {
		t.Errorf("refusals are not logged:\n%s", s.stderr)
	}
}
