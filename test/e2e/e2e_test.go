// Package e2e runs kubectl triage end to end against a real kube-apiserver
// and etcd (test/testcluster), as a user would.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func TestMain(m *testing.M) {
	sandbox.MaybeInit() // in-process runs re-execute this binary as the agent sandbox's init
	if role := os.Getenv("KUBECTL_TRIAGE_E2E_ROLE"); role != "" {
		os.Exit(agentRole(role)) // and as the agent a benchmark runs inside it
	}
	// The developer's settings stay out: no config file, none of the
	// variables kubectl triage reads (AGENT_CLI=claude would run a paid agent).
	config, err := os.MkdirTemp("", "kubectl-triage-e2e-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", config)
	for _, name := range cmd.EnvironmentNames() {
		os.Unsetenv(name)
	}
	code := testcluster.Main(m)
	os.RemoveAll(config)
	os.Exit(code)
}

// run is one kubectl triage invocation, in-process.
type run struct {
	code           int
	stdout, stderr string
	root           string // workspace root
}

// triage runs kubectl triage in-process with the user's (cluster-admin)
// kubeconfig, a private workspace root and discovery cache.
func triage(t *testing.T, c *testcluster.Cluster, ns string, args ...string) run {
	t.Helper()
	root := filepath.Join(t.TempDir(), "incidents")
	full := append([]string{"--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache"), "--workspace-root", root}, args...)
	if ns != "" {
		full = append(full, "-n", ns)
	}
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := cmd.Run(ctx, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, full)
	return run{code: code, stdout: out.String(), stderr: errOut.String(), root: root}
}

// onlyWorkspace returns the single incident workspace a run created.
func onlyWorkspace(t *testing.T, root string) string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("read workspace root: %v", err)
	}
	if len(entries) != 1 {
		t.Fatalf("want exactly one workspace in %s, found %d", root, len(entries))
	}
	return filepath.Join(root, entries[0].Name())
}

func loadIncident(t *testing.T, dir string) *incident.Incident {
	t.Helper()
	inc, err := incident.Load(filepath.Join(dir, "incident.json"))
	if err != nil {
		t.Fatalf("load incident.json: %v", err)
	}
	return inc
}

// assertReadOnly checks the API server's own audit log: every request the
// user under test made since mark was a read.
func assertReadOnly(t *testing.T, c *testcluster.Cluster, mark int64) int {
	t.Helper()
	events := c.AuditSince(t, mark, c.UserName)
	if len(events) == 0 {
		t.Fatalf("the audit log shows no request by %s: the accounting is broken", c.UserName)
	}
	for _, e := range events {
		switch e.Verb {
		case "get", "list", "watch":
		default:
			t.Errorf("non-read request reached the API server: %s %s (%d)", e.Verb, e.RequestURI, e.Code)
		}
		// Whether one named Secret exists may be asked, as its table row
		// without the object (the read-only transport lets nothing else
		// through: readonly.SecretExistenceRead); a list or watch never.
		if e.Resource == "secrets" && (e.Verb != "get" || e.Name == "" || !strings.HasSuffix(e.RequestURI, "?includeObject=None")) {
			t.Errorf("secret read reached the API server: %s %s", e.Verb, e.RequestURI)
		}
	}
	n := 0
	for _, e := range events {
		if !discovery(e.RequestURI) {
			n++
		}
	}
	return n
}

// discovery is an API discovery request (/api, /apis, /apis/GROUP[/VERSION]):
// cached on disk by the client after the first run, so the request budget
// counts object requests only.
func discovery(uri string) bool {
	path, _, _ := strings.Cut(uri, "?")
	switch parts := strings.Split(strings.Trim(path, "/"), "/"); {
	case len(parts) == 1:
		return parts[0] == "api" || parts[0] == "apis"
	case parts[0] == "api":
		return len(parts) == 2
	case parts[0] == "apis":
		return len(parts) <= 3
	}
	return false
}

// assertWorkspace checks the layout and lifecycle of a finished incident.
func assertWorkspace(t *testing.T, dir string, want incident.Status) *incident.Incident {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("workspace mode %v, want 0700", fi.Mode().Perm())
	}
	for _, f := range []string{"incident.json", "PROMPT.md", "context/event.json", "context/cluster-info.json",
		"context/events.json", "context/logs.txt", "context/system-instructions.txt", "context/resources", "output"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("workspace lacks %s: %v", f, err)
		}
	}
	inc := loadIncident(t, dir)
	if inc.Status != want {
		t.Errorf("incident status %q (reason %q), want %q", inc.Status, inc.FailureReason, want)
	}
	if inc.IncidentID != filepath.Base(dir) || inc.Workspace != dir {
		t.Errorf("incident id/workspace %s %s do not match the directory %s", inc.IncidentID, inc.Workspace, dir)
	}
	if inc.TriggeringEventID == "" || inc.CreatedAt.IsZero() {
		t.Errorf("incident lacks triggeringEventId or createdAt: %+v", inc)
	}
	if want == incident.Resolved {
		if inc.Agent.State != incident.AgentSuccess || inc.StartedAt == nil || inc.CompletedAt == nil || inc.Agent.ExitCode == nil || *inc.Agent.ExitCode != 0 {
			t.Errorf("resolved incident lifecycle incomplete: agent %+v started %v completed %v", inc.Agent, inc.StartedAt, inc.CompletedAt)
		}
		if inc.StartedAt != nil && inc.CompletedAt != nil && (inc.StartedAt.Before(inc.CreatedAt) || inc.CompletedAt.Before(*inc.StartedAt)) {
			t.Errorf("timestamps out of order: created %v started %v completed %v", inc.CreatedAt, inc.StartedAt, inc.CompletedAt)
		}
		if inc.Report == nil || inc.Report.RootCause == "" {
			t.Errorf("resolved incident has no report headline")
		}
	}
	// The event is the input, kept verbatim: the incident copies from it.
	var ev map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "context/event.json"))
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Errorf("context/event.json is not JSON: %v", err)
	} else if _, has := ev["status"]; has {
		t.Errorf("event.json carries incident fields: %v", ev)
	}
	return inc
}

// readReportJSON loads output/investigation.json.
func readReportJSON(t *testing.T, dir string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "output", "investigation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// pluginBinary is the built kubectl-triage, for tests that run it as a user
// would (exit codes, stdout/stderr split).
func pluginBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KUBECTL_TRIAGE_BIN"); p != "" {
		return p
	}
	bin := filepath.Join(t.TempDir(), "kubectl-triage")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/kubectl-triage/kubectl-triage/cmd/kubectl-triage").CombinedOutput()
	if err != nil {
		t.Fatalf("build plugin: %v\n%s", err, out)
	}
	return bin
}
