package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// watchProc is `kubectl triage watch` running as a user runs it: the
// binary, stdout lines as they come, stderr kept, signals deliverable.
type watchProc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *lockedBuffer
	done   chan struct{}
	code   int
	root   string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startWatch runs the plugin's watch with the user's kubeconfig, a private
// workspace root and config dir, JSON logs and a JSON line per incident.
func startWatch(t *testing.T, c *testcluster.Cluster, args ...string) *watchProc {
	t.Helper()
	return startWatchEnv(t, c, nil, args...)
}

// startWatchEnv is startWatch with more environment (later entries win).
func startWatchEnv(t *testing.T, c *testcluster.Cluster, env []string, args ...string) *watchProc {
	t.Helper()
	dir := t.TempDir()
	w := &watchProc{lines: make(chan string, 64), stderr: &lockedBuffer{}, done: make(chan struct{}), root: filepath.Join(dir, "incidents")}
	full := append([]string{"watch", "--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(dir, "cache"), "--workspace-root", w.root,
		"--log-format", "json", "-o", "json"}, args...)
	w.cmd = exec.Command(pluginBinary(t), full...)
	w.cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"K8S_CLUSTER_MCP_ENDPOINT=", "SLACK_WEBHOOK_URL=", "KUBECTL_TRIAGE_CONFIG=")
	w.cmd.Env = append(w.cmd.Env, env...)
	w.cmd.Stderr = w.stderr
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		close(w.lines)
		close(w.done)
	}()
	t.Cleanup(func() {
		select {
		case <-w.done:
		default:
			w.cmd.Process.Kill()
			<-w.done
			t.Logf("watch stderr:\n%s", w.stderr.String())
		}
	})
	return w
}

// incidentLine is the JSON line watch prints per incident.
type incidentLine struct {
	IncidentID, EventID, Status, Cluster, Namespace, Kind, Name, FaultType, Severity, RootCause, FailureReason, Workspace, Report, Error, Stored string
	Confidence                                                                                                                                   float64
}

// next waits for the next incident line.
func (w *watchProc) next(t *testing.T, within time.Duration) incidentLine {
	t.Helper()
	select {
	case l, ok := <-w.lines:
		if !ok {
			t.Fatalf("watch exited (code %d) before printing an incident; stderr:\n%s", w.code, w.stderr.String())
		}
		var il incidentLine
		if err := json.Unmarshal([]byte(l), &il); err != nil {
			t.Fatalf("stdout line is not JSON: %q: %v", l, err)
		}
		return il
	case <-time.After(within):
		t.Fatalf("no incident within %s; stderr:\n%s", within, w.stderr.String())
	}
	return incidentLine{}
}

// wait waits for watch to exit and returns its code and any further lines.
func (w *watchProc) wait(t *testing.T, within time.Duration) (int, []string) {
	t.Helper()
	var rest []string
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				<-w.done
				return w.code, rest
			}
			rest = append(rest, l)
		case <-deadline:
			t.Fatalf("watch did not exit within %s; stderr:\n%s", within, w.stderr.String())
		}
	}
}

// logged waits for a JSON log record whose msg is msg and returns it.
func (w *watchProc) logged(t *testing.T, msg string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, l := range strings.Split(w.stderr.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == msg {
				return rec
			}
		}
		select {
		case <-w.done:
			t.Fatalf("watch exited (code %d) before logging %q; stderr:\n%s", w.code, msg, w.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("watch did not log %q within %s; stderr:\n%s", msg, within, w.stderr.String())
	return nil
}

// loggedCount counts the JSON log records whose msg is msg so far.
func (w *watchProc) loggedCount(msg string) int {
	n := 0
	for _, l := range strings.Split(w.stderr.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == msg {
			n++
		}
	}
	return n
}

// startMCP starts the in-repo MCP test server on loopback.
func startMCP(t *testing.T, opts mcpserver.Options) *mcpserver.Server {
	t.Helper()
	s := mcpserver.New(opts)
	if _, err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func podFault(ns, name, faultType, severity string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"faultId":"%s-%s","faultType":%q,"severity":%q,"resource":{"apiVersion":"v1","kind":"Pod","name":%q,"namespace":%q},"context":"test fault","timestamp":%q}`,
		ns, name, faultType, severity, name, ns, time.Now().UTC().Format(time.RFC3339)))
}

func send(t *testing.T, s *mcpserver.Server, data json.RawMessage) {
	t.Helper()
	n, err := s.Send(mcpserver.ModeFaults, data)
	if err != nil || n != 1 {
		t.Fatalf("send fault: %d notifications, %v", n, err)
	}
}

// slackServer records the payloads posted to it.
type slackServer struct {
	*httptest.Server
	mu       sync.Mutex
	payloads []string
}

func startSlack(t *testing.T) *slackServer {
	s := &slackServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.payloads = append(s.payloads, string(b))
		s.mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *slackServer) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.payloads...)
}

// TestWatchMCP: faults from an MCP server become one incident and report
// each; a duplicate within the window and a low-severity fault do not; the
// incidents reach Slack; --max-incidents stops the watch with exit 0.
func TestWatchMCP(t *testing.T) {
	c := testcluster.Get(t)
	ns1, ns2 := c.Namespace(t), c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns1)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns2)
	mcp := startMCP(t, mcpserver.Options{})
	slack := startSlack(t)

	const webhookSecret = "hook-secret-6f1c2d3e"
	w := startWatch(t, c, "--mcp-endpoint", mcp.Endpoint(), "--max-incidents", "2", "--slack-webhook", slack.URL+"/services/T0/B0/"+webhookSecret)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := mcp.WaitSubscribed(ctx, 1); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, w.stderr.String())
	}
	if subs := mcp.Subscriptions(); subs[0].Mode != "faults" || subs[0].LogLevel == "" {
		t.Errorf("subscription %+v: want mode faults after logging/setLevel", subs[0])
	}
	send(t, mcp, podFault(ns1, "api", "CrashLoop", "warning"))
	send(t, mcp, podFault(ns1, "api", "CrashLoop", "critical")) // same key: a duplicate
	send(t, mcp, podFault(ns1, "quiet", "PodCrash", "info"))    // below --min-severity warning
	send(t, mcp, podFault(ns2, "api", "CrashLoop", "critical"))

	first, second := w.next(t, 2*time.Minute), w.next(t, 2*time.Minute)
	code, rest := w.wait(t, time.Minute)
	if code != 0 || len(rest) != 0 {
		t.Fatalf("exit %d, extra lines %q; stderr:\n%s", code, rest, w.stderr.String())
	}
	for i, il := range []incidentLine{first, second} {
		wantNS := []string{ns1, ns2}[i]
		if il.Status != "resolved" || il.Namespace != wantNS || il.Name != "api" || il.FaultType != "CrashLoop" || !strings.Contains(il.RootCause, "DATABASE_URL") {
			t.Errorf("incident %d: %+v", i, il)
		}
		assertWorkspace(t, il.Workspace, "resolved")
	}
	if entries, _ := os.ReadDir(w.root); len(entries) != 2 {
		t.Errorf("%d workspaces, want 2", len(entries))
	}
	stderr := w.stderr.String()
	for _, want := range []string{`"incident_id":"` + first.IncidentID, `"filtered":1`, `"deduplicated":1`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, webhookSecret) {
		t.Errorf("the Slack webhook leaked into the logs:\n%s", stderr)
	}
	payloads := slack.got()
	if len(payloads) != 2 {
		t.Fatalf("Slack got %d messages, want 2: %q", len(payloads), payloads)
	}
	for i, p := range payloads {
		if !json.Valid([]byte(p)) || !strings.Contains(p, `"blocks"`) || !strings.Contains(p, "DATABASE_URL") || !strings.Contains(p, []string{first.IncidentID, second.IncidentID}[i]) {
			t.Errorf("Slack payload %d: %s", i, p)
		}
	}
}

// TestWatchMCPReconnect: the server drops every connection; watch
// reconnects, subscribes again and triages the next fault.
func TestWatchMCPReconnect(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	mcp := startMCP(t, mcpserver.Options{})
	w := startWatch(t, c, "--mcp-endpoint", mcp.Endpoint(), "--max-incidents", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := mcp.WaitSubscribed(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// The server has the subscription before the client has its answer:
	// drop only once watch has it too.
	w.logged(t, "subscribed to the MCP server's events", time.Minute)
	old := mcp.Subscriptions()[0].ID
	mcp.DropConnections()
	for {
		if subs := mcp.Subscriptions(); len(subs) == 1 && subs[0].ID != old && subs[0].LogLevel != "" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no new subscription after the disconnect; stderr:\n%s", w.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	send(t, mcp, podFault(ns, "api", "CrashLoop", "critical"))
	if il := w.next(t, 2*time.Minute); il.Status != "resolved" || il.Namespace != ns {
		t.Errorf("incident after reconnect: %+v", il)
	}
	if code, _ := w.wait(t, time.Minute); code != 0 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(strings.ToLower(w.stderr.String()), "reconnect") {
		t.Errorf("the reconnect is not logged:\n%s", w.stderr.String())
	}
}

// TestWatchOverflowAndDrain: with a slow agent and --max-queue 1, faults
// beyond the queue are dropped and counted in the metrics; SIGINT stops
// intake, lets the running triage finish and exits 0; the queued fault is
// never started.
func TestWatchOverflowAndDrain(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	mcp := startMCP(t, mcpserver.Options{})
	// An agent CLI that runs until the test releases it, then prints a
	// (non-conforming) report.
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	agentScript := filepath.Join(dir, "slow-agent")
	os.WriteFile(agentScript, []byte("#!/bin/sh\ncat >/dev/null\nwhile [ ! -e "+release+" ]; do sleep 0.1; done\necho '# not a report'\n"), 0o755)
	w := startWatch(t, c, "--mcp-endpoint", mcp.Endpoint(), "--max-queue", "1", "--overflow", "drop-new", "--metrics-addr", "127.0.0.1:0",
		"--agent-command", agentScript, "--no-sandbox", "--drain-timeout", "2m")
	addr, _ := w.logged(t, "serving metrics", time.Minute)["addr"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := mcp.WaitSubscribed(ctx, 1); err != nil {
		t.Fatal(err)
	}
	send(t, mcp, podFault(ns, "gone-1", "CrashLoop", "critical"))
	w.logged(t, "triage started", time.Minute)
	for _, name := range []string{"gone-2", "gone-3", "gone-4"} {
		send(t, mcp, podFault(ns, name, "CrashLoop", "critical"))
	}
	metricValue := func(name string) string {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		m := regexp.MustCompile(`(?m)^` + name + `\{[^}]*\} (\S+)$`).FindStringSubmatch(string(b))
		if m == nil {
			return ""
		}
		return m[1]
	}
	deadline := time.Now().Add(time.Minute)
	for metricValue("kubectl_triage_events_dropped_total") != "2" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := metricValue("kubectl_triage_events_dropped_total"); got != "2" {
		t.Errorf("dropped = %q, want 2", got)
	}
	if got := metricValue("kubectl_triage_queue_depth"); got != "1" {
		t.Errorf("queue depth = %q, want 1", got)
	}
	if resp, err := http.Get("http://" + addr + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/healthz: %v %v", resp, err)
	}
	w.cmd.Process.Signal(os.Interrupt)
	w.logged(t, "stopping: waiting for running triages", time.Minute)
	os.WriteFile(release, nil, 0o600) // the running agent finishes within the drain
	il := w.next(t, time.Minute)
	if il.Name != "gone-1" || il.Status != "agent_failed" {
		t.Errorf("the running triage should finish after SIGINT: %+v", il)
	}
	code, rest := w.wait(t, time.Minute)
	if code != 0 || len(rest) != 0 {
		t.Errorf("exit %d, extra lines %q", code, rest)
	}
	stopped := w.logged(t, "watch stopped", time.Second)
	if stopped["dropped"] != float64(2) || stopped["not_triaged"] != float64(1) || stopped["triaged"] != float64(1) {
		t.Errorf("watch stopped with %v", stopped)
	}
	if entries, _ := os.ReadDir(w.root); len(entries) != 1 {
		t.Errorf("%d workspaces, want 1", len(entries))
	}
	// Logged once, by metrics.Serve's caller only.
	if n := w.loggedCount("serving metrics"); n != 1 {
		t.Errorf("%q logged %d times, want once:\n%s", "serving metrics", n, w.stderr.String())
	}
}

// TestWatchCluster: with nothing but a kubeconfig, a pod that starts
// crash-looping after the watch started becomes exactly one incident;
// SIGTERM stops the watch with exit 0.
func TestWatchCluster(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	w := startWatch(t, c, "-n", ns)
	w.logged(t, "watching cluster for faults", time.Minute)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	il := w.next(t, 2*time.Minute)
	if il.Status != "resolved" || il.Namespace != ns || il.Kind != "Pod" || il.Name != "api" || il.FaultType != "CrashLoop" || !strings.Contains(il.RootCause, "DATABASE_URL") {
		t.Errorf("incident: %+v", il)
	}
	// The pod's later updates and its BackOff event are the same fault:
	// nothing more may come. Give them a moment to arrive.
	select {
	case l := <-w.lines:
		t.Errorf("a second incident for the same fault: %s", l)
	case <-time.After(3 * time.Second):
	}
	w.cmd.Process.Signal(syscall.SIGTERM) // as a service manager stops it

	if code, rest := w.wait(t, time.Minute); code != 0 || len(rest) != 0 {
		t.Errorf("exit %d, extra lines %q", code, rest)
	}
}

// TestWatchClusterIncludeExisting: a fault that exists when the watch starts
// is triaged once with --include-existing.
func TestWatchClusterIncludeExisting(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	w := startWatch(t, c, "-n", ns, "--include-existing", "--max-incidents", "1")
	il := w.next(t, 2*time.Minute)
	if il.Status != "resolved" || il.Name != "api" || !strings.Contains(il.RootCause, "DATABASE_URL") {
		t.Errorf("incident: %+v", il)
	}
	if code, _ := w.wait(t, time.Minute); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestWatchErrors: bad input is one clear line and exit 1, before anything
// is created.
func TestWatchErrors(t *testing.T) {
	c := testcluster.Get(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unreachable MCP server", []string{"--mcp-endpoint", "http://127.0.0.1:1/mcp"}, "127.0.0.1:1"},
		{"not a URL", []string{"--mcp-endpoint", "mcp-server:8080"}, `invalid MCP endpoint "mcp-server:8080"`},
		{"unknown severity", []string{"--min-severity", "severe"}, `invalid argument "severe" for "--min-severity" flag: unknown severity "severe"`},
		{"MCP filters with the cluster source", []string{"--source", "cluster", "--subscribe-mode", "events", "--type", "Warning"}, "--subscribe-mode, --type configure the MCP subscription, but --source cluster watches the API server"},
		{"unknown overflow", []string{"--overflow", "drop-all"}, "--overflow"},
		{"include-existing with MCP", []string{"--mcp-endpoint", "http://127.0.0.1:1/mcp", "--include-existing"}, "--include-existing needs --source cluster"},
		{"bad log format", []string{"--log-format", "xml"}, `invalid argument "xml" for "--log-format" flag: want one of text, json`},
		{"busy metrics port", []string{"--metrics-addr", "256.0.0.1:99999"}, "--metrics-addr"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := startWatch(t, c, tc.args...)
			code, lines := w.wait(t, time.Minute)
			stderr := w.stderr.String()
			if code != 1 || len(lines) != 0 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "error: ") {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", code, lines, stderr, tc.want)
			}
			if _, err := os.Stat(w.root); err == nil {
				if entries, _ := os.ReadDir(w.root); len(entries) > 0 {
					t.Errorf("a failed start left %d workspaces", len(entries))
				}
			}
		})
	}
}

// TestWatchWithAgentCLI: watch runs an external agent CLI per fault, each
// in its sandbox with its own read-only gateway, one after the other.
func TestWatchWithAgentCLI(t *testing.T) {
	c := testcluster.Get(t)
	ns1, ns2 := c.Namespace(t), c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns1)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns2)
	mcp := startMCP(t, mcpserver.Options{})
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(fakeClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	w := startWatchEnv(t, c, []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "ANTHROPIC_API_KEY=sk-ant-fake"},
		"--mcp-endpoint", mcp.Endpoint(), "--max-incidents", "2", "--agent", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := mcp.WaitSubscribed(ctx, 1); err != nil {
		t.Fatal(err)
	}
	send(t, mcp, podFault(ns1, "api", "CrashLoop", "critical"))
	send(t, mcp, podFault(ns2, "api", "CrashLoop", "critical"))
	first, second := w.next(t, 2*time.Minute), w.next(t, 2*time.Minute)
	if code, _ := w.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d", code)
	}
	kubeconfigs := map[string]bool{}
	for _, il := range []incidentLine{first, second} {
		if il.Status != "resolved" || !strings.Contains(il.RootCause, "DATABASE_URL") {
			t.Errorf("incident %+v", il)
		}
		inc := assertWorkspace(t, il.Workspace, incident.Resolved)
		if inc.Agent.Name != "claude" || inc.Agent.PID == 0 || inc.Sandbox != "namespaces" {
			t.Errorf("agent record %+v, sandbox %q", inc.Agent, inc.Sandbox)
		}
		kc, err := os.ReadFile(filepath.Join(il.Workspace, "context", "kubeconfig"))
		if err != nil || !strings.Contains(string(kc), "server: https://127.0.0.1:") || strings.Contains(string(kc), c.Server) {
			t.Errorf("context/kubeconfig does not point at a loopback gateway: %v\n%s", err, kc)
		}
		kubeconfigs[string(kc)] = true
	}
	if len(kubeconfigs) != 2 {
		t.Error("the two incidents share a gateway kubeconfig: each run needs its own token")
	}
	if !strings.Contains(w.stderr.String(), `"pid":`) {
		t.Errorf("the logs do not carry the agent's pid:\n%s", w.stderr.String())
	}
}
