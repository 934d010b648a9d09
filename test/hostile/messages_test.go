package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestHostileMessages: what a new user (or an attacker) types wrong gets one
// correct, lower-case, kubectl-like line and exit 1.
func TestHostileMessages(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	dir := t.TempDir()
	root := filepath.Join(dir, "incidents")
	laughs := "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	prev := "a"
	for _, k := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		laughs += k + ": &" + k + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n"
		prev = k
	}
	laughsFile := filepath.Join(dir, "laughs.yaml")
	if err := os.WriteFile(laughsFile, []byte(laughs), 0o600); err != nil {
		t.Fatal(err)
	}
	pathFault := writeTemp(t, `{"faultType":"CrashLoop","severity":"warning","resource":{"kind":"Pod","name":"../../etc","namespace":"`+ns+`"}}`)

	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"missing namespace", nil, []string{"pod/victim", "-n", "nosuchns-hostile"}, `namespace "nosuchns-hostile" not found`},
		{"path-like name from a fault", nil, []string{"--fault-file", pathFault}, `"../../etc" is not a valid pod name`},
		{"billion laughs", nil, []string{"--config", laughsFile, "pod/victim", "-n", ns}, "aliases of lists or mappings"},
		{"bad LOG_LEVEL", []string{"LOG_LEVEL=nope"}, []string{"pod/victim", "-n", ns}, `invalid LOG_LEVEL="nope"`},
		{"blank WORKSPACE_ROOT", nil, []string{"pod/victim", "-n", ns, "--workspace-root", " "}, `workspace root " " is blank`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runEnv(t, c, root, tc.env, tc.args...)
			msg := strings.TrimSpace(r.stderr)
			lines := strings.Split(msg, "\n")
			last := lines[len(lines)-1]
			if r.code != 1 || !strings.HasPrefix(last, "error: ") || !strings.Contains(last, tc.want) {
				t.Errorf("exit %d, want 1 and a line with %q:\n%s", r.code, tc.want, r.stderr)
			}
			for _, l := range lines {
				if strings.HasPrefix(l, "Error") {
					t.Errorf("capitalised error line: %q", l)
				}
			}
			if len(lines) > 2 { // at most a progress line before the error
				t.Errorf("%d lines of stderr, want one error line:\n%s", len(lines), r.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), " ")); err == nil {
		t.Error(`a directory named " " was created`)
	}

	// -v N is kubectl's verbosity: the run works and client-go logs its requests.
	r := run(t, c, root, "pod/victim", "-n", ns, "-v=6")
	if r.code != 0 || !(strings.Contains(r.stderr, "GET https://") || strings.Contains(r.stderr, `verb="GET" url="https://`)) {
		t.Errorf("-v=6: exit %d, want 0 with client-go request logs:\n%s", r.code, r.stderr)
	}
	// No kubeconfig at all says so, not "cannot reach http://localhost:8080".
	cmd := plugin(t, c, root, "pod/victim")
	cmd.Args = []string{cmd.Args[0], "pod/victim", "--workspace-root", root}
	cmd.Env = append(cmd.Env, "KUBECONFIG=", "HOME="+filepath.Join(dir, "nohome"))
	r = runCmd(t, cmd, 2*time.Minute)
	if r.code != 1 || !strings.Contains(r.stderr, "no kubeconfig found") || strings.Contains(r.stderr, "localhost:8080") {
		t.Errorf("no kubeconfig: exit %d\n%s", r.code, r.stderr)
	}
	// Counts agree in number.
	r = run(t, c, root, "pod/victim", "-n", ns)
	if strings.Contains(r.stderr, "1 log streams") || strings.Contains(r.stderr, "1 events,") {
		t.Errorf("plural of one:\n%s", r.stderr)
	}
	if g := run(t, c, root, "gc", "--older-than", "1h"); strings.Contains(g.stdout, "0.0 MiB") {
		t.Errorf("gc says 0.0 MiB: %s", g.stdout)
	}
}
