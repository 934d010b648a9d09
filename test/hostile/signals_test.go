package hostile

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// crashPod creates a crash-looping pod with logs, the usual victim.
func crashPod(t *testing.T, c *testcluster.Cluster, ns, name string) {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
	p.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.51",
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Image: "busybox:1.36", ImageID: "docker.io/library/busybox@sha256:01", ContainerID: "containerd://k1", RestartCount: 3,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 1m20s restarting failed container=app"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
				StartedAt: metav1.NewTime(time.Now().Add(-2 * time.Minute)), FinishedAt: metav1.NewTime(time.Now().Add(-time.Minute))}},
		}},
	}
	c.CreatePod(t, p)
	logs := strings.Repeat("INFO working\n", 200) + "FATAL config: required env DATABASE_URL is empty\n"
	c.SetLogs(ns, name, "app", true, logs)
	c.SetLogs(ns, name, "app", false, "")
}

// assertSettled checks that a root holds nothing half-written: no
// workspace being created, and no incident whose incident.json (on disk,
// not as list reads it) still says investigating.
func assertSettled(t *testing.T, root string) bool {
	t.Helper()
	ok := true
	for _, name := range rootEntries(t, root) {
		if strings.HasPrefix(name, ".creating-") {
			t.Errorf("half-created workspace left: %s", name)
			ok = false
			continue
		}
		inc, err := incident.Load(filepath.Join(root, name, incident.FileName))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			ok = false
			continue
		}
		if inc.Status == incident.Investigating {
			t.Errorf("incident %s still says investigating on disk", name)
			ok = false
		}
	}
	return ok
}

// assertEnds checks what a user sees after a run died: no incident reads
// as investigating in list or status, and gc --older-than 0s leaves the
// root empty.
func assertEnds(t *testing.T, c *testcluster.Cluster, root, what string) bool {
	t.Helper()
	ok := true
	for _, inc := range listJSON(t, c, root) {
		if inc.Status == incident.Investigating {
			t.Errorf("%s: incident %s reads as investigating in list", what, inc.IncidentID)
			ok = false
		}
		st := run(t, c, root, "status", inc.IncidentID)
		if st.code != 0 || strings.Contains(st.stdout, "investigating") {
			t.Errorf("%s: status %s: exit %d\n%s", what, inc.IncidentID, st.code, st.stdout)
			ok = false
		}
		// show prints the report, or says in one line why there is none.
		sh := run(t, c, root, "show", inc.IncidentID)
		if strings.Contains(sh.stderr, "still being investigated") || (sh.code != 0 && strings.Count(strings.TrimSpace(sh.stderr), "\n") > 0) {
			t.Errorf("%s: show %s: exit %d\n%s", what, inc.IncidentID, sh.code, sh.stderr)
			ok = false
		}
	}
	gc := run(t, c, root, "gc", "--older-than", "0s")
	if gc.code != 0 {
		t.Errorf("%s: gc exit %d: %s", what, gc.code, gc.stderr)
		ok = false
	}
	if left := rootEntries(t, root); len(left) != 0 {
		t.Errorf("%s: gc left %v in the root\n%s%s", what, left, gc.stdout, gc.stderr)
		ok = false
	}
	return ok
}

// TestKillAnywhere kills the plugin with SIGKILL at 20 points spread over a
// run (the builtin agent, and an external agent), then checks that nothing
// stays investigating and gc leaves the root clean.
func TestKillAnywhere(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	base := t.TempDir()

	// How long a whole run takes here, to spread the kills over it: the
	// second of two (the first fills the discovery cache), and at most 2s
	// (a loaded machine must not make the test crawl).
	var whole time.Duration
	for i := range 2 {
		t0 := time.Now()
		if r := run(t, c, filepath.Join(base, fmt.Sprintf("measure%d", i)), "pod/victim", "-n", ns); r.code != 0 {
			t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
		}
		whole = min(time.Since(t0), 2*time.Second)
	}
	t.Logf("a whole run takes %s", whole)

	const points = 20
	for i := 0; i < points; i++ {
		root := filepath.Join(base, fmt.Sprintf("k%02d", i))
		args := []string{"pod/victim", "-n", ns}
		delay := whole * time.Duration(i) / (points - 4)
		agent := i >= points-4 // the last points kill an external agent's run while the agent runs
		if agent {
			args = append(args, "--agent-command", "sleep 30")
			delay = time.Duration(i-points+4) * 50 * time.Millisecond
		}
		cmd := plugin(t, c, root, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if agent {
			runningIncident(t, root, nil)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		figures.kills.Add(1)
		what := fmt.Sprintf("kill at %s (point %d)", delay.Round(time.Millisecond), i)
		if agent {
			what = fmt.Sprintf("kill %s after the agent started (point %d)", delay.Round(time.Millisecond), i)
		}
		ok := assertEnds(t, c, root, what)
		// Nor anything outside the root: the egress hub's socket directory
		// (named after the killed plugin) went with gc.
		if left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("kubectl-triage-net-%d.*", cmd.Process.Pid))); len(left) != 0 {
			t.Errorf("%s: gc left the killed run's socket directory %v", what, left)
			ok = false
		}
		if ok {
			figures.killsSurvived.Add(1)
		}
	}
}

// interruptible starts the plugin and returns it.
func start(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitExit waits at most d for cmd and returns its exit code (128+signal
// when a signal ended it, as a shell reports it).
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Errorf("the plugin did not exit within %s of the signal", d)
		return -1
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// TestInterruptAnyMoment sends SIGINT (or SIGTERM) at 10 ms and 100 ms,
// during collection (log requests that hang) and while the agent runs: the
// plugin exits 130 within seconds and leaves nothing half-written.
func TestInterruptAnyMoment(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	slow := slowLogsKubeconfig(t, c)

	type point struct {
		name   string
		sig    syscall.Signal
		args   []string
		env    []string
		signal func(root string) // waits for the moment
	}
	after := func(d time.Duration) func(string) { return func(string) { time.Sleep(d) } }
	agentRunning := func(root string) {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			for _, name := range rootEntries(t, root) {
				if inc, err := incident.Load(filepath.Join(root, name, incident.FileName)); err == nil && inc.Agent.State == incident.AgentRunning {
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Error("the agent never started")
	}
	// A whole run takes ~150 ms here: the early points run against the
	// proxy whose log requests hang, so the plugin is certainly still at
	// work when the signal comes (resolving, creating or collecting).
	points := []point{
		{"SIGINT at 10ms", syscall.SIGINT, []string{"pod/victim", "-n", ns}, nil, after(10 * time.Millisecond)},
		{"SIGINT at 10ms (slow API)", syscall.SIGINT, []string{"--kubeconfig", slow, "pod/victim", "-n", ns}, nil, after(10 * time.Millisecond)},
		{"SIGINT at 50ms", syscall.SIGINT, []string{"--kubeconfig", slow, "pod/victim", "-n", ns}, nil, after(50 * time.Millisecond)},
		{"SIGINT at 100ms", syscall.SIGINT, []string{"--kubeconfig", slow, "pod/victim", "-n", ns}, nil, after(100 * time.Millisecond)},
		{"SIGTERM at 100ms", syscall.SIGTERM, []string{"--kubeconfig", slow, "pod/victim", "-n", ns}, nil, after(100 * time.Millisecond)},
		{"SIGINT during collection (hanging log requests)", syscall.SIGINT, []string{"--kubeconfig", slow, "pod/victim", "-n", ns}, nil, after(2 * time.Second)},
		{"SIGINT while the agent runs", syscall.SIGINT, []string{"pod/victim", "-n", ns, "--agent-command", "sleep 30"}, nil, agentRunning},
	}
	for i, p := range points {
		t.Run(p.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), fmt.Sprintf("i%d", i))
			cmd := plugin(t, c, root, p.args...)
			cmd.Env = append(cmd.Env, p.env...)
			start(t, cmd)
			p.signal(root)
			sent := time.Now()
			cmd.Process.Signal(p.sig)
			code := waitExit(t, cmd, 15*time.Second)
			figures.interrupts.Add(1)
			t.Logf("exit %d, %s after the signal", code, time.Since(sent).Round(time.Millisecond))
			settled := assertSettled(t, root)
			// A signal that comes before the Go runtime has installed the
			// handler (a loaded machine can take that long to start the
			// binary) ends the process by the signal itself, which a shell
			// reports as 128+signal: nothing was written either way.
			early := strings.Contains(p.name, "ms")
			if code != 130 && !(code == 128+int(p.sig) && early) {
				t.Errorf("exit code %d, want 130", code)
			} else if settled {
				figures.interruptsExited130.Add(1)
			}
		})
	}
}

// slowLogsKubeconfig serves the API through a proxy on which log requests
// hang, so a run is caught in the middle of collecting, and returns a
// kubeconfig for it.
func slowLogsKubeconfig(t *testing.T, c *testcluster.Cluster) string {
	t.Helper()
	upstream, err := url.Parse(c.Server)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := rest.TransportFor(c.UserConfig())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	proxy.Transport = tr
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/log") {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["slow"] = &clientcmdapi.Cluster{Server: srv.URL, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["slow"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["slow"] = &clientcmdapi.Context{Cluster: "slow", AuthInfo: "slow", Namespace: "default"}
	cfg.CurrentContext = "slow"
	path := filepath.Join(t.TempDir(), "slow.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCancelFromAnotherTerminal: kubectl triage cancel ID stops a running
// incident through its record; the run records failed/cancelled with who
// asked and exits 130; a second cancel gets a one-line answer.
func TestCancelFromAnotherTerminal(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	root := filepath.Join(t.TempDir(), "incidents")
	cmd := start(t, plugin(t, c, root, "pod/victim", "-n", ns, "--agent-command", "sleep 30"))
	var id string
	deadline := time.Now().Add(time.Minute)
	for id == "" && time.Now().Before(deadline) {
		for _, name := range rootEntries(t, root) {
			if inc, err := incident.Load(filepath.Join(root, name, incident.FileName)); err == nil && inc.Agent.State == incident.AgentRunning {
				id = name
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if id == "" {
		cmd.Process.Kill()
		t.Fatal("the agent never started")
	}
	r := run(t, c, root, "cancel", id[:8])
	if r.code != 0 || !strings.Contains(r.stdout, "cancelled") {
		t.Errorf("cancel: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if code := waitExit(t, cmd, 45*time.Second); code != 130 {
		t.Errorf("the cancelled run exited %d, want 130", code)
	}
	inc, err := incident.Load(filepath.Join(root, id, incident.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if inc.Status != incident.Failed || inc.FailureReason != incident.ReasonCancelled || inc.Agent.State != incident.AgentCancelled || !strings.Contains(inc.CancelledBy, "pid") {
		t.Errorf("after cancel: status %s reason %q state %s by %q", inc.Status, inc.FailureReason, inc.Agent.State, inc.CancelledBy)
	}
	again := run(t, c, root, "cancel", id)
	if again.code != 0 || strings.Count(again.stdout, "\n") != 1 || !strings.Contains(again.stdout, "not running") {
		t.Errorf("cancel of an ended incident: exit %d %q %q", again.code, again.stdout, again.stderr)
	}
	if _, err := os.Stat(filepath.Join(root, ".cancel-"+id)); err == nil {
		t.Error("the cancellation request was left behind")
	}
}
