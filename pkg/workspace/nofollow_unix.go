//go:build unix

package workspace

import "syscall"

// nofollow refuses to open a path whose last element became a symlink
// between the check and the open.
const nofollow = syscall.O_NOFOLLOW
