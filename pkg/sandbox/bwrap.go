package sandbox

import (
	"os"
	"os/exec"
)

// BwrapArgs builds the bubblewrap command line for the same isolation, for
// hosts where the plugin cannot make namespaces itself but bwrap (setuid or
// with its own privileges) can.
func BwrapArgs(spec Spec, argv []string) []string {
	spec = spec.Normalize()
	args := []string{"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	for _, w := range spec.Writable {
		args = append(args, "--bind", w, w)
	}
	for _, m := range spec.Mask {
		fi, err := os.Stat(m)
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			args = append(args, "--tmpfs", m)
		default:
			args = append(args, "--ro-bind", "/dev/null", m)
		}
	}
	return append(append(args, "--"), argv...)
}

// WrapBwrap runs cmd through bwrap at bwrapPath.
func WrapBwrap(cmd *exec.Cmd, bwrapPath string, spec Spec) error {
	spec = spec.Normalize()
	if err := spec.Validate(); err != nil {
		return err
	}
	argv := append([]string{cmd.Path}, cmd.Args[1:]...)
	cmd.Args = append([]string{"bwrap"}, BwrapArgs(spec, argv)...)
	cmd.Path = bwrapPath
	return nil
}
