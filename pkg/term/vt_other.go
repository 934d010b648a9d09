//go:build !windows

package term

import "os"

// enableVirtualTerminal: Unix terminals interpret ANSI sequences.
func enableVirtualTerminal(*os.File) bool { return true }
