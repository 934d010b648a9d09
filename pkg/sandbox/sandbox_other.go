//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Probe: namespaces exist only on Linux.
func Probe() error {
	return fmt.Errorf("%w: namespaces are Linux-only (this is %s)", ErrUnavailable, runtime.GOOS)
}

// Handle exists only with namespaces.
type Handle struct{}

// Login is a login file the CLI changed during the run.
type Login struct {
	Path string
	Data []byte
	Mode os.FileMode
}

func (*Handle) Started()                 {}
func (*Handle) Logins() ([]Login, error) { return nil, nil }
func (*Handle) Close()                   {}

// Wrap is not available without namespaces.
func Wrap(*exec.Cmd, Spec, string) (*Handle, error) { return nil, Probe() }

// Supervise leaves the command as it is where there is no subreaper.
func Supervise(*exec.Cmd) error { return nil }

// MaybeInit does nothing where there is no namespace init.
func MaybeInit() {}
