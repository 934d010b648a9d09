package term

import (
	"os"

	"golang.org/x/sys/windows"
)

// enableVirtualTerminal asks the console to interpret ANSI sequences (the
// default in Windows Terminal, not in the older console host); false when it
// cannot.
func enableVirtualTerminal(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
