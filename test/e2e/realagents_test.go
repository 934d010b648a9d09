package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/modelserver"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The real agent CLIs (claude, codex, gemini from npm, pinned in
// hack/tools/agentclis) run through the plugin against the scripted model
// server: the model asks for kubectl commands, the CLI runs them through
// its shell tool against the cluster (through the read-only gateway), and
// the model's report quotes what came back.

// agentCLIDir is where hack/agentclis.sh installed the CLIs; make test sets
// it.
func agentCLIDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("KUBECTL_TRIAGE_AGENTCLIS")
	if dir == "" {
		t.Skip("KUBECTL_TRIAGE_AGENTCLIS is not set: the real agent CLIs are not installed (make test installs them with hack/agentclis.sh)")
	}
	return dir
}

// writeTools are the file-writing and file-editing tools of the three CLIs;
// none may be offered to the model.
var writeTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true,
	"write_file": true, "replace": true, "edit": true, "apply_patch": true}

// realAgentRun is one real CLI's run through the plugin.
type realAgentRun struct {
	c       *testcluster.Cluster
	ns      string
	srv     *modelserver.Server
	home    string // the user's home: the CLI's settings and login live here
	root    string // the workspace root
	env     []string
	code    int
	stdout  string
	stderr  string
	dir     string // the incident's workspace
	entries []modelserver.Entry
}

// startRealAgent sets up the crashlooping pod "api", a model server scripted
// with commands (NS stands for the namespace), and a user environment with
// the real CLIs and the cluster's kubectl on PATH.
func startRealAgent(t *testing.T, commands ...string) *realAgentRun {
	t.Helper()
	bin := agentCLIDir(t)
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	for i := range commands {
		commands[i] = strings.ReplaceAll(commands[i], "NS", ns)
	}
	srv, err := modelserver.Start("", modelserver.Script{Commands: commands}, filepath.Join(t.TempDir(), "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	r := &realAgentRun{c: c, ns: ns, srv: srv, home: t.TempDir(), root: t.TempDir()}
	r.env = []string{"PATH=" + bin + ":" + testBinDir(t) + ":/usr/bin:/bin", "HOME=" + r.home,
		"KUBECONFIG=" + c.UserKubeconfig, "WORKSPACE_ROOT=" + r.root}
	return r
}

// testBinDir holds the test control plane's kubectl, the one the agent's
// shell finds.
func testBinDir(t *testing.T) string {
	dir := os.Getenv("KUBECTL_TRIAGE_TESTBIN")
	if dir == "" {
		t.Skip("KUBECTL_TRIAGE_TESTBIN is not set")
	}
	return dir
}

// homeFile writes a file of the CLI's own configuration in the user's home.
func (r *realAgentRun) homeFile(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(r.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs the plugin on pod/api with the agent and extra arguments.
func (r *realAgentRun) run(t *testing.T, agent string, args ...string) {
	t.Helper()
	r.code, r.stdout, r.stderr = runWith(t, r.env, append([]string{"pod/api", "-n", r.ns, "--agent", agent, "--timeout", "4m"}, args...)...)
	r.entries = r.srv.Entries()
	if entries, err := os.ReadDir(r.root); err == nil && len(entries) == 1 {
		r.dir = filepath.Join(r.root, entries[0].Name())
	}
	if r.code != 0 {
		log, _ := os.ReadFile(filepath.Join(r.dir, "output", "agent.log"))
		t.Fatalf("exit %d\nstderr:\n%s\nagent.log:\n%s\nmodel requests:\n%s", r.code, r.stderr, clip(string(log), 20000), r.describeEntries())
	}
}

func (r *realAgentRun) describeEntries() string {
	var b strings.Builder
	for _, e := range r.entries {
		b.WriteString(e.Method + " " + e.Path + " → " + e.Reply + "\n")
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "\n…"
	}
	return s
}

// assertResolvedWithQuotedResults: the run resolved with the model's report,
// and the report quotes each tool result, which must contain the want
// strings (what only the cluster could have answered).
func (r *realAgentRun) assertResolvedWithQuotedResults(t *testing.T, want ...string) {
	t.Helper()
	inc := assertWorkspace(t, r.dir, incident.Resolved)
	if !strings.HasPrefix(r.stdout, "# Triage: scripted model") {
		t.Errorf("stdout is not the model's report:\n%s", r.stdout)
	}
	var results []string
	for _, e := range r.entries {
		if e.Reply == "report" {
			results = e.Results
		}
	}
	all := strings.Join(results, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("the tool results sent to the model lack %q:\n%s", w, all)
		}
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the report does not quote %q:\n%s", w, r.stdout)
		}
	}
	if inc.Agent.State != incident.AgentSuccess {
		t.Errorf("agent state %q", inc.Agent.State)
	}
}

// assertThroughGateway: the agent's kubectl requests are in audit.jsonl as
// allowed reads of the namespace.
func (r *realAgentRun) assertThroughGateway(t *testing.T, resources ...string) {
	t.Helper()
	f, err := os.Open(filepath.Join(r.dir, "output", "audit.jsonl"))
	if err != nil {
		t.Fatalf("no audit of the agent's requests: %v", err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Resource, Subresource, Namespace string
			Allowed                          bool
		}
		json.Unmarshal(sc.Bytes(), &e)
		if e.Allowed && e.Namespace == r.ns {
			seen[strings.Trim(e.Resource+"/"+e.Subresource, "/")] = true
		}
	}
	for _, res := range resources {
		if !seen[res] {
			t.Errorf("audit.jsonl has no allowed request for %s in %s (seen %v)", res, r.ns, seen)
		}
	}
}

// assertModelRequests: every agent turn the CLI sent carried the read-only
// instructions, and no request offered a tool that writes or edits files
// (except the ones listed, with the reason in the caller).
func (r *realAgentRun) assertModelRequests(t *testing.T, exceptTools ...string) {
	t.Helper()
	except := map[string]bool{}
	for _, e := range exceptTools {
		except[e] = true
	}
	turns := 0
	for _, e := range r.entries {
		for _, tool := range e.Tools {
			if writeTools[tool] && !except[tool] {
				t.Errorf("%s %s offered the write tool %q (tools: %v)", e.Method, e.Path, tool, e.Tools)
			}
		}
		if !strings.HasPrefix(e.Reply, "tool:") && e.Reply != "report" {
			continue // a side request (title, routing)
		}
		turns++
		if !strings.Contains(e.System, "READ-ONLY triage mode") && !strings.Contains(string(e.Body), "READ-ONLY triage mode") {
			t.Errorf("%s %s: the request lacks the read-only instructions", e.Method, e.Path)
		}
	}
	if turns == 0 {
		t.Errorf("no agent turn reached the model server:\n%s", r.describeEntries())
	}
}

// assertFooter: the report footer counts the agent's tool calls: those
// that ran (failed of them failed) and those the CLI's policy refused.
func (r *realAgentRun) assertFooter(t *testing.T, allowed, failed, refused int) {
	t.Helper()
	want := plural(allowed+refused, "tool call") + " (" + itoa(allowed) + " allowed, " + itoa(failed) + " failed, " + itoa(refused) + " refused)"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("report footer lacks %q:\n%s", want, r.stdout)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return itoa(n) + " " + what + "s"
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// deniedEgress lists the hosts the egress proxy refused the agent (audited
// in audit.jsonl): what the CLI tried to reach beyond its model API.
func (r *realAgentRun) deniedEgress(t *testing.T) []string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(r.dir, "output", "audit.jsonl"))
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Kind, Host string
			Allowed    bool
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Kind == "egress" && !e.Allowed {
			out = append(out, e.Host)
		}
	}
	return out
}
