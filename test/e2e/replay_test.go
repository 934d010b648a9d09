package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// unreachableKubeconfig points at a loopback port nothing listens on: any
// client the replay built would fail to connect.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: nope}}]
contexts: [{name: gone, context: {cluster: gone, user: u}}]
current-context: gone
`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func treeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			m[p] = string(data)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReplayLiveIncident: a live triage on the real control plane, then
// `kubectl triage replay` of its workspace with no cluster reachable: the
// same Root cause, no difference with --diff, no request reaches the API
// server even when the kubeconfig could reach it, and the workspace is
// left as it was.
func TestReplayLiveIncident(t *testing.T) {
	c := testcluster.Get(t)
	for _, name := range []string{"crashloop-missing-env", "net-service-selector-typo", "container-config-missing-configmap-key"} {
		t.Run(name, func(t *testing.T) {
			ns := c.Namespace(t)
			live := triage(t, c, ns, scenarioNamed(name).setup(t, c, ns)...)
			if live.code != 0 {
				t.Fatalf("live triage: exit %d\n%s", live.code, live.stderr)
			}
			dir := onlyWorkspace(t, live.root)
			id := filepath.Base(dir)
			before := treeSnapshot(t, dir)
			wantRC := report.Sections(live.stdout)["root cause"]
			if wantRC == "" {
				t.Fatalf("live report has no Root cause section:\n%s", live.stdout)
			}
			offline := []string{"KUBECONFIG=" + unreachableKubeconfig(t), "HOME=" + t.TempDir(), "WORKSPACE_ROOT=" + live.root}

			for _, ref := range []string{dir, id[:8]} {
				code, stdout, stderr := runBinary(t, offline, "replay", ref)
				if code != 0 || stderr != "" {
					t.Fatalf("replay %s: exit %d, stderr %q", ref, code, stderr)
				}
				if got := report.Sections(stdout)["root cause"]; got != wantRC {
					t.Errorf("replay %s: Root cause\n%s\nwant (live)\n%s", ref, got, wantRC)
				}
			}
			code, stdout, stderr := runBinary(t, offline, "replay", id, "--diff")
			if code != 0 || !strings.HasPrefix(stdout, "No difference") || strings.Count(stdout, "\n") != 1 {
				t.Errorf("replay --diff: exit %d, stdout\n%s\nstderr %s", code, stdout, stderr)
			}
			code, stdout, _ = runBinary(t, offline, "replay", id, "-o", "json")
			var rep report.Report
			if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || rep.IncidentID != id {
				t.Errorf("replay -o json: exit %d, %v, incident %q", code, err, rep.IncidentID)
			}

			// With a kubeconfig that could reach the cluster, still nothing.
			mark := c.AuditMark()
			code, _, stderr = runBinary(t, []string{"KUBECONFIG=" + c.UserKubeconfig, "HOME=" + t.TempDir()}, "replay", dir)
			if code != 0 {
				t.Errorf("replay with a reachable kubeconfig: exit %d, %s", code, stderr)
			}
			if ev := c.AuditSince(t, mark, c.UserName); len(ev) != 0 {
				t.Errorf("replay made %d API requests, want none: first %s %s", len(ev), ev[0].Verb, ev[0].RequestURI)
			}
			after := treeSnapshot(t, dir)
			if len(after) != len(before) {
				t.Errorf("replay changed the workspace: %d files, had %d", len(after), len(before))
			}
			for p, data := range before {
				if after[p] != data {
					t.Errorf("replay changed %s", p)
				}
			}
		})
	}
}

// TestReplayRealCapture: the binary replays a workspace the real-node tier
// captured from a real kubelet, offline, to the root cause recorded then.
func TestReplayRealCapture(t *testing.T) {
	dir := filepath.Join("..", "..", "pkg", "investigate", "testdata", "real", "crashloop-envconfig", "back-off")
	offline := []string{"KUBECONFIG=" + unreachableKubeconfig(t), "HOME=" + t.TempDir()}
	code, stdout, stderr := runBinary(t, offline, "replay", dir)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	rc := report.Sections(stdout)["root cause"]
	if !strings.Contains(rc, "DATABASE_URL") {
		t.Errorf("Root cause does not name DATABASE_URL:\n%s", rc)
	}
	// The recorded report is an older build's: --diff may find this build
	// words it differently (exit 2), but it compares with that record.
	code, stdout, _ = runBinary(t, offline, "replay", dir, "--diff")
	if (code != 0 && code != 2) || !strings.Contains(stdout, "investigation.json") {
		t.Errorf("--diff against the recorded report: exit %d\n%s", code, stdout)
	}
}

// assertReplays: `kubectl triage replay --diff` of a live incident's
// workspace finds no difference (every scenario goes through it, so what
// bundle.Load gives back is what the live run collected).
func assertReplays(t *testing.T, dir string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cmd.Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, []string{"replay", dir, "--diff"})
	if code != 0 || !strings.HasPrefix(out.String(), "No difference") {
		t.Errorf("replay --diff of the workspace: exit %d, stderr %s\n%s", code, errOut.String(), out.String())
	}
}
