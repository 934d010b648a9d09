package term

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

const (
	// DefaultInterval is how often the live line is redrawn: fast enough
	// for the spinner to look alive, slow enough to cost nothing.
	DefaultInterval = 100 * time.Millisecond

	eraseLine = "\r\x1b[K"
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// ProgressOptions tune a Progress. The zero value is fine.
type ProgressOptions struct {
	// Interval between redraws of the live line. Default: DefaultInterval.
	Interval time.Duration
}

// Progress reports the steps of a run on a stream (stderr), from any number
// of goroutines.
//
// On a terminal that can redraw (Terminal.Redraw) the current step is one
// line, rewritten in place with a spinner and the time since the Progress
// was made; messages Keep selects are printed as lines above it. Anywhere
// else every message is a plain line, as a log would have it. Stop clears
// the live line: call it before anything else is written to the terminal,
// the report on stdout included. Messages after Stop are plain lines.
type Progress struct {
	w        io.Writer
	term     Terminal
	interval time.Duration
	now      func() time.Time
	start    time.Time

	mu      sync.Mutex
	current string // the step on the live line
	frame   int
	drawn   bool // the live line is on screen
	midLine bool // a write through Writer left the cursor mid-line
	stopped bool
	quit    chan struct{} // closed by Stop; nil until the ticker runs
	done    chan struct{} // closed when the ticker has returned
}

// NewProgress reports on w, which t describes (see Detect).
func NewProgress(w io.Writer, t Terminal, opts ProgressOptions) *Progress {
	p := &Progress{w: w, term: t, interval: opts.Interval, now: time.Now}
	if p.interval <= 0 {
		p.interval = DefaultInterval
	}
	p.start = p.now()
	return p
}

// Line reports one message: a step, which only replaces the live line on a
// terminal, or with keep a message printed as a line above it (a warning,
// the incident's ID). The caller knows which (a typed progress event says so
// by its kind, pkg/progress); nothing here reads the text to decide.
func (p *Progress) Line(msg string, keep bool) {
	msg = sanitize(msg)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.term.Redraw || p.stopped {
		p.writeLine(msg)
		return
	}
	if keep {
		p.clear()
		p.writeLine(msg)
		p.draw()
		return
	}
	p.current = strings.ReplaceAll(strings.TrimSpace(firstLine(msg)), "\t", " ")
	if p.quit == nil {
		p.quit, p.done = make(chan struct{}), make(chan struct{})
		go p.tick(p.quit, p.done)
	}
	p.draw()
}

// Writer is a writer for other output to the same stream (warnings printed
// directly, logs): it takes the live line away while the text is written and
// puts it back after a complete line.
func (p *Progress) Writer() io.Writer { return progressWriter{p} }

type progressWriter struct{ p *Progress }

func (pw progressWriter) Write(b []byte) (int, error) {
	p := pw.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.term.Redraw || p.stopped {
		return p.w.Write(b)
	}
	p.clear()
	n, err := p.w.Write(b)
	if len(b) > 0 {
		p.midLine = b[len(b)-1] != '\n'
	}
	p.draw()
	return n, err
}

// Stop clears the live line and stops redrawing it; it returns once nothing
// more will be drawn. Safe to call more than once.
func (p *Progress) Stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.clear()
	quit, done := p.quit, p.done
	p.mu.Unlock()
	if quit != nil {
		close(quit)
		<-done
	}
}

func (p *Progress) tick(quit <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-t.C:
			p.mu.Lock()
			if !p.stopped {
				p.frame++
				p.draw()
			}
			p.mu.Unlock()
		}
	}
}

// writeLine prints msg on a line of its own; p.mu is held.
func (p *Progress) writeLine(msg string) {
	fmt.Fprintln(p.w, p.term.Highlight(msg))
}

// clear erases the live line; p.mu is held.
func (p *Progress) clear() {
	if p.drawn {
		io.WriteString(p.w, eraseLine)
		p.drawn = false
	}
}

// draw (re)writes the live line; p.mu is held.
func (p *Progress) draw() {
	if p.current == "" || p.midLine {
		return
	}
	spinner := spinnerFrames[p.frame%len(spinnerFrames)]
	suffix := " (" + formatElapsed(p.now().Sub(p.start)) + ")"
	// One column short of the width: a line that fills it wraps on some
	// terminals, and \r would then redraw only its second half.
	room := p.term.Width() - 1 - utf8.RuneCountInString(spinner) - 1 - utf8.RuneCountInString(suffix)
	io.WriteString(p.w, eraseLine+p.term.Paint(spinner, Cyan)+" "+ellipsize(p.current, room)+suffix)
	p.drawn = true
}

// formatElapsed is 2.1s under a minute and 1m5s after.
func formatElapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Truncate(time.Second).String()
}

// ellipsize shortens s to at most n runes, ending in "…" when cut.
func ellipsize(s string, n int) string {
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sanitize removes what Clean removes (escape sequences, C0 and C1
// controls, bidirectional overrides) and replaces any control character
// left but newline and tab: messages carry text from the cluster and from
// agents, which must not move the cursor, retitle the window, colour the
// terminal or reorder what the line says.
func sanitize(s string) string {
	s = Clean(s)
	clean := func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }
	if strings.IndexFunc(s, clean) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if clean(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}
