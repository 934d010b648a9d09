package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// mcpClient is `kubectl triage mcp` on stdio, as an assistant runs it,
// serving a workspace root, with the go-sdk client connected.
type mcpClient struct {
	session *mcp.ClientSession
	stderr  *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startMCP serves root over stdio; the server stops with the test.
func startMCP(t *testing.T, c *testcluster.Cluster, root string, args ...string) *mcpClient {
	t.Helper()
	full := append([]string{"mcp", "--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(c.Dir, "kube-cache"), "--workspace-root", root}, args...)
	cmd := exec.Command(pluginBinary(t), full...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(filepath.Dir(root), "state"), "KUBECTL_TRIAGE_CONFIG=")
	m := &mcpClient{stderr: &syncBuffer{}}
	cmd.Stderr = m.stderr
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
	t.Cleanup(func() {
		stdin.Close() // the client going away stops the server
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("the MCP server did not exit when its client went away:\n%s", m.stderr)
		}
	})
	ctx, cancel := ctxTimeout(time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1.0"}, nil)
	m.session, err = client.Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect to the MCP server: %v\n%s", err, m.stderr)
	}
	return m
}

// call calls a tool and returns everything its result says: the text and
// the structured content, or the error.
func (m *mcpClient) call(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	text, data := m.callParts(t, tool, args)
	return text + "\n" + data
}

// callParts is call with the text and the structured content (JSON) apart.
func (m *mcpClient) callParts(t *testing.T, tool string, args map[string]any) (text, structured string) {
	t.Helper()
	ctx, cancel := ctxTimeout(2 * time.Minute)
	defer cancel()
	res, err := m.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "error: " + err.Error(), "null"
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	data, _ := json.Marshal(res.StructuredContent)
	return b.String(), string(data)
}

// read reads a resource and returns its text, or the error.
func (m *mcpClient) read(t *testing.T, uri string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := m.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, c := range res.Contents {
		b.WriteString(c.Text)
	}
	return b.String()
}
