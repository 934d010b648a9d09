package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// mcpOutputCap is the server's default --max-output.
const mcpOutputCap = 64 << 10

// mcpStderr collects a server's stderr for the test to read while it runs.
type mcpStderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *mcpStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *mcpStderr) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

var mcpURL = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)

// mcpHTTPServer is `kubectl triage mcp --listen` run from the built binary on
// a workspace root of its own; it is stopped (SIGTERM) when the test ends.
type mcpHTTPServer struct {
	url, token, root string
}

func startMCPHTTP(t *testing.T, root string, extra ...string) *mcpHTTPServer {
	t.Helper()
	s := &mcpHTTPServer{root: root, token: "hostile-token-" + strings.Repeat("z", 24)}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(s.token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"mcp", "--workspace-root", root, "--listen", "127.0.0.1:0", "--token-file", tokenFile}, extra...)
	cmd := exec.Command(pluginBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECTL_TRIAGE_CONFIG=")
	stderr := &mcpStderr{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("the MCP server did not stop on SIGTERM:\n%s", stderr)
		}
	})
	deadline := time.After(30 * time.Second)
	for s.url == "" {
		if m := mcpURL.FindStringSubmatch(stderr.String()); m != nil {
			s.url = m[1]
			break
		}
		select {
		case <-exited:
			t.Fatalf("the MCP server exited:\n%s", stderr)
		case <-deadline:
			t.Fatalf("the MCP server never said where it listens:\n%s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return s
}

// initialize posts an MCP initialize request as a client (or a browser
// page) would, with the token and the given Origin ("" for none).
func (s *mcpHTTPServer) initialize(t *testing.T, method, origin string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`
	var rd io.Reader
	if method == http.MethodPost {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestMCPHTTPOrigin: a page in the user's browser (a foreign Origin) gets 403
// and no session, even with the token; requests without Origin or from a
// loopback origin get their session; --allow-origin trusts one more.
func TestMCPHTTPOrigin(t *testing.T) {
	s := startMCPHTTP(t, filepath.Join(t.TempDir(), "incidents"), "--allow-origin", "https://assistant.example.com")
	port := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://127.0.0.1:"), "/mcp")
	for _, tc := range []struct {
		method, origin string
		ok             bool
	}{
		{http.MethodPost, "", true},
		{http.MethodPost, "http://localhost:" + port, true},
		{http.MethodPost, "http://127.0.0.1:6274", true},
		{http.MethodPost, "http://[::1]:6274", true},
		{http.MethodPost, "https://assistant.example.com", true},
		{http.MethodPost, "http://evil.example", false},
		{http.MethodPost, "https://assistant.example.com.evil.example", false},
		{http.MethodPost, "http://localhost.evil.example:" + port, false},
		{http.MethodPost, "null", false},
		{http.MethodGet, "http://evil.example", false},
		{http.MethodDelete, "http://evil.example", false},
	} {
		figures.originProbes.Add(1)
		resp := s.initialize(t, tc.method, tc.origin)
		session := resp.Header.Get("Mcp-Session-Id")
		switch {
		case tc.ok && (resp.StatusCode != http.StatusOK || session == ""):
			figures.originLocalRefused.Add(1)
			t.Errorf("%s with Origin %q: %d, session %q; want 200 and a session", tc.method, tc.origin, resp.StatusCode, session)
		case !tc.ok && (resp.StatusCode != http.StatusForbidden || session != ""):
			figures.originForeignAccepted.Add(1)
			t.Errorf("%s with Origin %q: %d, session %q; want 403 and no session", tc.method, tc.origin, resp.StatusCode, session)
		}
	}
}

// saveIncident writes a failed incident with n empty evidence files under
// context/resources/, as a collection of a huge namespace would leave.
func saveIncident(t *testing.T, root string, n int) string {
	t.Helper()
	id := uuid.NewString()
	dir := filepath.Join(root, id)
	res := filepath.Join(dir, "context", "resources")
	if err := os.MkdirAll(res, 0o700); err != nil {
		t.Fatal(err)
	}
	inc := &incident.Incident{IncidentID: id, Status: incident.Failed, FailureReason: "timeout", CreatedAt: time.Now(), Workspace: dir,
		Resource: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}}
	if err := incident.Save(filepath.Join(dir, incident.FileName), inc); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(res, fmt.Sprintf("pod-api-%06d.json", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// countingRT counts the bytes of the responses it carries, and adds the
// token.
type countingRT struct {
	token string
	mu    sync.Mutex
	last  int64
}

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.mu.Lock()
	c.last = int64(len(body))
	c.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, err
}

// TestMCPEvidenceListingCap: get_evidence on a workspace of 60,000 files
// answers within the output cap — its text and its structured list each —
// and says the list was cut and how long it is.
func TestMCPEvidenceListingCap(t *testing.T) {
	root := filepath.Join(t.TempDir(), "incidents")
	const files = 60000
	id := saveIncident(t, root, files)
	s := startMCPHTTP(t, root)
	rt := &countingRT{token: s.token}
	ctx, cancel := ctxTimeout(2 * time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_evidence", Arguments: map[string]any{"id": id}})
	if err != nil {
		t.Fatal(err)
	}
	figures.capProbes.Add(1)
	rt.mu.Lock()
	wire := rt.last
	rt.mu.Unlock()
	structured, _ := json.Marshal(res.StructuredContent)
	text := mcpText(res)
	noteCapped(int64(len(structured)), wire)
	var out struct {
		Files      []struct{ Path string }
		FilesTotal int
		Truncated  bool
	}
	json.Unmarshal(structured, &out)
	if res.IsError || len(structured) > mcpOutputCap || len(text) > mcpOutputCap+200 || wire > 2*mcpOutputCap+16<<10 {
		t.Errorf("answer over the cap %d: structured %d bytes, text %d bytes, %d bytes on the wire (error %v)", mcpOutputCap, len(structured), len(text), wire, res.IsError)
	}
	if !out.Truncated || out.FilesTotal != files || len(out.Files) == 0 || out.Files[0].Path != "context/resources/pod-api-000000.json" {
		t.Errorf("the cut list does not say so: truncated %v, %d of %d files, first %v", out.Truncated, len(out.Files), out.FilesTotal, out.Files[:min(1, len(out.Files))])
	}
	if !strings.Contains(text, "truncated by kubectl-triage") {
		t.Errorf("the text does not say it was cut: …%s", text[max(0, len(text)-200):])
	}
}

func noteCapped(structured, wire int64) {
	storeMax(&figures.capLargestStructured, structured)
	storeMax(&figures.capLargestWire, wire)
}

func noteLongArg(errBytes int64) {
	figures.longArgProbes.Add(1)
	storeMax(&figures.longArgLongestError, errBytes)
}

func mcpText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPLongArguments: a 4 MiB incident ID (on stdio, which has no body
// limit, as on HTTP just under its 4 MiB one) and IDs, statuses and keys of
// a few KiB are answered with an error of a line, never echoed back: under
// 200 bytes, or 256 where the SDK's schema validation words it (around the
// argument's 64-byte prefix).
func TestMCPLongArguments(t *testing.T) {
	root := filepath.Join(t.TempDir(), "incidents")
	saveIncident(t, root, 1)
	ctx, cancel := ctxTimeout(2 * time.Minute)
	defer cancel()

	cmd := exec.Command(pluginBinary(t), "mcp", "--workspace-root", root)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECTL_TRIAGE_CONFIG=")
	cmd.Stderr = &mcpStderr{}
	stdio, err := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close()
	s := startMCPHTTP(t, root)
	overHTTP, err := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: &countingRT{token: s.token}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer overHTTP.Close()

	for _, tc := range []struct {
		name    string
		session *mcp.ClientSession
		tool    string
		args    map[string]any
		limit   int
	}{
		{"4 MiB ID on stdio", stdio, "show_incident", map[string]any{"id": strings.Repeat("a", 4<<20)}, 200},
		{"4 MiB evidence path on stdio", stdio, "get_evidence", map[string]any{"id": "0f8fad5b", "file": strings.Repeat("../", 4<<20/3)}, 200},
		{"4 MiB target on stdio", stdio, "triage", map[string]any{"target": "pod/" + strings.Repeat("x", 4<<20)}, 200},
		{"ID under the HTTP body limit", overHTTP, "show_incident", map[string]any{"id": strings.Repeat("b", 4<<20-4096)}, 200},
		{"4 KiB ID", overHTTP, "show_incident", map[string]any{"id": strings.Repeat("c", 4000)}, 200},
		{"4 KiB status", overHTTP, "list_incidents", map[string]any{"status": strings.Repeat("d", 4000)}, 256},
		{"4 KiB key", overHTTP, "list_incidents", map[string]any{strings.Repeat("e", 4000): true}, 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.session.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			text := mcpText(res)
			noteLongArg(int64(len(text)))
			if !res.IsError || len(text) > tc.limit || strings.Count(text, "\n") > 1 {
				t.Errorf("%s: error %v, %d bytes, want one line under %d: %.300q", tc.tool, res.IsError, len(text), tc.limit, text)
			}
		})
	}
}
