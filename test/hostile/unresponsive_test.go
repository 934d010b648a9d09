package hostile

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// interruptBound is how soon after SIGINT or SIGTERM the plugin must have
// exited: a correctness bound (the signal is acted on, not waited out), far
// above what it takes.
const interruptBound = 2 * time.Second

// TestInterruptUnresponsiveServer sends SIGINT (and SIGTERM) at moments
// from 10 ms to 1 s into a run against API servers that never answer: one
// that accepts the connection and says nothing, one that completes the TLS
// handshake and then holds every request. The plugin exits 130 within
// interruptBound, says so in one line and writes nothing.
//
// The plugin is started the way a shell starts a background job, with
// SIGINT ignored, so a signal it did not catch is lost (the run would go on
// for the server's timeouts) rather than fatal; and the signal is sent only
// once the plugin's handler is in (SIGINT no longer ignored in
// /proc/PID/status), which it installs during package initialisation: the
// moments before that (the kernel loading the binary, the Go runtime
// starting) are outside any program's reach. TestInterruptAtStartTerminal
// covers them for a terminal's Ctrl-C.
func TestInterruptUnresponsiveServer(t *testing.T) {
	servers := map[string]string{
		"accepts, never answers":      blackHoleServer(t),
		"TLS handshake, then nothing": hangingTLSServer(t),
	}
	type point struct {
		at  time.Duration
		sig syscall.Signal
	}
	var points []point
	for _, ms := range []int{10, 30, 100, 300, 1000} {
		points = append(points, point{time.Duration(ms) * time.Millisecond, syscall.SIGINT})
	}
	points = append(points, point{30 * time.Millisecond, syscall.SIGTERM}, point{300 * time.Millisecond, syscall.SIGTERM})
	for name, server := range servers {
		kubeconfig := unresponsiveKubeconfig(t, server)
		for _, p := range points {
			t.Run(fmt.Sprintf("%s/%v at %s", name, p.sig, p.at), func(t *testing.T) {
				root := filepath.Join(t.TempDir(), "incidents")
				cmd := backgroundJob(t, root, "--kubeconfig", kubeconfig, "pod/victim", "-n", "shop")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				start(t, cmd)
				t0 := time.Now()
				time.Sleep(p.at)
				if late := waitCaught(t, cmd.Process.Pid); late > 0 {
					t.Logf("the handler was in %s after the %s point", late.Round(time.Millisecond), p.at)
				}
				sent := time.Now()
				cmd.Process.Signal(p.sig)
				ws, ok := waitStatus(cmd, interruptBound)
				figures.interrupts.Add(1)
				if !ok {
					t.Fatalf("%v at %s (sent at %s): still running %s after it\nstderr:\n%s", p.sig, p.at, sent.Sub(t0).Round(time.Millisecond), interruptBound, stderr.String())
				}
				t.Logf("exit %d, %s after the signal", ws.ExitStatus(), time.Since(sent).Round(time.Millisecond))
				good := true
				if ws.Signaled() || ws.ExitStatus() != 130 {
					t.Errorf("ended with %v (status %d), want exit 130\nstderr:\n%s", ws, ws.ExitStatus(), stderr.String())
					good = false
				}
				if msg := strings.TrimSpace(stderr.String()); !strings.HasSuffix(msg, "error: cancelled before an incident was created; nothing was written") {
					t.Errorf("stderr does not end with the cancellation:\n%s", msg)
					good = false
				}
				if !assertSettled(t, root) || len(rootEntries(t, root)) != 0 {
					t.Errorf("the root holds %v; nothing should be written before an incident exists", rootEntries(t, root))
					good = false
				}
				if good {
					figures.interruptsExited130.Add(1)
				}
			})
		}
	}
}

// TestSignalHandlerBeforeInitialisation: the plugin's handler is installed
// (package interrupt/early) before every package that takes time to
// initialise — client-go's and the API types' scheme registrations, the
// plugin's own compiled patterns: the ~100 ms in which a Ctrl-C used to be
// lost. The Go runtime's own trace of package initialisation says in which
// order they ran.
func TestSignalHandlerBeforeInitialisation(t *testing.T) {
	const early = "github.com/kubectl-triage/kubectl-triage/internal/interrupt/early"
	cmd := exec.Command(pluginBinary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" && strings.HasPrefix(f[2], "@") {
			order = append(order, f[1])
		}
	}
	at := slices.Index(order, early)
	if at < 0 {
		t.Fatalf("%s is not initialised at all (%d packages traced)", early, len(order))
	}
	for _, pkg := range order[:at] {
		if strings.HasPrefix(pkg, "k8s.io/") || strings.HasPrefix(pkg, "sigs.k8s.io/") ||
			strings.HasPrefix(pkg, "github.com/kubectl-triage/") && pkg != "github.com/kubectl-triage/kubectl-triage/internal/interrupt" {
			t.Errorf("%s is initialised before the signal handler", pkg)
		}
	}
	t.Logf("the handler is package %d of %d to initialise", at+1, len(order))
}

// TestInterruptAtStartTerminal is a terminal's Ctrl-C 10 ms into a run
// (SIGINT not ignored): the plugin exits 130, or, when the signal came
// before the Go runtime was up, dies by it (which a shell reports as 130
// too); either way it writes nothing.
func TestInterruptAtStartTerminal(t *testing.T) {
	kubeconfig := unresponsiveKubeconfig(t, blackHoleServer(t))
	for i := range 3 {
		root := filepath.Join(t.TempDir(), fmt.Sprintf("i%d", i))
		cmd := bareCmd(t, root, "--kubeconfig", kubeconfig, "pod/victim", "-n", "shop")
		start(t, cmd)
		time.Sleep(10 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		ws, ok := waitStatus(cmd, interruptBound)
		if !ok {
			t.Fatalf("still running %s after SIGINT", interruptBound)
		}
		if !(ws.Signaled() && ws.Signal() == syscall.SIGINT) && ws.ExitStatus() != 130 {
			t.Errorf("ended with %v, want exit 130", ws)
		}
		if entries := rootEntries(t, root); len(entries) != 0 {
			t.Errorf("the root holds %v", entries)
		}
	}
}

// TestUnresponsiveServerGivesUp: with no signal, a server that accepts the
// connection and never answers is reported after one TLS handshake timeout
// (10 s), not after every retry of discovery and the resource builder
// (four, 40 s), in one actionable line.
func TestUnresponsiveServerGivesUp(t *testing.T) {
	kubeconfig := unresponsiveKubeconfig(t, blackHoleServer(t))
	root := filepath.Join(t.TempDir(), "incidents")
	t0 := time.Now()
	r := runCmd(t, bareCmd(t, root, "--kubeconfig", kubeconfig, "pod/victim", "-n", "shop"), time.Minute)
	took := time.Since(t0)
	t.Logf("gave up after %s: %s", took.Round(time.Millisecond), r.stderr)
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	if took > 25*time.Second {
		t.Errorf("took %s to give up: more than one handshake timeout", took)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "error: cannot reach the cluster at https://") || !strings.Contains(last, "did not complete the TLS handshake") || !strings.Contains(last, "--kubeconfig") {
		t.Errorf("error line %q does not say what happened and what to check", last)
	}
	if entries := rootEntries(t, root); len(entries) != 0 {
		t.Errorf("the root holds %v", entries)
	}
}

// bareCmd is the plugin with nothing of the test cluster (the servers here
// are not API servers).
func bareCmd(t *testing.T, root string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(pluginBinary(t), append([]string{"--workspace-root", root, "--cache-dir", filepath.Join(t.TempDir(), "kube-cache")}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"), "KUBECTL_TRIAGE_CONFIG=")
	return cmd
}

// backgroundJob is bareCmd started as `kubectl triage … &` in a script
// starts it: with SIGINT ignored (the shell execs it, same pid).
func backgroundJob(t *testing.T, root string, args ...string) *exec.Cmd {
	t.Helper()
	bare := bareCmd(t, root, args...)
	cmd := exec.Command("/bin/sh", append([]string{"-c", `trap '' INT; exec "$0" "$@"`}, bare.Args...)...)
	cmd.Env = bare.Env
	return cmd
}

// waitCaught waits until pid is the plugin (no longer the shell) with
// SIGINT no longer ignored: its handler is in. It returns how long that
// took.
func waitCaught(t *testing.T, pid int) time.Duration {
	t.Helper()
	t0 := time.Now()
	for time.Since(t0) < 30*time.Second {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) != "sh" && !sigIgnored(pid, syscall.SIGINT) {
			return time.Since(t0)
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the plugin never caught SIGINT")
	return 0
}

// sigIgnored reads the SigIgn mask of /proc/PID/status.
func sigIgnored(pid int, sig syscall.Signal) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true // not there yet, or gone
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err != nil || mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return true
}

// waitStatus waits at most d for cmd; false if it had to be killed.
func waitStatus(cmd *exec.Cmd, d time.Duration) (syscall.WaitStatus, bool) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState.Sys().(syscall.WaitStatus), true
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return cmd.ProcessState.Sys().(syscall.WaitStatus), false
	}
}

// blackHoleServer accepts TCP connections and never reads or answers.
func blackHoleServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 1024)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held <- c
		}
	}()
	t.Cleanup(func() {
		l.Close()
		close(held)
		for c := range held {
			c.Close()
		}
	})
	return "https://" + l.Addr().String()
}

// hangingTLSServer completes the TLS handshake and holds every request.
func hangingTLSServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func unresponsiveKubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["mute"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["mute"] = &clientcmdapi.AuthInfo{Token: "not-a-real-token"}
	cfg.Contexts["mute"] = &clientcmdapi.Context{Cluster: "mute", AuthInfo: "mute", Namespace: "shop"}
	cfg.CurrentContext = "mute"
	path := filepath.Join(t.TempDir(), "mute.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
