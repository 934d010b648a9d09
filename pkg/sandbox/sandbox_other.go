//go:build !linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Probe: namespaces exist only on Linux.
func Probe() error {
	return fmt.Errorf("%w: namespaces are Linux-only (this is %s)", ErrUnavailable, runtime.GOOS)
}

// Wrap is not available without namespaces.
func Wrap(*exec.Cmd, Spec) error { return Probe() }

// MaybeInit does nothing where there is no namespace init.
func MaybeInit() {}
