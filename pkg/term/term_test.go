package term

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name                string
		env                 map[string]string
		tty, redraw, colour bool
	}{
		{"a buffer is plain", nil, false, false, false},
		{"NO_COLOR alone changes nothing", map[string]string{EnvNoColor: "1"}, false, false, false},
		{"forced", map[string]string{EnvForceTTY: "1"}, true, true, true},
		{"forced with true", map[string]string{EnvForceTTY: "true"}, true, true, true},
		{"not forced by 0", map[string]string{EnvForceTTY: "0"}, false, false, false},
		{"forced, NO_COLOR", map[string]string{EnvForceTTY: "1", EnvNoColor: "1"}, true, true, false},
		{"forced, empty NO_COLOR", map[string]string{EnvForceTTY: "1", EnvNoColor: ""}, true, true, true},
		{"forced, TERM=dumb", map[string]string{EnvForceTTY: "1", "TERM": "dumb"}, true, false, false},
		{"forced, TERM=xterm", map[string]string{EnvForceTTY: "1", "TERM": "xterm-256color"}, true, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Detect(&bytes.Buffer{}, env(tt.env))
			if got.TTY != tt.tty || got.Redraw != tt.redraw || got.Color != tt.colour {
				t.Errorf("Detect = tty %v redraw %v colour %v, want %v %v %v", got.TTY, got.Redraw, got.Color, tt.tty, tt.redraw, tt.colour)
			}
			if got.Width() != defaultWidth {
				t.Errorf("Width = %d, want %d without a terminal", got.Width(), defaultWidth)
			}
		})
	}
}

func TestDetectRegularFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := Detect(f, env(nil)); got.TTY || got.Redraw || got.Color {
		t.Errorf("a regular file is not a terminal: %+v", got)
	}
}

func TestPaintAndHighlight(t *testing.T) {
	colour, plain := Terminal{TTY: true, Redraw: true, Color: true}, Terminal{TTY: true, Redraw: true}
	for _, tt := range []struct {
		term Terminal
		in   string
		want string
	}{
		{colour, "error: boom", "\x1b[31;1merror:\x1b[0m boom"},
		{colour, "Warning: careful", "\x1b[33;1mWarning:\x1b[0m careful"},
		{colour, "Collected 3 objects", "Collected 3 objects"},
		{colour, "warn", "warn"},
		{plain, "error: boom", "error: boom"},
	} {
		if got := tt.term.Highlight(tt.in); got != tt.want {
			t.Errorf("Highlight(%q) with colour %v = %q, want %q", tt.in, tt.term.Color, got, tt.want)
		}
	}
	if got := colour.Paint("ok", Green); got != "\x1b[32mok\x1b[0m" {
		t.Errorf("Paint = %q", got)
	}
	if got := plain.Paint("ok", Green); got != "ok" {
		t.Errorf("Paint without colour = %q", got)
	}
}

// syncBuffer is a bytes.Buffer the test may read while the ticker writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var redraw = Terminal{TTY: true, Redraw: true}

// newTestProgress has a clock that stands still at 2.5s, and a ticker that
// will not fire during the test unless interval is short.
func newTestProgress(w *syncBuffer, t Terminal, interval time.Duration) *Progress {
	p := NewProgress(w, t, ProgressOptions{Interval: interval})
	p.start = time.Unix(1000, 0)
	p.now = func() time.Time { return p.start.Add(2500 * time.Millisecond) }
	return p
}

func TestProgressPlain(t *testing.T) {
	var out syncBuffer
	p := newTestProgress(&out, Terminal{}, time.Hour)
	p.Line(fmt.Sprintf("Resolving %s", "pod/api"), false)
	p.Line(fmt.Sprintf("warning: could not read %s", "logs"), true)
	p.Line("  agent: evil \x1b]0;title\x07 tool\r", false)
	p.Line(fmt.Sprintf("Fault %s for pod/x", "Crash\u202eLoop\x1b[2J\u009b31m"), false)
	fmt.Fprintln(p.Writer(), "direct line")
	p.Stop()
	p.Line(fmt.Sprintf("Incident %s resolved", "x"), false)
	want := "Resolving pod/api\nwarning: could not read logs\n  agent: evil  tool\nFault Crash<U+202E>Loop for pod/x\ndirect line\nIncident x resolved\n"
	if got := out.String(); got != want {
		t.Errorf("plain output:\n%q\nwant\n%q", got, want)
	}
}

func TestProgressRedraw(t *testing.T) {
	var out syncBuffer
	p := newTestProgress(&out, redraw, time.Hour)
	p.Line("Resolving pod/api", false)
	p.Line("Collecting\tevents\nsecond line", false)
	p.Line("warning: could not read logs", true)
	fmt.Fprint(p.Writer(), "half a line… ")
	p.Line("Investigating", false) // not drawn over the half line
	fmt.Fprint(p.Writer(), "done\n")
	p.Stop()
	p.Stop()
	p.Line("Incident x resolved", false)

	want := eraseLine + "⠋ Resolving pod/api (2.5s)" +
		eraseLine + "⠋ Collecting events (2.5s)" +
		eraseLine + "warning: could not read logs\n" +
		eraseLine + "⠋ Collecting events (2.5s)" +
		eraseLine + "half a line… " +
		"done\n" + eraseLine + "⠋ Investigating (2.5s)" +
		eraseLine +
		"Incident x resolved\n"
	if got := out.String(); got != want {
		t.Errorf("terminal output:\n%q\nwant\n%q", got, want)
	}
}

func TestProgressFitsTheWidth(t *testing.T) {
	var out syncBuffer
	p := newTestProgress(&out, redraw, time.Hour)
	p.Line(strings.Repeat("x", 300), false)
	line := strings.TrimPrefix(out.String(), eraseLine)
	if n := len([]rune(line)); n != defaultWidth-1 || !strings.Contains(line, "…") {
		t.Errorf("live line is %d runes, want %d ending in an ellipsis: %q", n, defaultWidth-1, line)
	}
	p.Stop()
}

// The ticker redraws with the next spinner frame, and Stop leaves the
// line erased with nothing drawn after it.
func TestProgressTicks(t *testing.T) {
	var out syncBuffer
	p := NewProgress(&out, redraw, ProgressOptions{Interval: time.Millisecond})
	p.Line("Investigating", false)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), spinnerFrames[1]+" Investigating") {
		if time.Now().After(deadline) {
			t.Fatalf("the spinner never moved: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Stop()
	got := out.String()
	if !strings.HasSuffix(got, eraseLine) {
		t.Errorf("after Stop the live line must be erased: ends %q", got[max(0, len(got)-40):])
	}
}

// Many goroutines report at once (run with -race): every warning arrives
// whole, on its own line, and the output ends erased.
func TestProgressConcurrent(t *testing.T) {
	for _, term := range []Terminal{{}, redraw} {
		var out syncBuffer
		p := NewProgress(&out, term, ProgressOptions{Interval: time.Millisecond})
		var wg sync.WaitGroup
		const workers, each = 8, 50
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if i%2 == 0 {
						p.Line(fmt.Sprintf("warning: worker %d message %d", w, i), true)
					} else {
						p.Line(fmt.Sprintf("step %d of worker %d", i, w), false)
					}
				}
			}()
		}
		wg.Wait()
		p.Stop()
		got := out.String()
		for w := range workers {
			for i := 0; i < each; i += 2 {
				line := fmt.Sprintf("warning: worker %d message %d\n", w, i)
				if strings.Count(got, line) != 1 {
					t.Fatalf("redraw %v: %q appears %d times", term.Redraw, line, strings.Count(got, line))
				}
			}
		}
		if term.Redraw {
			if !strings.HasSuffix(got, eraseLine) {
				t.Errorf("output does not end erased")
			}
		} else if strings.ContainsAny(got, "\r\x1b") {
			t.Errorf("plain output has control characters")
		}
	}
}

func TestFormatElapsed(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0.0s"},
		{2100 * time.Millisecond, "2.1s"},
		{59900 * time.Millisecond, "59.9s"},
		{65*time.Second + 900*time.Millisecond, "1m5s"},
		{2 * time.Hour, "2h0m0s"},
	} {
		if got := formatElapsed(tt.d); got != tt.want {
			t.Errorf("formatElapsed(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestEllipsize(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"too long", 5, "too …"},
		{"ééééé", 3, "éé…"},
		{"x", 0, ""},
	} {
		if got := ellipsize(tt.s, tt.n); got != tt.want {
			t.Errorf("ellipsize(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
