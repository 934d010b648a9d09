package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runChild starts the agent, forwards SIGINT/SIGTERM to its process group,
// reaps every orphan (it is PID 1, or a subreaper) and exits as the agent
// did.
func runChild(path string, args []string, attr *syscall.SysProcAttr) int {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = attr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-triage sandbox: start agent:", err)
		return 127
	}
	pid := cmd.Process.Pid
	go func() {
		for s := range sigs {
			syscall.Kill(-pid, s.(syscall.Signal))
		}
	}()
	return waitFor(pid)
}

// waitFor reaps children until pid exits and returns its exit code.
func waitFor(pid int) int {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return 125
		}
		if got != pid {
			continue // an orphan reparented to us
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

const superviseArg = "supervise"

// Supervise runs cmd through the plugin's own binary as a supervisor, for
// agents that run without namespaces (--no-sandbox, or none available): it
// adopts every descendant (a subreaper) and, if the plugin dies, kills them
// all, so no agent process outlives the plugin even then.
func Supervise(cmd *exec.Cmd) error {
	exe, err := self()
	if err != nil {
		return err
	}
	argv := append([]string{"kubectl-triage", InitArg, superviseArg, strconv.Itoa(os.Getpid()), "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = exe, argv
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return nil
}

func supervise(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "kubectl-triage supervise: bad arguments")
		return 125
	}
	parent, _ := strconv.Atoi(args[0])
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	// The plugin may have died before the death signal was armed.
	if os.Getppid() != parent {
		return 137
	}
	// The agent shares the supervisor's process group: the plugin's SIGINT
	// to the group reaches it directly.
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-triage: start agent:", err)
		return 127
	}
	go func() {
		// The death signal wakes this at once; a signal that was lost (the
		// plugin's thread that forked us exited first) is caught by the
		// tick. Either way the parent's pid is the truth.
		tick := time.NewTicker(time.Second)
		for {
			select {
			case <-sigs:
			case <-tick.C:
			}
			if os.Getppid() != parent {
				killDescendants()
				os.Exit(137)
			}
		}
	}()
	code := waitFor(cmd.Process.Pid)
	killDescendants() // what the agent left behind goes with it
	return code
}

// killDescendants SIGKILLs every process below this one until none is left.
func killDescendants() {
	self := os.Getpid()
	for i := 0; i < 100; i++ {
		kids := descendants(self)
		if len(kids) == 0 {
			return
		}
		for _, p := range kids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		for {
			if got, _ := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); got <= 0 {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// descendants lists the live processes whose parent chain leads to root.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[pid] = pp
		}
	}
	var out []int
	for pid := range parent {
		for p, n := parent[pid], 0; p != 0 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
