package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Probe reports whether the namespaces the sandbox needs can be made here,
// by starting the plugin's own binary as a do-nothing init in them (which
// also checks the agent's nested namespace and a loopback interface).
func Probe() error {
	exe, err := self()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, InitArg, "probe")
	cmd.SysProcAttr = nsAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: user, mount, PID and network namespaces are not usable here (%v%s)", ErrUnavailable, err, tail(out))
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

// nsAttr makes the init root of its own user namespace (mapped to the user,
// so it holds no privilege outside), with the capabilities it needs for its
// mounts and the loopback interface.
func nsAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Setpgid:                    true,
		// When the plugin dies, so does the init, and with it the whole PID
		// namespace: no agent process outlives the plugin.
		Pdeathsig: syscall.SIGKILL,
	}
}

// nestedAttr runs the agent one user namespace deeper, as the user's own
// uid, with a mount namespace of its own: the init's mounts are locked
// there, so the agent can neither unmount the in-memory home nor make
// anything writable.
func nestedAttr(uid, gid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: 0, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: 0, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Setpgid:                    true,
	}
}

// Handle is a wrapped command's link back to the plugin: the logins the
// CLI refreshed come back through it once the sandbox has ended.
type Handle struct {
	r, w    *os.File
	dir     *os.File
	done    chan struct{}
	data    []byte
	readErr error
}

// Login is a login file the CLI changed during the run.
type Login struct {
	Path string      `json:"path"`
	Data []byte      `json:"data"`
	Mode os.FileMode `json:"mode"`
}

// Wrap turns cmd into the same command run by the sandbox init in new
// namespaces. socketDir holds the sockets spec.Net's forwards relay to (the
// egress hub's). Call Started after cmd.Start, and Logins after cmd.Wait.
func Wrap(cmd *exec.Cmd, spec Spec, socketDir string) (*Handle, error) {
	spec = spec.Normalize()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	exe, err := self()
	if err != nil {
		return nil, err
	}
	enc, err := encodeSpec(spec)
	if err != nil {
		return nil, err
	}
	h := &Handle{done: make(chan struct{})}
	if h.r, h.w, err = os.Pipe(); err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{h.w}
	if spec.Net != nil {
		if h.dir, err = os.Open(socketDir); err != nil {
			h.Close()
			return nil, fmt.Errorf("sandbox: socket directory: %w", err)
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, h.dir)
	}
	argv := append([]string{filepath.Base(exe), InitArg, enc, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = exe, argv
	cmd.SysProcAttr = nsAttr()
	go func() {
		// Read as it comes: a large login must not block the init on a
		// full pipe.
		h.data, h.readErr = io.ReadAll(io.LimitReader(h.r, 64<<20))
		close(h.done)
	}()
	return h, nil
}

// Started closes the plugin's copies of what the init holds now.
func (h *Handle) Started() {
	h.w.Close()
	if h.dir != nil {
		h.dir.Close()
	}
}

// Logins returns the login files the CLI changed, once the sandbox ended.
func (h *Handle) Logins() ([]Login, error) {
	h.w.Close()
	<-h.done
	if h.readErr != nil {
		return nil, h.readErr
	}
	if len(h.data) == 0 {
		return nil, nil
	}
	var out []Login
	if err := json.Unmarshal(h.data, &out); err != nil {
		return nil, fmt.Errorf("sandbox: logins: %w", err)
	}
	return out, nil
}

// Close releases the handle (after a failed start).
func (h *Handle) Close() {
	h.w.Close()
	if h.dir != nil {
		h.dir.Close()
	}
	h.r.Close()
}

// MaybeInit runs the sandbox init when the process was started as one, and
// never returns in that case. Call it first thing in main (and in TestMain
// of packages whose tests start sandboxed agents).
func MaybeInit() {
	if len(os.Args) < 3 || os.Args[1] != InitArg {
		return
	}
	switch os.Args[2] {
	case "probe":
		os.Exit(probeInside())
	case "probe-nested":
		os.Exit(0)
	case superviseArg:
		os.Exit(supervise(os.Args[3:]))
	}
	os.Exit(initMain(os.Args[2:]))
}

// probeInside checks that the setup will work: private mounts, a fresh
// /proc, the loopback interface and the agent's nested namespace.
func probeInside() int {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fmt.Fprintln(os.Stderr, "make mounts private:", err)
		return 1
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		fmt.Fprintln(os.Stderr, "mount /proc:", err)
		return 1
	}
	if err := loopbackUp(); err != nil {
		fmt.Fprintln(os.Stderr, "loopback:", err)
		return 1
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, InitArg, "probe-nested")
	cmd.SysProcAttr = nestedAttr(1000, 1000)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "nested user namespace: %v %s\n", err, out)
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
	// The plugin's pipe and socket directory are the init's alone.
	report := os.NewFile(3, "report")
	unix.CloseOnExec(3)
	if spec.Net != nil {
		unix.CloseOnExec(4)
		if err := startRelays(spec.Net, 4); err != nil {
			fmt.Fprintln(os.Stderr, "kubectl-triage sandbox: network:", err)
			return 125
		}
	}
	wd, _ := os.Getwd()
	home, err := readHome(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-triage sandbox:", err)
		return 125
	}
	if err := setup(spec, home); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-triage sandbox:", err)
		return 125
	}
	// The working directory still points into the mount it was opened on:
	// enter it again through the new mounts.
	if wd != "" {
		if err := os.Chdir(wd); err != nil {
			fmt.Fprintln(os.Stderr, "kubectl-triage sandbox: enter the workspace:", err)
			return 125
		}
	}
	code := runChild(args[2], args[3:], nestedAttr(spec.UID, spec.GID))
	writeLogins(report, spec, home)
	report.Close()
	return code
}

// setup builds the agent's view of the filesystem.
func setup(spec Spec, home *homeCopy) error {
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
	// What must reappear inside the in-memory home is held open before
	// the home is covered.
	type rebind struct {
		path     string
		fd       int
		dir      bool
		readOnly bool
	}
	var rebinds []rebind
	if spec.Home != "" {
		for _, l := range []struct {
			paths []string
			ro    bool
		}{{spec.Writable, false}, {spec.Expose, true}} {
			for _, p := range l.paths {
				if !within(spec.Home, p) {
					continue
				}
				fi, err := os.Stat(p)
				if err != nil {
					continue
				}
				fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
				if err != nil {
					return fmt.Errorf("open %s: %w", p, err)
				}
				rebinds = append(rebinds, rebind{p, fd, fi.IsDir(), l.ro})
			}
		}
	}
	if err := maskAll(spec, false); err != nil {
		return err
	}
	if spec.Home != "" {
		if err := unix.Mount("tmpfs", spec.Home, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700,size=512m"); err != nil {
			return fmt.Errorf("in-memory home at %s: %w", spec.Home, err)
		}
		if err := home.write(); err != nil {
			return err
		}
		for _, rb := range rebinds {
			var err error
			if rb.dir {
				err = os.MkdirAll(rb.path, 0o700)
			} else if err = os.MkdirAll(filepath.Dir(rb.path), 0o700); err == nil {
				err = os.WriteFile(rb.path, nil, 0o600)
			}
			if err != nil {
				return fmt.Errorf("mount point %s: %w", rb.path, err)
			}
			if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(rb.fd), rb.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("bind %s: %w", rb.path, err)
			}
			unix.Close(rb.fd)
		}
		// Credentials inside the exposed trees stay hidden there too.
		if err := maskAll(spec, true); err != nil {
			return err
		}
	}
	keep := append([]string{}, spec.Writable...)
	if spec.Home != "" {
		keep = append(keep, spec.Home)
	}
	if err := readOnlyExcept(keep); err != nil {
		return err
	}
	for _, rb := range rebinds {
		if !rb.readOnly {
			continue
		}
		var st unix.Statfs_t
		unix.Statfs(rb.path, &st)
		if err := unix.Mount("", rb.path, "", uintptr(unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY)|lockedFlags(st.Flags), ""); err != nil {
			return fmt.Errorf("make %s read-only: %w", rb.path, err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount a fresh /proc: %w", err)
	}
	// No privilege gains through setuid binaries inside.
	return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// maskAll hides spec.Mask: those outside the home, or (exposed) those
// inside the trees the home shows again. A masked file is covered by an empty file that
// has no name on disk: whatever TMPDIR is and however the run ends (kill -9
// of the plugin included), nothing of it stays behind.
func maskAll(spec Spec, exposed bool) error {
	var masks []string
	for _, m := range spec.Mask {
		inHome := spec.Home != "" && within(spec.Home, m)
		if exposed != inHome || (inHome && !coveredBy(spec.Expose, m)) {
			continue // the rest of the home is replaced
		}
		masks = append(masks, m)
	}
	if len(masks) == 0 {
		return nil
	}
	emptyFile, done, err := nameless()
	if err != nil {
		return err
	}
	defer done()
	for _, m := range masks {
		if err := mask(m, emptyFile); err != nil {
			return err
		}
	}
	return nil
}

// nameless returns a path to bind an empty, read-only file from, and a
// func to call once the binds are made (they keep the file alive). The file
// is on a tiny tmpfs mounted for a moment over /proc (which the sandbox
// replaces with a fresh one later anyway) and detached at once: it never
// has a name on disk. (An O_TMPFILE file cannot be bound: the kernel
// refuses an unlinked source.)
func nameless() (string, func(), error) {
	const at = "/proc"
	if err := unix.Mount("tmpfs", at, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0500"); err != nil {
		return "", nil, fmt.Errorf("an empty file to mask with: %w", err)
	}
	done := func() { unix.Unmount(at, unix.MNT_DETACH) }
	f := filepath.Join(at, "empty")
	if err := os.WriteFile(f, nil, 0o400); err != nil {
		done()
		return "", nil, fmt.Errorf("an empty file to mask with: %w", err)
	}
	return f, done, nil
}

// mask makes m empty: a tmpfs over a directory, an empty file over a file.
func mask(m, emptyFile string) error {
	fi, err := os.Lstat(m)
	if err != nil {
		return nil // nothing there to hide
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(m)
		if err != nil {
			return nil
		}
		m = target
		if fi, err = os.Stat(m); err != nil {
			return nil
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
	// Read-only, whatever remounts follow (the home's are kept writable).
	var st unix.Statfs_t
	unix.Statfs(m, &st)
	if err := unix.Mount("", m, "", uintptr(unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY)|lockedFlags(st.Flags), ""); err != nil {
		return fmt.Errorf("make the mask over %s read-only: %w", m, err)
	}
	return nil
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
