package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
)

func TestEvidencePath(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"context/logs.txt", "logs.txt", true},
		{"logs.txt", "logs.txt", true},
		{"./context/events.json", "events.json", true},
		{"context/resources/pod-api.json", "resources/pod-api.json", true},
		{"context/kubeconfig", "", false},
		{"kubeconfig", "", false},
		{"../incident.json", "", false},
		{"context/../incident.json", "", false},
		{"context/../../other/incident.json", "", false},
		{"context/./logs.txt", "", false},
		{"context//logs.txt", "", false},
		{"/etc/passwd", "", false},
		{"context/", "", false},
		{"context", "context", true}, // a file named context under context/
		{"", "", false},
		{`context\..\incident.json`, "", false},
		{"context/logs.txt\x00", "", false},
		{"output/investigation.md", "", false}, // becomes context/output/…: not there, but confined
	}
	for _, tt := range tests {
		got, err := evidencePath(tt.in)
		if tt.in == "output/investigation.md" {
			if err != nil || got != "output/investigation.md" {
				t.Errorf("%q: %q %v; want it looked up under context/", tt.in, got, err)
			}
			continue
		}
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("evidencePath(%q) = %q, %v; want %q ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestCapText(t *testing.T) {
	text := strings.Repeat("line é\n", 100) // 8 bytes a line
	got, cut := capText(text, 100)
	if !cut || !strings.Contains(got, "truncated by kubectl-triage") || len(got) > 100+80 {
		t.Fatalf("capText: cut=%v len=%d:\n%s", cut, len(got), got)
	}
	body := got[:strings.Index(got, "\n[…")]
	if !strings.HasSuffix(body, "\n") || strings.ContainsRune(body, '\uFFFD') {
		t.Errorf("cut mid-line or mid-character: %q", body)
	}
	if got, cut := capText("short", 100); cut || got != "short" {
		t.Errorf("short text changed: %q %v", got, cut)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.1.2.3:1": true, "[::1]:80": true, "localhost:9": true,
		":8080": false, "0.0.0.0:8080": false, "10.0.0.1:80": false, "[::]:80": false, "example.com:80": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestRequireToken(t *testing.T) {
	s := &Server{log: discard()}
	h := s.requireToken("s3cret-token-value", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for header, want := range map[string]int{
		"":                                http.StatusUnauthorized,
		"Bearer wrong":                    http.StatusUnauthorized,
		"Bearer s3cret-token-valu":        http.StatusUnauthorized,
		"Bearer s3cret-token-value-extra": http.StatusUnauthorized,
		"Basic s3cret-token-value":        http.StatusUnauthorized,
		"s3cret-token-value":              http.StatusUnauthorized,
		"Bearer s3cret-token-value":       http.StatusTeapot,
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Authorization %q: %d, want %d", header, w.Code, want)
		}
		if want == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: 401 without WWW-Authenticate", header)
		}
	}
}

// stubEngine makes incidents without a cluster, for the tools' pure logic:
// the real engine is tested end to end in test/e2e.
type stubEngine struct {
	root    string
	started chan struct{}
	// hold, when set, keeps a started triage (and its slot) until closed,
	// whatever its context says.
	hold chan struct{}
}

func (e *stubEngine) Triage(ctx context.Context, req TriageRequest, report progress.Func) (*triage.Result, error) {
	if req.Target == "missing" {
		return nil, errors.New(`pods "missing" not found`)
	}
	report.Printf("stub step for %s", req.Target)
	if e.started != nil {
		e.started <- struct{}{}
		<-ctx.Done()
		if e.hold != nil {
			<-e.hold
		}
	}
	id := uuid.NewString()
	dir := filepath.Join(e.root, id)
	os.MkdirAll(filepath.Join(dir, "context"), 0o700)
	inc := &incident.Incident{IncidentID: id, Status: incident.Failed, FailureReason: "cancelled", CreatedAt: time.Now(), Workspace: dir,
		Resource: fault.Resource{Kind: "Pod", Name: req.Target}}
	if err := incident.Save(filepath.Join(dir, "incident.json"), inc); err != nil {
		return nil, err
	}
	os.WriteFile(filepath.Join(dir, "context", "kubeconfig"), []byte("token: gateway-secret\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "context", "logs.txt"), []byte("password=hunter2 in a log line\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("outside context\n"), 0o600)
	os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "context", "link.txt"))
	return &triage.Result{Incident: inc, Workspace: nil}, nil
}

func (e *stubEngine) Cluster(context.Context, string) (*Cluster, error) {
	return nil, errors.New("no cluster in unit tests")
}

func connect(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "unit", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestEvidenceConfinement: get_evidence serves context/ files redacted and
// refuses the gateway kubeconfig, symlinks and anything outside context/.
func TestEvidenceConfinement(t *testing.T) {
	root := t.TempDir()
	eng := &stubEngine{root: root}
	cs := connect(t, Options{Engine: eng, WorkspaceRoot: root})
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolTriage, Arguments: map[string]any{"target": "api"}})
	if err != nil {
		t.Fatal(err)
	}
	var out TriageOutput
	data, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(data, &out)
	if !res.IsError || out.Status != "failed" || out.FailureReason != "cancelled" {
		t.Fatalf("a failed incident must be a tool error with its reason: %+v %s", res, data)
	}
	get := func(file string) (*mcp.CallToolResult, string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolGetEvidence, Arguments: map[string]any{"id": out.IncidentID, "file": file}})
		if err != nil {
			t.Fatal(err)
		}
		return res, res.Content[0].(*mcp.TextContent).Text
	}
	if res, text := get("context/logs.txt"); res.IsError || strings.Contains(text, "hunter2") || !strings.Contains(text, "password=") {
		t.Errorf("logs.txt not served redacted: %v %q", res.IsError, text)
	}
	for _, bad := range []string{"context/kubeconfig", "context/link.txt", "../secret.txt", "secret.txt"} {
		if res, text := get(bad); !res.IsError || strings.Contains(text, "gateway-secret") || strings.Contains(text, "outside context") {
			t.Errorf("%s served: %q", bad, text)
		}
	}
	res, _ = get("")
	data, _ = json.Marshal(res.StructuredContent)
	if !strings.Contains(string(data), "context/logs.txt") || strings.Contains(string(data), "kubeconfig") || strings.Contains(string(data), "link.txt") {
		t.Errorf("evidence list: %s", data)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolTriage, Arguments: map[string]any{"target": "missing"}}); err != nil || !res.IsError {
		t.Errorf("an engine error must be a tool error: %v %+v", err, res)
	}
}

// TestConcurrencyBound: with MaxConcurrent 1, a second triage waits for the
// slot (and says so), and gives up at the call timeout.
func TestConcurrencyBound(t *testing.T) {
	root := t.TempDir()
	// The first triage keeps its slot past both calls' timeouts, so the
	// second cannot win a race for it.
	eng := &stubEngine{root: root, started: make(chan struct{}, 4), hold: make(chan struct{})}
	cs := connect(t, Options{Engine: eng, WorkspaceRoot: root, MaxConcurrent: 1, CallTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	first := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolTriage, Arguments: map[string]any{"target": "a"}})
		first <- res
	}()
	<-eng.started
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolTriage, Arguments: map[string]any{"target": "b"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no triage slot became free") {
		t.Errorf("second call: %v %+v", err, res)
	}
	close(eng.hold)
	if r := <-first; r == nil || !r.IsError {
		t.Errorf("the first call must end at its timeout: %+v", r)
	}
	select {
	case <-eng.started:
		t.Errorf("the second triage started while the first held the only slot")
	default:
	}
}

// TestReportResources: a resolved incident already in the root is listed
// as a resource at start, readable by its URI; a failed one is not.
func TestReportResources(t *testing.T) {
	root := t.TempDir()
	write := func(id string, status incident.Status, md string) {
		dir := filepath.Join(root, id)
		os.MkdirAll(filepath.Join(dir, "output"), 0o700)
		inc := &incident.Incident{IncidentID: id, Status: status, CreatedAt: time.Now(), Workspace: dir,
			Resource: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}, Report: &incident.ReportRef{RootCause: "env DATABASE_URL is empty"}}
		if err := incident.Save(filepath.Join(dir, "incident.json"), inc); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "output", "investigation.md"), []byte(md), 0o600)
	}
	resolved, failed := uuid.NewString(), uuid.NewString()
	write(resolved, incident.Resolved, "# Triage: Pod/api (shop) — env DATABASE_URL is empty\n")
	write(failed, incident.Failed, "")
	cs := connect(t, Options{Engine: &stubEngine{root: root}, WorkspaceRoot: root})
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != ReportURI(resolved) || !strings.Contains(list.Resources[0].Title, "DATABASE_URL") {
		t.Fatalf("resources: %v %+v", err, list)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ReportURI(resolved)})
	if err != nil || !strings.HasPrefix(rr.Contents[0].Text, "# Triage: Pod/api") {
		t.Errorf("read: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ReportURI(failed)}); err == nil {
		t.Errorf("a failed incident's (empty) report was served")
	}
}
