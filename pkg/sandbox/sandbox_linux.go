package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Probe reports whether namespaces can be made here, by starting the
// plugin's own binary as a do-nothing init in new namespaces.
func Probe() error {
	exe, err := self()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, InitArg, "probe")
	cmd.SysProcAttr = nsAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: user namespaces are not usable here (%v%s)", ErrUnavailable, err, tail(out))
	}
	return nil
}

func tail(out []byte) string {
	s := strings.TrimSpace(string(out))
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[len(s)-200:]
	}
	return ": " + s
}

func nsAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		// The agent keeps the user's own uid inside, so files it writes in
		// the workspace belong to the user.
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Setpgid:                    true,
		Pdeathsig:                  syscall.SIGKILL,
	}
}

// Wrap turns cmd into the same command run by the sandbox init in new
// namespaces. The init is PID 1 there: when it dies, every process of the
// agent dies with it.
func Wrap(cmd *exec.Cmd, spec Spec) error {
	spec = spec.Normalize()
	if err := spec.Validate(); err != nil {
		return err
	}
	exe, err := self()
	if err != nil {
		return err
	}
	enc, err := encodeSpec(spec)
	if err != nil {
		return err
	}
	argv := append([]string{filepath.Base(exe), InitArg, enc, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = exe, argv
	attr := nsAttr()
	if cmd.SysProcAttr != nil {
		attr.Setpgid = cmd.SysProcAttr.Setpgid || attr.Setpgid
	}
	cmd.SysProcAttr = attr
	return nil
}

// MaybeInit runs the sandbox init when the process was started as one, and
// never returns in that case. Call it first thing in main (and in TestMain
// of packages whose tests start sandboxed agents).
func MaybeInit() {
	if len(os.Args) < 3 || os.Args[1] != InitArg {
		return
	}
	if os.Args[2] == "probe" {
		os.Exit(probeInside())
	}
	os.Exit(initMain(os.Args[2:]))
}

// probeInside checks that the mount setup will work: private mounts and a
// fresh /proc.
func probeInside() int {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fmt.Fprintln(os.Stderr, "make mounts private:", err)
		return 1
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		fmt.Fprintln(os.Stderr, "mount /proc:", err)
		return 1
	}
	return 0
}

func initMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "kubectl-triage sandbox: bad init arguments")
		return 125
	}
	spec, err := decodeSpec(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-triage sandbox: bad spec:", err)
		return 125
	}
	wd, _ := os.Getwd()
	if err := setup(spec); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-triage sandbox:", err)
		return 125
	}
	// The working directory still points into the mount it was opened on,
	// now read-only: enter it again through the writable bind.
	if wd != "" {
		if err := os.Chdir(wd); err != nil {
			fmt.Fprintln(os.Stderr, "kubectl-triage sandbox: enter the workspace:", err)
			return 125
		}
	}
	return runChild(args[2], args[3:])
}

// setup builds the agent's view of the filesystem.
func setup(spec Spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	// Writable places become mount points of their own before the rest of
	// the tree is made read-only.
	for _, w := range spec.Writable {
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", w, err)
		}
	}
	empty, err := os.MkdirTemp("", ".sandbox-empty-") // TMPDIR: the private one in the workspace
	if err != nil {
		return err
	}
	emptyFile := filepath.Join(empty, "file")
	if err := os.WriteFile(emptyFile, nil, 0o400); err != nil {
		return err
	}
	for _, m := range spec.Mask {
		fi, err := os.Lstat(m)
		if err != nil {
			continue // nothing there to hide
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if target, err := filepath.EvalSymlinks(m); err == nil {
				m = target
				fi, err = os.Stat(m)
				if err != nil {
					continue
				}
			}
		}
		if fi.IsDir() {
			err = unix.Mount("tmpfs", m, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=16k,mode=0500")
		} else {
			err = unix.Mount(emptyFile, m, "", unix.MS_BIND, "")
		}
		if err != nil {
			return fmt.Errorf("mask %s: %w", m, err)
		}
	}
	if err := readOnlyExcept(spec.Writable); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount a fresh /proc: %w", err)
	}
	// No privilege gains through setuid binaries inside.
	return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// readOnlyExcept remounts every mount read-only but the writable ones (and
// those under them). Mounts that refuse (kernel filesystems owned by the
// initial namespace) are left as they are: the user could not write them
// anyway.
func readOnlyExcept(writable []string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 {
			points = append(points, unescape(fields[4]))
		}
	}
	for _, p := range points {
		keep := false
		for _, w := range writable {
			if within(w, p) {
				keep = true
			}
		}
		if keep || p == "/proc" || strings.HasPrefix(p, "/proc/") || p == "/dev" || strings.HasPrefix(p, "/dev/") {
			continue
		}
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			continue
		}
		flags := uintptr(unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY) | lockedFlags(st.Flags)
		if err := unix.Mount("", p, "", flags, ""); err != nil && !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	return nil
}

// lockedFlags carries over the flags a user namespace may not clear.
func lockedFlags(statfs int64) uintptr {
	var out uintptr
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if statfs&f.st != 0 {
			out |= uintptr(f.ms)
		}
	}
	return out
}

// unescape decodes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// runChild starts the agent, forwards SIGINT/SIGTERM to its process group,
// reaps every orphan (it is PID 1 here) and exits as the agent did.
func runChild(path string, args []string) int {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
