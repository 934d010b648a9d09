package logs

import (
	"regexp"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// The application crashed or said it failed, without a more specific
// cause.
const (
	Panic      Class = "Panic"
	Segfault   Class = "Segfault"
	FatalError Class = "FatalError"
	ErrorLine  Class = "ErrorLine"
)

var _ = register(Def{
	Class: Panic,
	Patterns: []Pattern{{re: regexp.MustCompile(`(^panic: |^fatal error: |goroutine \d+ \[running\]|^Traceback \(most recent call last\)|Exception in thread "|^Unhandled exception|^thread '.*' panicked at)`),
		Explains: "the application crashed with an unhandled panic or exception",
		Fix:      "Fix the crash in the application code (the stack trace in the logs points at the failing line) or roll back to the last good version.", Priority: 60}},
	// A crash report's root cause that matches nothing more specific.
	Crash: true,
})

// Below Panic: a Go panic prints "[signal SIGSEGV …]" under its "panic:"
// line, and the panic line is the better headline.
var _ = register(Def{
	Class: Segfault,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(segmentation (fault|violation)|SIGSEGV|core dumped)`),
		Explains: "the process crashed on an invalid memory access (segmentation fault) in native code",
		Fix:      "Look for a native crash: a binary built for another libc or CPU, a broken native library or extension, or a bug in native code; reproduce with the same image locally.", Priority: 55}},
	Signals: []applog.Signal{applog.SigSegfault},
})

// A structured logger's own fatal or error record, last before the exit,
// whose words match nothing above: the application's last words are the
// cause it states (logrus's {"level":"fatal","msg":"invalid log level
// set"}). Never matched by words; FindDecisive assigns it.
var fatalError = register(Def{
	Class: FatalError,
	Patterns: []Pattern{{
		Explains: "the application reported a fatal error of its own and exited",
		Fix:      "Fix what the error names: the setting, flag or dependency it reports (the line is the application's own last words before the exit).", Priority: 20},
		// A command the application ran failed and it stopped on the
		// exit status: the command's own error line (subprocessCause).
		{Explains: "a command the application runs failed, and the application stopped on its exit status; the command's own error is the line quoted",
			Fix: "Fix what the command's error names (a missing kernel module or capability, a file, a setting of the node or the image); the application's own exit is only its consequence.", Priority: 20}},
	Declared: true,
	// Its own words are the only subject it has.
	Subject: func(line string) string {
		if len(line) > 120 {
			return line[:117] + "..."
		}
		return line
	},
})

var _ = register(Def{
	Class: ErrorLine,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)\b(fatal|critical|error|exception|failed)\b`),
		Explains: "the application logged an error just before exiting",
		Fix:      "Read the error and fix the configuration or code it names.", Priority: 10}},
})

// subprocessRow is FatalError's row for a subprocess's own error.
var subprocessRow = &fatalError.Patterns[1]
