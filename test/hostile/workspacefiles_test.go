package hostile

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The readers of a workspace or a store (show, list, replay, the MCP
// server, the engine after an exec agent) meet what an agent, or whoever
// shared a workspace, left there: links to the user's kubeconfig or a CA
// key, named pipes, /dev/zero, a 3 GiB sparse file. None may be followed,
// block, or be read whole: each is refused in one line, promptly, within a
// loose memory bound, and left as it was.

// rssBound is the loose peak-memory bound of one reading command: a
// correctness bound (nothing read whole), not a speed target.
const rssBound = 200 << 20

// promptly is how long a refusal may take: far above what it takes, far
// below a hang.
const promptly = 30 * time.Second

// measured is one run of the binary with its peak RSS and wall time.
type measured struct {
	result
	rss  int64
	took time.Duration
}

// runMeasured runs cmd to completion (at most promptly, then it is killed
// and the test fails) and records the figures.
func runMeasured(t *testing.T, cmd *exec.Cmd) measured {
	t.Helper()
	start := time.Now()
	r := runCmd(t, cmd, promptly)
	m := measured{result: r, took: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rss = int64(ru.Maxrss) << 10 // KiB on Linux
	}
	figures.filesReadBack.Add(1)
	for {
		old := figures.filesPeakRSS.Load()
		if m.rss <= old || figures.filesPeakRSS.CompareAndSwap(old, m.rss) {
			break
		}
	}
	for {
		old := figures.filesSlowest.Load()
		if int64(m.took) <= old || figures.filesSlowest.CompareAndSwap(old, int64(m.took)) {
			break
		}
	}
	return m
}

// countFailure counts the test in the figures' failures when it fails,
// however it ends (a hang ends in t.Fatal).
func countFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			figures.filesFollowed.Add(1)
		}
	})
}

// bare is the binary with args only (replay takes no cluster flags).
func bare(t *testing.T, root string, args ...string) *exec.Cmd {
	cmd := exec.Command(pluginBinary(t), args...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(filepath.Dir(root), "state"), "KUBECTL_TRIAGE_CONFIG=")
	return cmd
}

// hostileFiles is a resolved incident, in a workspace root and in a
// file:// store, and the credentials a link could lead to.
type hostileFiles struct {
	root, ws, store, stored, id string
	kubeconfig, caKey, token    string
	keyLine                     string // a body line of the CA key
}

func newHostileFiles(t *testing.T, c *testcluster.Cluster) *hostileFiles {
	t.Helper()
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	base := t.TempDir()
	h := &hostileFiles{root: filepath.Join(base, "incidents"), store: filepath.Join(base, "store")}
	r := run(t, c, h.root, "pod/victim", "-n", ns, "--store", "file://"+h.store)
	if r.code != 0 {
		t.Fatalf("triage: exit %d\n%s", r.code, r.stderr)
	}
	ids := incidentDirs(t, h.root)
	if len(ids) != 1 {
		t.Fatalf("incidents %v", ids)
	}
	h.id, h.ws = ids[0], filepath.Join(h.root, ids[0])
	_ = filepath.WalkDir(h.store, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "incident.json" {
			h.stored = filepath.Dir(p)
		}
		return nil
	})
	if h.stored == "" {
		t.Fatalf("the incident is not in the store %s", h.store)
	}
	secrets := t.TempDir()
	h.token = unique("admin-", "t0ken-planted-in-kubeconfig-9f3")
	h.kubeconfig = filepath.Join(secrets, "config")
	write(t, h.kubeconfig, "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: "+h.token+"\n")
	block, body := pemKey(t, true)
	h.caKey, h.keyLine = filepath.Join(secrets, "ca.key"), body[len(body)/2]
	write(t, h.caKey, block)
	return h
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// plant replaces p with what leave puts there; restore (also run when
// the test ends) puts the original back.
func plant(t *testing.T, p string, leave func(p string) error) (restore func()) {
	t.Helper()
	saved := p + ".hostile-saved"
	if err := os.Rename(p, saved); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	restore = func() {
		once.Do(func() {
			os.Remove(p)
			os.Rename(saved, p)
		})
	}
	t.Cleanup(restore)
	if err := leave(p); err != nil {
		t.Skip(err)
	}
	return restore
}

func linkTo(target string) func(string) error {
	return func(p string) error { return os.Symlink(target, p) }
}

func fifo(p string) error { return syscall.Mkfifo(p, 0o600) }

// sparse copies p's content and makes it 3 GiB long without the blocks.
func sparse(orig string) func(string) error {
	return func(p string) error {
		data, err := os.ReadFile(orig)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
		return os.Truncate(p, 3<<30)
	}
}

// TestWorkspaceFilesAreRefused plants a link, a pipe, /dev/zero or a 3 GiB
// sparse file where each reader reads, and runs the real reader on it.
func TestWorkspaceFilesAreRefused(t *testing.T) {
	c := testcluster.Get(t)
	h := newHostileFiles(t, c)
	storeURL := "file://" + h.store
	report := func(dir string) string { return filepath.Join(dir, "output", "investigation.md") }
	data := func(dir string) string { return filepath.Join(dir, "output", "investigation.json") }
	events := filepath.Join(h.ws, "context", "events.json")
	resource := ""
	if m, _ := filepath.Glob(filepath.Join(h.ws, "context", "resources", "*.json")); len(m) > 0 {
		resource = m[0]
	}
	// A valid record of the same incident, outside its workspace.
	outside := filepath.Join(t.TempDir(), "incident.json")
	raw, err := os.ReadFile(filepath.Join(h.ws, "incident.json"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, outside, string(raw))
	for _, tc := range []struct {
		name   string
		file   string
		leave  func(p string) error
		args   []string // the reading command; replay runs bare
		want   string   // in the one-line error
		listed bool     // list: exit 0, the incident skipped with a warning
	}{
		{"show: report linked to a kubeconfig", report(h.ws), linkTo(h.kubeconfig), []string{"show", h.id}, "investigation.md is a symbolic link (not followed)", false},
		{"show --store file://: report linked to a kubeconfig", report(h.stored), linkTo(h.kubeconfig), []string{"show", h.id, "--store", storeURL}, "investigation.md is a symbolic link (not followed)", false},
		{"show --store file:// --json: report data linked to a CA key", data(h.stored), linkTo(h.caKey), []string{"show", h.id, "--json", "--store", storeURL}, "investigation.json is a symbolic link (not followed)", false},
		{"replay --diff: report linked to a kubeconfig", report(h.ws), linkTo(h.kubeconfig), []string{"replay", h.ws, "--diff"}, "investigation.md is a symbolic link (not followed)", false},
		{"replay: report data linked to a CA key", data(h.ws), linkTo(h.caKey), []string{"replay", h.ws, "-o", "json"}, "investigation.json is a symbolic link (not followed)", false},
		{"list: incident.json linked", filepath.Join(h.ws, "incident.json"), linkTo(outside), []string{"list"}, "incident.json is a symbolic link (not followed)", true},
		{"list --store file://: incident.json linked", filepath.Join(h.stored, "incident.json"), linkTo(outside), []string{"list", "--store", storeURL}, "incident.json is a symbolic link (not followed)", true},
		{"show: report linked to /dev/zero", report(h.ws), linkTo("/dev/zero"), []string{"show", h.id}, "investigation.md is a symbolic link (not followed)", false},
		{"show: 3 GiB sparse report", report(h.ws), sparse(report(h.ws) + ".hostile-saved"), []string{"show", h.id}, "investigation.md exceeds 8 MiB (it is 3.0 GiB)", false},
		{"show --store file://: 3 GiB sparse report", report(h.stored), sparse(report(h.stored) + ".hostile-saved"), []string{"show", h.id, "--store", storeURL}, "investigation.md exceeds 8 MiB (it is 3.0 GiB)", false},
		{"show: report a named pipe", report(h.ws), fifo, []string{"show", h.id}, "investigation.md is not a regular file (it is a named pipe)", false},
		{"status: incident.json a named pipe", filepath.Join(h.ws, "incident.json"), fifo, []string{"status", h.id}, "incident.json is not a regular file (it is a named pipe)", false},
		{"replay: events.json a named pipe", events, fifo, []string{"replay", h.ws}, "events.json is not a regular file (it is a named pipe)", false},
		{"replay: a resource a named pipe", resource, fifo, []string{"replay", h.ws}, ".json is not a regular file (it is a named pipe)", false},
		{"replay: events.json linked to /dev/zero", events, linkTo("/dev/zero"), []string{"replay", h.ws}, "events.json is a symbolic link (not followed)", false},
		{"replay: 3 GiB sparse events.json", events, sparse(events + ".hostile-saved"), []string{"replay", h.ws}, "events.json exceeds 32 MiB (it is 3.0 GiB)", false},
		{"replay: context/ linked", filepath.Join(h.ws, "context"), func(p string) error { return os.Symlink(p+".hostile-saved", p) }, []string{"replay", h.ws}, "context is a symbolic link (not followed)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			countFailure(t)
			if tc.file == "" {
				t.Skip("no resource file was collected")
			}
			plant(t, tc.file, tc.leave)
			before, _ := os.Lstat(tc.file)
			var cmd *exec.Cmd
			if tc.args[0] == "replay" {
				cmd = bare(t, h.root, tc.args...)
			} else {
				cmd = plugin(t, c, h.root, tc.args...)
			}
			m := runMeasured(t, cmd)
			fail := t.Errorf
			printed := m.stdout + m.stderr
			if strings.Contains(printed, h.token) || strings.Contains(printed, h.keyLine) {
				fail("a credential behind the link was printed:\n%s", printed)
			}
			if tc.listed {
				if m.code != 0 || strings.Contains(m.stdout, h.id[:8]) || !strings.Contains(m.stderr, "warning: skipping ") || !strings.Contains(m.stderr, tc.want) {
					fail("exit %d; want 0, the incident not listed and a warning with %q\nstdout:\n%s\nstderr:\n%s", m.code, tc.want, m.stdout, m.stderr)
				}
			} else if m.code != 1 || !strings.Contains(m.stderr, tc.want) || strings.Count(strings.TrimSpace(m.stderr), "\n") > 0 {
				fail("exit %d; want 1 and one line with %q\nstdout:\n%s\nstderr:\n%s", m.code, tc.want, m.stdout, m.stderr)
			}
			if m.rss > rssBound {
				fail("peak RSS %d MB, bound %d MB", m.rss>>20, rssBound>>20)
			}
			if after, err := os.Lstat(tc.file); err != nil || after.Mode() != before.Mode() || after.Size() != before.Size() {
				fail("the refused file was changed: %v → %v (%v)", before, after, err)
			}
		})
	}
}

// TestExecAgentLeavesAPipe: an exec agent that exits leaving its report's
// data as a named pipe (and a pipe where its markdown goes, in a second
// run) does not hold the plugin: the run ends promptly in a terminal state
// with the report from its stdout, and the pipe is left alone.
func TestExecAgentLeavesAPipe(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	for _, file := range []string{"output/investigation.json", "output/investigation.md"} {
		t.Run(file, func(t *testing.T) {
			countFailure(t)
			script := filepath.Join(t.TempDir(), "agent.sh")
			write(t, script, "#!/bin/sh\ncat >/dev/null\nmkfifo "+file+"\n"+
				"printf '# Triage: Pod/victim — pipe\\n\\n## Summary\\nthe agent left a pipe\\n\\n## Root cause\\nDATABASE_URL is empty\\n'\n")
			os.Chmod(script, 0o755)
			root := filepath.Join(t.TempDir(), "incidents")
			m := runMeasured(t, plugin(t, c, root, "pod/victim", "-n", ns, "--agent-command", script))
			ids := incidentDirs(t, root)
			if m.code != 0 || len(ids) != 1 {
				t.Fatalf("exit %d, incidents %v\nstderr:\n%s", m.code, ids, m.stderr)
			}
			st := run(t, c, root, "status", ids[0])
			sh := run(t, c, root, "show", ids[0])
			if !strings.Contains(st.stdout, "resolved") || sh.code != 0 || !strings.Contains(sh.stdout, "DATABASE_URL is empty") {
				t.Errorf("status:\n%s\nshow: exit %d\n%s%s", st.stdout, sh.code, sh.stdout, sh.stderr)
			}
			if file == "output/investigation.json" {
				if fi, err := os.Lstat(filepath.Join(root, ids[0], file)); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
					t.Errorf("the agent's pipe was not left alone: %v %v", fi, err)
				}
				if !strings.Contains(m.stderr, "investigation.json is not a regular file (it is a named pipe)") {
					t.Errorf("no warning names the refused file:\n%s", m.stderr)
				}
			}
		})
	}
}

// TestMCPShowIncidentRefuses: show_incident on a report linked to a
// kubeconfig is a one-line tool error without the token; on a report that
// is a named pipe, called many times, it holds no descriptor or thread
// (before, each call held a thread and two descriptors until the server
// ran out of them), and the server still answers.
func TestMCPShowIncidentRefuses(t *testing.T) {
	c := testcluster.Get(t)
	h := newHostileFiles(t, c)
	countFailure(t)
	cmd := exec.Command(pluginBinary(t), "mcp", "--kubeconfig", c.UserKubeconfig, "--cache-dir", filepath.Join(c.Dir, "kube-cache"), "--workspace-root", h.root)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(filepath.Dir(h.root), "state"), "KUBECTL_TRIAGE_CONFIG=")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	show := func() (*mcp.CallToolResult, string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "show_incident", Arguments: map[string]any{"id": h.id}})
		if err != nil {
			t.Fatalf("show_incident: %v", err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return res, text
	}

	report := filepath.Join(h.ws, "output", "investigation.md")
	restore := plant(t, report, linkTo(h.kubeconfig))
	res, text := show()
	figures.filesReadBack.Add(1)
	if !res.IsError || strings.Contains(text, h.token) || !strings.Contains(text, "output/investigation.md is a symbolic link (not followed)") || strings.Contains(strings.TrimSpace(text), "\n") {
		t.Errorf("show_incident on a linked report: error %v, %q", res.IsError, text)
	}
	restore()

	plant(t, report, fifo)
	pid := cmd.Process.Pid
	fds0, threads0 := procCounts(t, pid)
	const calls = 300
	start := time.Now()
	for i := 0; i < calls; i++ {
		if res, text := show(); !res.IsError || !strings.Contains(text, "is not a regular file (it is a named pipe)") {
			t.Fatalf("call %d: error %v, %q", i, res.IsError, text)
		}
	}
	took := time.Since(start)
	figures.filesReadBack.Add(calls)
	fds1, threads1 := procCounts(t, pid)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_incidents", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("the server no longer answers after %d refused reads: %v %+v", calls, err, res)
	}
	t.Logf("%d show_incident calls on a pipe in %s: fds %d → %d, threads %d → %d", calls, took, fds0, fds1, threads0, threads1)
	if fds1 > fds0+5 || threads1 > threads0+10 {
		t.Errorf("after %d calls: fds %d → %d, threads %d → %d", calls, fds0, fds1, threads0, threads1)
	}
	if took > promptly {
		t.Errorf("%d refused calls took %s", calls, took)
	}
}

// procCounts is a process's open descriptors and threads, from /proc.
func procCounts(t *testing.T, pid int) (fds, threads int) {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			threads, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return len(entries), threads
}
