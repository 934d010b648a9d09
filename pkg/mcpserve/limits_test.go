package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
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
)

func TestParseOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://app.example.com", "https://app.example.com"},
		{"HTTPS://App.Example.com:443/", "https://app.example.com"},
		{"http://app.example.com:80", "http://app.example.com"},
		{"http://app.example.com:8080", "http://app.example.com:8080"},
		{"http://[::1]:6274", "http://[::1]:6274"},
		{"*", ""},
		{"null", ""},
		{"app.example.com", ""},
		{"https://app.example.com/mcp", ""},
		{"https://user@app.example.com", ""},
		{"https://app.example.com?x=1", ""},
		{"ftp://app.example.com", ""},
		{"file:///etc/passwd", ""},
	} {
		got, err := ParseOrigin(tc.in)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestCheckOrigin: no Origin and loopback origins on any port pass, any
// other Origin gets 403 before the next handler runs, unless trusted.
func TestCheckOrigin(t *testing.T) {
	s := &Server{log: discard()}
	h := s.checkOrigin([]string{"https://assistant.example.com"}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for _, tc := range []struct {
		origins []string
		want    int
	}{
		{nil, http.StatusTeapot},
		{[]string{"http://localhost:6274"}, http.StatusTeapot},
		{[]string{"HTTP://LOCALHOST"}, http.StatusTeapot},
		{[]string{"http://127.0.0.1:8765"}, http.StatusTeapot},
		{[]string{"https://127.9.9.9"}, http.StatusTeapot},
		{[]string{"http://[::1]:3000"}, http.StatusTeapot},
		{[]string{"https://assistant.example.com"}, http.StatusTeapot},
		{[]string{"https://assistant.example.com:443"}, http.StatusTeapot},
		{[]string{"http://assistant.example.com"}, http.StatusForbidden}, // another scheme, another origin
		{[]string{"http://evil.example"}, http.StatusForbidden},
		{[]string{"null"}, http.StatusForbidden},
		{[]string{""}, http.StatusForbidden},
		{[]string{"http://localhost.evil.example"}, http.StatusForbidden},
		{[]string{"http://127.0.0.1.evil.example"}, http.StatusForbidden},
		{[]string{"http://0.0.0.0:8765"}, http.StatusForbidden},
		{[]string{"http://localhost:6274", "http://evil.example"}, http.StatusForbidden},
		{[]string{"http://" + strings.Repeat("e", 1<<20) + ".example"}, http.StatusForbidden},
	} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			r := httptest.NewRequest(method, "/mcp", nil)
			for _, o := range tc.origins {
				r.Header.Add("Origin", o)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("%s with Origin %.80q: %d, want %d", method, tc.origins, w.Code, tc.want)
			}
			if w.Code == http.StatusForbidden && (w.Body.Len() > 400 || !strings.Contains(w.Body.String(), "--allow-origin")) {
				t.Errorf("403 body (%d bytes) does not say what to do: %.200s", w.Body.Len(), w.Body.String())
			}
		}
	}
}

// TestLongArguments: an error never echoes a long argument whole: a
// megabyte is refused by its length, a shorter one is quoted by its
// prefix, whoever writes the message (the tool, pkg/store, the SDK's
// schema validation).
func TestLongArguments(t *testing.T) {
	root := t.TempDir()
	cs := connect(t, Options{Engine: &stubEngine{root: root}, WorkspaceRoot: root})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"4 MiB ID", ToolShowIncident, map[string]any{"id": strings.Repeat("a", 4<<20)}, `argument "id" is 4194304 bytes`},
		{"4 MiB file", ToolGetEvidence, map[string]any{"id": "0f8fad5b", "file": strings.Repeat("f", 4<<20)}, `argument "file" is 4194304 bytes`},
		{"long ID", ToolShowIncident, map[string]any{"id": strings.Repeat("a", 4000)}, `invalid incident ID "aaaa`},
		{"long status (schema enum)", ToolListIncidents, map[string]any{"status": strings.Repeat("s", 4000)}, "enum"},
		{"long unknown key", ToolListIncidents, map[string]any{strings.Repeat("k", 4000): 1}, "additional properties"},
		{"long key, long value", ToolListIncidents, map[string]any{strings.Repeat("k", 5000): strings.Repeat("v", 10)}, `argument "kkkk`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			text := textOf(res)
			if !res.IsError || !strings.Contains(text, tc.want) || len(text) > 240 {
				t.Errorf("error %v, %d bytes, want one under 240 with %q: %.300q", res.IsError, len(text), tc.want, text)
			}
		})
	}
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// TestStructuredCap: a listing of thousands of evidence files and a list of
// many incidents stay within the cap, structured content included, and
// say that they were cut.
func TestStructuredCap(t *testing.T) {
	root := t.TempDir()
	id := uuid.NewString()
	dir := filepath.Join(root, id)
	files := filepath.Join(dir, "context", "resources")
	if err := os.MkdirAll(files, 0o700); err != nil {
		t.Fatal(err)
	}
	inc := &incident.Incident{IncidentID: id, Status: incident.Failed, FailureReason: strings.Repeat("why ", 2000), CreatedAt: time.Now(), Workspace: dir,
		Resource: fault.Resource{Kind: "Pod", Name: "api"}}
	if err := incident.Save(filepath.Join(dir, "incident.json"), inc); err != nil {
		t.Fatal(err)
	}
	const n = 3000
	for i := range n {
		if err := os.WriteFile(filepath.Join(files, fmt.Sprintf("pod-%05d.json", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for range 40 { // incidents for list_incidents
		other := uuid.NewString()
		os.MkdirAll(filepath.Join(root, other), 0o700)
		c := *inc
		c.IncidentID, c.Workspace = other, filepath.Join(root, other)
		if err := incident.Save(filepath.Join(root, other, "incident.json"), &c); err != nil {
			t.Fatal(err)
		}
	}
	const max = 4096
	cs := connect(t, Options{Engine: &stubEngine{root: root}, WorkspaceRoot: root, MaxOutput: max})
	ctx := context.Background()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{ToolGetEvidence, map[string]any{"id": id}},
		{ToolListIncidents, map[string]any{"limit": 200}},
		{ToolShowIncident, map[string]any{"id": id}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(res.StructuredContent)
		var out struct {
			Truncated  bool
			FilesTotal int
			Files      []EvidenceFile
			Incidents  []IncidentSummary
			Total      int
		}
		json.Unmarshal(data, &out)
		switch {
		case len(data) > max:
			t.Errorf("%s: structured content %d bytes, over the cap %d", tc.tool, len(data), max)
		case len(textOf(res)) > max+100:
			t.Errorf("%s: text %d bytes, over the cap %d", tc.tool, len(textOf(res)), max)
		case !out.Truncated:
			t.Errorf("%s: cut without saying so: %s", tc.tool, data)
		case tc.tool == ToolGetEvidence && (out.FilesTotal != n || len(out.Files) == 0 || len(out.Files) >= n || out.Files[0].Path != "context/resources/pod-00000.json"):
			t.Errorf("get_evidence: %d of %d files listed, first %+v", len(out.Files), out.FilesTotal, out.Files[:min(1, len(out.Files))])
		case tc.tool == ToolListIncidents && (out.Total != 41 || len(out.Incidents) == 0 || len(out.Incidents) >= 41):
			t.Errorf("list_incidents: %d of %d listed", len(out.Incidents), out.Total)
		}
	}
}

// TestFitTriage: whatever runs away in a triage's result — the report, a
// root cause, the evidence or the fixes — the structured content ends
// within the cap, says it was cut, and keeps what fits.
func TestFitTriage(t *testing.T) {
	long := strings.Repeat("<line> \"quoted\" \\ é\n", 5000) // escapes grow in JSON
	many := func(k int) []Evidence {
		var e []Evidence
		for i := range k {
			e = append(e, Evidence{ID: fmt.Sprintf("E%d", i), Fact: "fact " + strings.Repeat("x", 100), Command: "kubectl get pod api"})
		}
		return e
	}
	for _, tc := range []struct {
		name string
		out  TriageOutput
	}{
		{"fits", TriageOutput{IncidentID: "id", RootCause: "env DATABASE_URL is empty", Evidence: many(2)}},
		{"long report", TriageOutput{IncidentID: "id", Report: long, Evidence: many(3)}},
		{"long root cause", TriageOutput{IncidentID: "id", RootCause: long, Culprit: long}},
		{"many evidence", TriageOutput{IncidentID: "id", Evidence: many(10000)}},
		{"many fixes", TriageOutput{IncidentID: "id", ProposedFixes: []Fix{{Kind: "immediate", Description: long, Commands: []string{long, long}}}}},
		{"everything", TriageOutput{IncidentID: "id", Report: long, RootCause: long, Evidence: many(5000), ProposedFixes: []Fix{{Description: long}}}},
	} {
		for _, max := range []int{1024, 8192, 64 << 10} {
			out := tc.out
			out.Evidence = append([]Evidence(nil), tc.out.Evidence...)
			before := jsonLen(out)
			fitTriage(&out, max, func() int { return jsonLen(out) })
			after := jsonLen(out)
			switch {
			case after > max:
				t.Errorf("%s, cap %d: %d bytes after fitting", tc.name, max, after)
			case before <= max && (after != before || out.Truncated):
				t.Errorf("%s, cap %d: a result that fits was changed", tc.name, max)
			case before > max && !out.Truncated:
				t.Errorf("%s, cap %d: cut from %d to %d bytes without saying so", tc.name, max, before, after)
			case out.IncidentID != "id":
				t.Errorf("%s, cap %d: the incident ID was lost", tc.name, max)
			}
		}
	}
}

// TestReadDeadline: a read tool that outlives --read-timeout is answered at
// the deadline with an error naming the flag, even if its handler ignores
// the deadline; the handler stays counted in flight until it returns. An
// engine tool's deadline is --call-timeout's, and the middleware waits for
// the handler to end its incident.
func TestReadDeadline(t *testing.T) {
	s := &Server{opts: Options{ReadTimeout: 100 * time.Millisecond, CallTimeout: time.Hour, MaxOutput: DefaultMaxOutput}, log: discard()}
	s.base, s.stop = context.WithCancel(context.Background())
	defer s.stop()
	release := make(chan struct{})
	var deadline time.Time
	stubborn := func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
		deadline, _ = ctx.Deadline()
		<-release // ignores ctx
		return &mcp.CallToolResult{}, nil
	}
	h := s.bound(stubborn)
	start := time.Now()
	res, err := h(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolGetEvidence}})
	r, _ := res.(*mcp.CallToolResult)
	if err != nil || r == nil || !r.IsError || !strings.Contains(textOf(r), "--read-timeout 100ms") {
		t.Fatalf("after the read timeout: %v %+v", err, res)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("answered after %s", took)
	}
	waited := make(chan struct{})
	go func() { s.inflight.Wait(); close(waited) }()
	select {
	case <-waited:
		t.Fatal("the handler still running is not counted in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-waited

	// An engine tool: the call timeout, and the middleware waits.
	h = s.bound(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
		deadline, _ = ctx.Deadline()
		return &mcp.CallToolResult{}, nil
	})
	if _, err := h(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolTriage}}); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(deadline); left < 59*time.Minute {
		t.Errorf("triage's deadline is %s away, want --call-timeout's hour", left)
	}
}

// TestWithDeadlineAnswerWins: a call that answers at once is never given
// up, though its own release cancels the deadline's context right after
// the answer (before, the select could pick the cancelled context).
func TestWithDeadlineAnswerWins(t *testing.T) {
	s := &Server{}
	s.base, s.stop = context.WithCancel(context.Background())
	defer s.stop()
	var answer mcp.CallToolResult
	for i := 0; i < 20000; i++ {
		res, err := s.withDeadline(context.Background(), time.Minute, "--read-timeout",
			func(err error) (mcp.Result, error) { return nil, fmt.Errorf("given up: %w", err) },
			func(context.Context) (mcp.Result, error) { return &answer, nil })
		if err != nil || res != &answer {
			t.Fatalf("call %d: %v, %v", i, res, err)
		}
	}
}
