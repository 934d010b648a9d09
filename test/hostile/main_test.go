// Package hostile is the hostile-input suite: it attacks kubectl triage the
// way a hostile tester would, on a real control plane (test/testcluster),
// through the built binary, and checks that nothing is lost and nothing
// leaks: planted secrets of every family never reach disk or a terminal,
// escape sequences from the cluster never reach stdout or a report, an
// agent's report that quotes credentials is redacted on every outcome,
// text hidden from a person (tag, zero-width, bidi characters) reaches no
// report, MCP result, watch line, Slack message or log as itself, runs
// killed at any moment never leave an incident stuck, Ctrl-C works from the
// first millisecond, a full disk ends cleanly, concurrent runs share a
// root safely and links, pipes and huge files left in a workspace or a
// store are refused by every reader. Its figures are printed at the end (and written to
// $KUBECTL_TRIAGE_HOSTILE_FIGURES when set, for make test to show).
package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// figures are what the suite did, printed at the end.
var figures struct {
	secretsPlanted, secretsFound    atomic.Int64 // found = leaked: must stay 0
	filesScanned, bytesScanned      atomic.Int64
	escapeProbes, escapeLeaks       atomic.Int64
	kills, killsSurvived            atomic.Int64
	interrupts, interruptsExited130 atomic.Int64
	diskFullSteps, diskFullClean    atomic.Int64
	concurrentRuns, concurrentClean atomic.Int64
	// MCP over HTTP and install (mcphttp_test.go, install_test.go).
	originProbes, originForeignAccepted, originLocalRefused atomic.Int64
	longArgProbes, longArgLongestError                      atomic.Int64
	capProbes, capLargestStructured, capLargestWire         atomic.Int64
	installProbes, installPrinted                           atomic.Int64
	leakyPlanted, leakyFound                                atomic.Int64 // found = leaked: must stay 0
	leakyOutcomes                                           atomic.Int64
	hiddenProbes, hiddenLeaks                               atomic.Int64 // leaks must stay 0
	// Links, pipes, /dev/zero and sparse files read back by the readers
	// of workspaces and stores; followed = printed, hung, over the memory
	// bound or changed: must stay 0.
	filesReadBack, filesFollowed atomic.Int64
	filesPeakRSS, filesSlowest   atomic.Int64 // bytes, nanoseconds
}

// storeMax raises v to n when n is larger.
func storeMax(v *atomic.Int64, n int64) {
	for old := v.Load(); n > old && !v.CompareAndSwap(old, n); old = v.Load() {
	}
}

func printFigures() string {
	f := &figures
	var b strings.Builder
	fmt.Fprintf(&b, "hostile-input suite figures:\n")
	fmt.Fprintf(&b, "  secrets planted %d, found on disk or stdout/stderr %d (%d files, %d bytes scanned)\n",
		f.secretsPlanted.Load(), f.secretsFound.Load(), f.filesScanned.Load(), f.bytesScanned.Load())
	fmt.Fprintf(&b, "  escape-sequence probes %d, reaching a terminal or a report %d\n", f.escapeProbes.Load(), f.escapeLeaks.Load())
	fmt.Fprintf(&b, "  kill -9 points %d, survived (no stuck incident, gc leaves the root clean) %d\n", f.kills.Load(), f.killsSurvived.Load())
	fmt.Fprintf(&b, "  SIGINT/SIGTERM points %d, exited 130 with nothing half-written %d\n", f.interrupts.Load(), f.interruptsExited130.Load())
	fmt.Fprintf(&b, "  full-disk steps %d, ended failed with a reason or left nothing %d\n", f.diskFullSteps.Load(), f.diskFullClean.Load())
	fmt.Fprintf(&b, "  concurrent triages into one root %d, recorded and listed %d\n", f.concurrentRuns.Load(), f.concurrentClean.Load())
	fmt.Fprintf(&b, "  MCP HTTP Origin probes %d, foreign Origin given a session %d, loopback or none refused %d\n",
		f.originProbes.Load(), f.originForeignAccepted.Load(), f.originLocalRefused.Load())
	fmt.Fprintf(&b, "  MCP arguments of 4 KiB to 4 MiB %d, longest error answered %d bytes\n", f.longArgProbes.Load(), f.longArgLongestError.Load())
	fmt.Fprintf(&b, "  MCP 60,000-file evidence listings %d, largest structured content %d bytes (cap %d), largest answer on the wire %d bytes\n",
		f.capProbes.Load(), f.capLargestStructured.Load(), mcpOutputCap, f.capLargestWire.Load())
	fmt.Fprintf(&b, "  install --print into kube-* or default %d, printed manifests %d\n", f.installProbes.Load(), f.installPrinted.Load())
	fmt.Fprintf(&b, "  credentials an agent's report quotes %d (%d outcomes), found in the workspace, output, show or MCP %d\n",
		f.leakyPlanted.Load(), f.leakyOutcomes.Load(), f.leakyFound.Load())
	fmt.Fprintf(&b, "  hidden-text probes (tag, zero-width, bidi characters) %d, reaching a report, MCP, a watch line, Slack or a log %d\n",
		f.hiddenProbes.Load(), f.hiddenLeaks.Load())
	fmt.Fprintf(&b, "  hostile workspace files read back %d, followed, hung or over the memory bound %d (largest peak RSS %d MB, slowest run %s)\n",
		f.filesReadBack.Load(), f.filesFollowed.Load(), f.filesPeakRSS.Load()>>20, time.Duration(f.filesSlowest.Load()).Round(time.Millisecond))
	return b.String()
}

func TestMain(m *testing.M) {
	config, err := os.MkdirTemp("", "kubectl-triage-hostile-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", config)
	for _, name := range cmd.EnvironmentNames() {
		os.Unsetenv(name)
	}
	code := testcluster.Main(m)
	os.RemoveAll(config)
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath)) // the plugin built for this run
	}
	out := printFigures()
	fmt.Fprint(os.Stderr, out)
	if p := os.Getenv("KUBECTL_TRIAGE_HOSTILE_FIGURES"); p != "" {
		_ = os.WriteFile(p, []byte(out), 0o644)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// pluginBinary is the built kubectl-triage (KUBECTL_TRIAGE_BIN, or built
// once for the package).
func pluginBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KUBECTL_TRIAGE_BIN"); p != "" {
		return p
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kubectl-triage-hostile-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "kubectl-triage")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/kubectl-triage/kubectl-triage/cmd/kubectl-triage").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build plugin: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// result is one finished invocation of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// plugin prepares the binary with the workspace root and, for the
// commands that talk to the cluster, the user's kubeconfig and the cluster's
// shared discovery cache.
func plugin(t testing.TB, c *testcluster.Cluster, root string, args ...string) *exec.Cmd {
	t.Helper()
	cluster := []string{"--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(c.Dir, "kube-cache")}
	var full []string
	switch {
	case len(args) > 0 && args[0] == "watch":
		full = append(append([]string{"watch", "--workspace-root", root}, cluster...), args[1:]...)
	case len(args) > 0 && isSubcommand(args[0]):
		full = append([]string{args[0], "--workspace-root", root}, args[1:]...)
	default:
		full = append(append(cluster, "--workspace-root", root), args...)
	}
	cmd := exec.Command(pluginBinary(t), full...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(filepath.Dir(root), "state"), "KUBECTL_TRIAGE_CONFIG=")
	return cmd
}

func isSubcommand(s string) bool {
	switch s {
	case "list", "show", "status", "gc", "cancel", "watch":
		return true
	}
	return false
}

// run runs the binary to completion (at most two minutes).
func run(t testing.TB, c *testcluster.Cluster, root string, args ...string) result {
	t.Helper()
	cmd := plugin(t, c, root, args...)
	return runCmd(t, cmd, 2*time.Minute)
}

func runCmd(t testing.TB, cmd *exec.Cmd, timeout time.Duration) result {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not finish within %s\nstderr:\n%s", strings.Join(cmd.Args, " "), timeout, errOut.String())
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// listed is one line of `list -o json`.
type listed struct {
	IncidentID    string `json:"incidentId"`
	Status        string `json:"status"`
	FailureReason string `json:"failureReason"`
}

// listJSON returns the incidents of a root as list -o json reports them.
func listJSON(t testing.TB, c *testcluster.Cluster, root string) []incident.Incident {
	t.Helper()
	r := run(t, c, root, "list", "-o", "json")
	if r.code != 0 {
		t.Fatalf("list: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Items []incident.Incident `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		var items []incident.Incident
		if err2 := json.Unmarshal([]byte(r.stdout), &items); err2 != nil {
			t.Fatalf("list -o json: %v\n%s", err, r.stdout)
		}
		return items
	}
	return doc.Items
}

// rootEntries lists everything in a workspace root, hidden entries too.
func rootEntries(t testing.TB, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// walkFiles calls f for every regular file under dir.
func walkFiles(t testing.TB, dir string, f func(path string, data []byte)) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			f(p, data)
		}
		return nil
	})
}

func ctxTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
