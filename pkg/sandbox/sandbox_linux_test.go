package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testRole is what this test binary does when a test runs it as the agent.
func testRole(role string) int {
	switch role {
	case "dial": // try each address; print addr=body or addr=FAIL
		for _, a := range strings.Split(os.Getenv("ADDRS"), ",") {
			c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{Proxy: nil}}
			resp, err := c.Get("http://" + a + "/")
			if err != nil {
				fmt.Printf("%s=FAIL\n", a)
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Printf("%s=%s\n", a, b)
		}
		return 0
	case "undo": // try to undo the sandbox from inside
		home := os.Getenv("HOME")
		report := func(what string, err error) {
			if err == nil {
				fmt.Printf("%s=DONE\n", what)
			} else {
				fmt.Printf("%s=refused\n", what)
			}
		}
		report("umount-home", unix.Unmount(home, unix.MNT_DETACH))
		report("remount-root-rw", unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND, ""))
		report("remount-exposed-rw", unix.Mount("", os.Getenv("EXPOSED"), "", unix.MS_REMOUNT|unix.MS_BIND, ""))
		_, err := os.ReadFile(filepath.Join(home, ".kube", "config"))
		report("read-kubeconfig", err)
		// The kernel drops SIGKILL to a namespace's init from inside; had it
		// died, this process would have died with it.
		syscall.Kill(1, syscall.SIGKILL)
		time.Sleep(100 * time.Millisecond)
		fmt.Println("init-survived=refused")
		return 0
	case "parent": // run an agent tree under Supervise, then wait to be killed
		cmd := exec.Command("/bin/sh", "-c", "sleep 300 & setsid sleep 300 & sleep 300")
		if err := Supervise(cmd); err != nil {
			fmt.Println("supervise:", err)
			return 1
		}
		if err := cmd.Start(); err != nil {
			fmt.Println("start:", err)
			return 1
		}
		fmt.Println(cmd.Process.Pid)
		time.Sleep(time.Hour)
	}
	return 2
}

func needNamespaces(t *testing.T) {
	t.Helper()
	if err := Probe(); err != nil {
		if os.Getenv("KUBECTL_TRIAGE_EXPECT_SANDBOX") == "1" {
			t.Fatalf("this machine is known to support the sandbox, but: %v", err)
		}
		// The refusal path is what a user on such a kernel gets; say so.
		t.Skipf("namespaces unavailable on this kernel, the runner falls back (tested in pkg/agent): %v", err)
	}
}

func selfCmd(t *testing.T, role string, env ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append([]string{"SANDBOX_TEST_ROLE=" + role, "PATH=/usr/bin:/bin"}, env...)
	return cmd
}

// TestNamespaces runs a shell inside a real sandbox and checks what it
// sees: the user's home replaced by an in-memory one holding only the
// CLI's copied files, a masked kubeconfig outside home, writes only in the
// workspace (which lives under the home) and the in-memory home, exposed
// directories read-only, a fresh /proc, and only a changed login handed back.
func TestNamespaces(t *testing.T) {
	needNamespaces(t)
	home := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".kube/config", "planted-kube")
	write("notes.txt", "planted-notes")
	write(".claude/settings.json", "settings-ok")
	write(".claude/.credentials.json", "token-1")
	write(".claude/projects/other-work.jsonl", "planted-transcript")
	write("bin/tool", "tool-ok")
	ws := filepath.Join(home, ".local", "state", "ws")
	os.MkdirAll(ws, 0o700)
	userKC := filepath.Join(t.TempDir(), "admin.yaml")
	os.WriteFile(userKC, []byte("planted-admin"), 0o600)
	outside := t.TempDir()

	script := `cat "$H/.kube/config" "$H/notes.txt" "$H/.claude/projects/other-work.jsonl" 2>/dev/null; echo "|"
cat "$KC"; echo "|"
cat "$H/.claude/settings.json"; echo changed > "$H/.claude/settings.json"; echo token-2 > "$H/.claude/.credentials.json"; echo "|"
touch "$O/x" 2>/dev/null && echo wrote-outside; touch "$W/ok" && echo wrote-ws; touch "$H/bin/new" 2>/dev/null && echo wrote-exposed; echo "|"
cat "$H/bin/tool"; echo "|"
ls /proc | grep -c '^[0-9]'; echo "|"; id -u`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = ws
	cmd.Env = []string{"H=" + home, "KC=" + userKC, "O=" + outside, "W=" + ws, "TMPDIR=" + ws, "PATH=/usr/bin:/bin"}
	spec := Spec{
		Mask: []string{userKC}, Writable: []string{ws}, Home: home,
		HomeFiles:  []string{filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude", ".credentials.json")},
		LoginFiles: []string{filepath.Join(home, ".claude", ".credentials.json")},
		Expose:     []string{filepath.Join(home, "bin")},
		UID:        os.Getuid(), GID: os.Getgid(),
	}
	h, err := Wrap(cmd, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	out, logins, err := runWrapped(cmd, h)
	if err != nil {
		t.Fatalf("sandboxed shell: %v\n%s", err, out)
	}
	parts := strings.Split(strings.TrimSpace(out), "|")
	if len(parts) != 7 {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if strings.Contains(parts[0], "planted") {
		t.Errorf("the user's home is visible: %q", parts[0])
	}
	if strings.Contains(parts[1], "planted") {
		t.Errorf("masked kubeconfig readable: %q", parts[1])
	}
	if strings.TrimSpace(parts[2]) != "settings-ok" {
		t.Errorf("the CLI's own settings were not copied in: %q", parts[2])
	}
	if strings.Contains(parts[3], "wrote-outside") || strings.Contains(parts[3], "wrote-exposed") || !strings.Contains(parts[3], "wrote-ws") {
		t.Errorf("writes: %q", parts[3])
	}
	if strings.TrimSpace(parts[4]) != "tool-ok" {
		t.Errorf("exposed directory unreadable: %q", parts[4])
	}
	// init, sh, and the ls | grep pipeline: nothing of the host's.
	if n, _ := strconv.Atoi(strings.TrimSpace(parts[5])); n > 4 || n == 0 {
		t.Errorf("a fresh /proc shows only the sandbox's processes: got %s", parts[5])
	}
	if got := strings.TrimSpace(parts[6]); got != strconv.Itoa(os.Getuid()) {
		t.Errorf("the agent runs as uid %s, want the user's %d", got, os.Getuid())
	}
	// The in-memory home is gone; the disk has the user's files unchanged.
	if b, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); string(b) != "settings-ok" {
		t.Errorf("a write in the in-memory home reached the disk: %q", b)
	}
	if len(logins) != 1 || logins[0].Path != filepath.Join(home, ".claude", ".credentials.json") || strings.TrimSpace(string(logins[0].Data)) != "token-2" {
		t.Errorf("logins handed back: %+v", logins)
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		t.Errorf("the workspace write did not reach the disk: %v", err)
	}
}

// TestNetworkContained: inside, only the forwarded loopback address answers;
// another server on the host's loopback is unreachable.
func TestNetworkContained(t *testing.T) {
	needNamespaces(t)
	serve := func(body string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
		t.Cleanup(s.Close)
		u, _ := url.Parse(s.URL)
		return u.Host
	}
	gw, other := serve("gateway"), serve("leaked")
	dir, err := os.MkdirTemp("", "sbx-net-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, "gw.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				up, err := net.Dial("tcp", gw)
				if err != nil {
					c.Close()
					return
				}
				go io.Copy(up, c)
				io.Copy(c, up)
				c.Close()
				up.Close()
			}()
		}
	}()
	ws := t.TempDir()
	cmd := selfCmd(t, "dial", "ADDRS="+gw+","+other+",127.0.0.2:"+strings.Split(other, ":")[1])
	cmd.Dir = ws
	h, err := Wrap(cmd, Spec{Writable: []string{ws}, Net: &Net{Forwards: []Forward{{Addr: gw, Socket: "gw.sock"}}}, UID: os.Getuid(), GID: os.Getgid()}, dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := runWrapped(cmd, h)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if !strings.Contains(got, gw+"=gateway") {
		t.Errorf("the forwarded gateway is unreachable:\n%s", got)
	}
	if strings.Contains(got, "leaked") || !strings.Contains(got, other+"=FAIL") {
		t.Errorf("another loopback server was reachable:\n%s", got)
	}
}

// TestAgentCannotUndoTheSandbox: the agent runs a user namespace below the
// init, so the init's mounts are locked for it.
func TestAgentCannotUndoTheSandbox(t *testing.T) {
	needNamespaces(t)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".kube"), 0o700)
	os.WriteFile(filepath.Join(home, ".kube", "config"), []byte("planted"), 0o600)
	exposed := filepath.Join(home, "bin")
	os.MkdirAll(exposed, 0o755)
	ws := t.TempDir()
	cmd := selfCmd(t, "undo", "HOME="+home, "EXPOSED="+exposed)
	cmd.Dir = ws
	h, err := Wrap(cmd, Spec{Writable: []string{ws}, Home: home, Expose: []string{exposed}, Net: &Net{}, UID: os.Getuid(), GID: os.Getgid()}, ws)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runWrapped(cmd, h)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, what := range []string{"umount-home", "remount-root-rw", "remount-exposed-rw", "read-kubeconfig", "init-survived"} {
		if !strings.Contains(out, what+"=refused") {
			t.Errorf("%s was not refused:\n%s", what, out)
		}
	}
}

// runWrapped runs a wrapped command to its end: its combined output and
// the logins the sandbox handed back.
func runWrapped(cmd *exec.Cmd, h *Handle) (string, []Login, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	h.Started()
	err := cmd.Wait()
	logins, lerr := h.Logins()
	if err == nil {
		err = lerr
	}
	return out.String(), logins, err
}

// TestSuperviseKillsTheTreeWhenThePluginDies: unsandboxed, a kill -9 of the
// plugin still takes every agent process with it, setsid'd ones included.
func TestSuperviseKillsTheTreeWhenThePluginDies(t *testing.T) {
	parent := selfCmd(t, "parent")
	stdout, _ := parent.StdoutPipe()
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		parent.Process.Kill()
		t.Fatalf("supervisor pid: %v", err)
	}
	sup, _ := strconv.Atoi(strings.TrimSpace(line))
	var tree []int
	for i := 0; i < 100 && len(tree) < 3; i++ { // the shell and its three sleeps
		time.Sleep(20 * time.Millisecond)
		tree = descendants(sup)
	}
	if len(tree) < 3 {
		parent.Process.Kill()
		t.Fatalf("agent tree not started: %v", tree)
	}
	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range append(tree, sup) {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived the plugin", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// TestMaskingLeavesNothingInTMPDIR: the empty file masked files are covered
// with has no name, so a sandboxed run leaves no new entry in its TMPDIR
// (it once left a .sandbox-empty-NNNN directory per run in /tmp), and the
// masked file still reads empty inside.
func TestMaskingLeavesNothingInTMPDIR(t *testing.T) {
	needNamespaces(t)
	tmp, ws, secrets := t.TempDir(), t.TempDir(), t.TempDir()
	token := filepath.Join(secrets, "token")
	os.WriteFile(token, []byte("planted-token"), 0o600)
	dir := filepath.Join(secrets, "dir")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "key"), []byte("planted-key"), 0o600)
	cmd := exec.Command("/bin/sh", "-c", `cat "$T" "$D/key" 2>/dev/null; echo done`)
	cmd.Dir = ws
	cmd.Env = []string{"T=" + token, "D=" + dir, "TMPDIR=" + tmp, "PATH=/usr/bin:/bin"}
	h, err := Wrap(cmd, Spec{Mask: []string{token, dir}, Writable: []string{ws}, UID: os.Getuid(), GID: os.Getgid()}, "")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runWrapped(cmd, h)
	if err != nil {
		t.Fatalf("sandboxed shell: %v\n%s", err, out)
	}
	if strings.Contains(out, "planted") || !strings.Contains(out, "done") {
		t.Errorf("masked files readable inside:\n%s", out)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the sandbox left %s in its TMPDIR", e.Name())
	}
}
