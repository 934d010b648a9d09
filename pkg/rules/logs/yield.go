package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// A decisive line that only reports another failure yields to the line
// that states it. FindDecisive applies these after its ranking.

// wrapperBack bounds how far before a wrapper line the subprocess's own
// output is looked for: its error and the few lines it prints after it
// (iptables-restore's "Error occurred at line: 1", its --help hint).
const wrapperBack = 6

// subprocessCause: a generic crash or error line that says only that a
// subprocess exited (istio-iptables' "panic: exit status 2", linkerd
// proxy-init's "Error: exit status 3", Python's CalledProcessError) yields
// to the subprocess's own error printed just before it: the earliest
// error-like line of the few before the wrapper, whose first error is the
// cause and whose later lines its context. A line of a specific class
// already wins FindDecisive's ranking; this is for the rest.
func subprocessCause(log *applog.Log, best *Decisive) *Decisive {
	if best == nil || best.Pattern.Priority >= specific || best.ev == nil || !applog.ExitOnly(best.Line) {
		return best
	}
	at := -1
	for i := range log.Events {
		if &log.Events[i] == best.ev {
			at = i
		}
	}
	var cause *applog.Event
	seen := 0
	for i := at - 1; i >= 0 && seen < wrapperBack; i-- {
		ev := &log.Events[i]
		text := strings.TrimSpace(ev.Text())
		if text == "" || ev.Hint {
			continue
		}
		seen++
		if ev.Level >= applog.LevelTrace && ev.Level <= applog.LevelInfo && !ev.Implied && ev.Format != applog.FormatPlain {
			break // the program's own record: the subprocess's output ended
		}
		if ev.Level >= applog.LevelError && !applog.ExitOnly(text) {
			cause = ev
		}
	}
	if cause == nil {
		return best
	}
	line := strings.TrimSpace(cause.Text())
	p := classify(line, cause.Trace != "")
	if p == nil || p.Priority <= best.Pattern.Priority {
		p = subprocessRow
	}
	return newDecisive(p, line, cause)
}

// deniedDirRe is a directory a permission error says could not be made
// or written: coreutils mkdir's "cannot create directory 'x': Permission
// denied", Python's "[Errno 13] Permission denied: 'x'".
var (
	deniedDirRe = regexp.MustCompile(`(?i)cannot create directory ['‘"]?(?P<dir>[^'’"\s]+)['’"]?: Permission denied|Permission denied: ['"](?P<dir>[^'"]+)['"]`)
	pathTokenRe = regexp.MustCompile(`(?:\.{1,2}/|/)[\w.@=+-]+(?:/[\w.@=+-]+)*`)
)

// deniedBeforeMissing: a missing file under a directory the same log
// could not create for want of permission is that refusal's consequence
// (the Nexus image's start script is denied mkdir ../sonatype-work/nexus3/tmp,
// so its launcher's lock file there "(No such file or directory)"):
// the log's permission error is the decisive line.
func deniedBeforeMissing(best, denied *Decisive, dirs []string) *Decisive {
	if best == nil || denied == nil || best.Pattern.Class != MissingFile || best.Pattern.Priority < specific {
		return best
	}
	for _, path := range pathTokenRe.FindAllString(best.Line, -1) {
		for _, dir := range dirs {
			if strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/") {
				return denied
			}
		}
	}
	return best
}

// deniedDirs are the directories a line says could not be created.
func deniedDirs(line string) []string {
	var out []string
	for _, m := range deniedDirRe.FindAllStringSubmatch(line, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}
