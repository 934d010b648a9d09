package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// triageStdin is triage() with standard input.
func triageStdin(t *testing.T, c *testcluster.Cluster, stdin string, args ...string) run {
	t.Helper()
	root := filepath.Join(t.TempDir(), "incidents")
	full := append([]string{"--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache"), "--workspace-root", root}, args...)
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := cmd.Run(ctx, genericiooptions.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}, full)
	return run{code: code, stdout: out.String(), stderr: errOut.String(), root: root}
}

// TestFaultFile: a fault event in today's flat shape, from a file, triages
// its resource; event.json is the file's bytes, verbatim.
func TestFaultFile(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	pod, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), "api", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	event := fmt.Sprintf(`{"subscriptionId":"sub-1","cluster":"prod","faultId":"f1","faultType":"CrashLoop","severity":"critical","resource":{"apiVersion":"v1","kind":"Pod","name":"api","namespace":%q,"uid":%q},"context":"Container entered CrashLoopBackOff","timestamp":"2026-11-21T15:46:27Z"}`, ns, pod.UID)
	file := filepath.Join(t.TempDir(), "fault.json")
	os.WriteFile(file, []byte(event), 0o600)
	r := triage(t, c, "", "--fault-file", file)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(rootCauseSection(r.stdout), "DATABASE_URL") {
		t.Errorf("report does not name the cause:\n%s", r.stdout)
	}
	dir := onlyWorkspace(t, r.root)
	inc := assertWorkspace(t, dir, incident.Resolved)
	if inc.FaultType != "CrashLoop" || inc.Severity != "critical" || inc.Cluster != "prod" {
		t.Errorf("incident did not take the event's facts: %+v", inc)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "context", "event.json")); string(got) != event {
		t.Errorf("event.json is not the event verbatim:\n%s", got)
	}
}

// TestFaultFileResourceGone: a legacy nested frame on stdin for a pod that
// no longer exists: the report says so and uses the log line the event
// carried.
func TestFaultFileResourceGone(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"kubernetes/faults","data":{"subscriptionId":"s","cluster":"prod-east","event":{"namespace":%q,"timestamp":"2026-11-21T15:40:02Z","type":"Warning","reason":"BackOff","message":"Back-off restarting failed container api","involvedObject":{"apiVersion":"v1","kind":"Pod","name":"checkout-7d9f6c5b8-x2kq9","namespace":%q,"uid":"6f1c2d3e-0000-4000-8000-00000000a001"},"count":7},"logs":[{"container":"api","previous":true,"hasPanic":false,"sample":"2026-11-21T15:39:58Z FATAL config: required env DATABASE_URL is empty"}]}}}`, ns, ns)
	r := triageStdin(t, c, frame, "--fault-file", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	section := rootCauseSection(r.stdout)
	if !strings.Contains(section, "no longer exists") || !strings.Contains(section, "DATABASE_URL") {
		t.Errorf("report for a gone pod:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "no longer exists") {
		t.Errorf("progress should say the resource is gone: %s", r.stderr)
	}
	assertWorkspace(t, onlyWorkspace(t, r.root), incident.Resolved)
}

func TestFaultFileErrors(t *testing.T) {
	c := testcluster.Get(t)
	for name, tt := range map[string]struct {
		stdin string
		args  []string
		want  string
	}{
		"not json":      {"{nope", []string{"--fault-file", "-"}, "not valid JSON"},
		"no resource":   {`{"faultType":"CrashLoop","severity":"critical"}`, []string{"--fault-file", "-"}, "has no resource"},
		"args and file": {"", []string{"pod/x", "--fault-file", "-"}, "--fault-file names the resource itself"},
		"missing file":  {"", []string{"--fault-file", "/nonexistent/fault.json"}, "no such file"},
	} {
		t.Run(name, func(t *testing.T) {
			r := triageStdin(t, c, tt.stdin, tt.args...)
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, tt.want)
			}
			if entries, _ := os.ReadDir(r.root); len(entries) != 0 {
				t.Errorf("bad input created a workspace")
			}
		})
	}
}
