package term

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns both ends of a new pseudo-terminal.
func openPTY(t *testing.T) (controller, terminal *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { controller.Close() })
	fd := int(controller.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	terminal, err = os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	t.Cleanup(func() { terminal.Close() })
	return controller, terminal
}

// Detect on a real terminal: colour unless NO_COLOR or TERM=dumb, and the
// terminal's own width.
func TestDetectPTY(t *testing.T) {
	_, tty := openPTY(t)
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 132}); err != nil {
		t.Fatalf("set window size: %v", err)
	}
	for _, tt := range []struct {
		env           map[string]string
		redraw, color bool
	}{
		{map[string]string{"TERM": "xterm"}, true, true},
		{map[string]string{"TERM": "xterm", EnvNoColor: "1"}, true, false},
		{map[string]string{"TERM": "dumb"}, false, false},
	} {
		got := Detect(tty, env(tt.env))
		if !got.TTY || got.Redraw != tt.redraw || got.Color != tt.color {
			t.Errorf("Detect(pty, %v) = %+v, want tty, redraw %v, colour %v", tt.env, got, tt.redraw, tt.color)
		}
		if w := got.Width(); w != 132 {
			t.Errorf("Width = %d, want 132", w)
		}
	}
}
