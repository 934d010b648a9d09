// Package applog understands what real applications print: it reads a
// container's log tail (as the kubelet serves it, optionally with its
// RFC3339Nano timestamp prefix), recognises each record's format (JSON from
// zap/logrus/slog/pino/bunyan/log4j2/Serilog/ECS/GCP, logfmt, klog/glog or
// plain text), groups multi-line stack traces into one event, picks the
// decisive line(s) by severity, position before the termination and
// repetition, and extracts the entities those lines name (environment
// variables, ports, hosts, paths, certificates, SQL objects, RBAC denials).
//
// It knows nothing about Kubernetes objects: correlating what a log names
// with the pod spec and the cluster is the investigator's job.
package applog

import (
	"strings"
	"time"
)

// Format is how a record (or a whole container log) is written.
type Format string

const (
	FormatJSON   Format = "json"
	FormatLogfmt Format = "logfmt"
	FormatKlog   Format = "klog"
	FormatPlain  Format = "plain"
)

// Level is a record's severity, normalised across libraries.
type Level int8

const (
	LevelUnknown Level = iota
	LevelTrace
	LevelDebug
	LevelInfo
	LevelWarn
	LevelError
	LevelFatal
)

func (l Level) String() string {
	return [...]string{"unknown", "trace", "debug", "info", "warn", "error", "fatal"}[l]
}

// Trace is the kind of multi-line crash report an event holds.
type Trace string

const (
	TraceGoPanic   Trace = "go-panic"
	TraceJava      Trace = "java-exception"
	TracePython    Trace = "python-traceback"
	TraceNode      Trace = "node-exception"
	TraceRust      Trace = "rust-panic"
	TraceDotNet    Trace = "dotnet-exception"
	TraceRuby      Trace = "ruby-exception"
	TraceGoroutine Trace = "go-fatal" // "fatal error:" from the Go runtime
)

// Event is one logical log record: a single line, or a line and the stack
// trace or continuation lines that belong to it.
type Event struct {
	Line   int       // index of its first line in the input (0-based)
	Lines  int       // how many input lines it spans
	Time   time.Time // the kubelet's timestamp prefix, when present
	Format Format
	Level  Level
	// Implied is true when Level was guessed from the words of an unlevelled
	// line ("failed", "error") rather than declared by the logger.
	Implied bool
	Message string // the message field, or the line without its prefix
	Error   string // the error field of a structured record
	// Trace names the crash report this event holds, and Headline its
	// decisive line: the innermost "Caused by:" of a Java exception, the
	// exception line ending a Python traceback, the "panic:" line of Go.
	Trace    Trace
	Headline string
	// Hint: the record only points elsewhere ("For more details run the
	// same command passing the '--verbose' option", "Run with
	// --stacktrace"): never a decisive line, whatever its level (hint.go).
	Hint bool
	Raw  []string // the input lines, without the timestamp prefix
}

// Text is the event in one line: the crash headline, or the message and the
// error field joined the way the application would have printed them.
func (e *Event) Text() string {
	if e.Headline != "" {
		return e.Headline
	}
	msg, err := strings.TrimSpace(e.Message), strings.TrimSpace(e.Error)
	switch {
	case err == "" || strings.Contains(msg, err):
		return msg
	case msg == "":
		return err
	case strings.HasSuffix(msg, ":"): // "error authenticating:" and its value
		return msg + " " + err
	}
	return msg + ": " + err
}

// Log is a parsed container log.
type Log struct {
	Format Format // the format most of its records use
	Events []Event
	Lines  int // input lines, blank ones included
}

// SplitTimestamp removes the RFC3339Nano prefix the kubelet adds with
// timestamps=true (kubectl logs --timestamps).
func SplitTimestamp(line string) (time.Time, string) {
	// Cheap test first: every such prefix starts with a 4-digit year and has
	// a 'T' at index 10; most lines fail here without a parse.
	if len(line) < 21 || line[4] != '-' || line[10] != 'T' {
		return time.Time{}, line
	}
	if i := strings.IndexByte(line, ' '); i >= 20 && i <= 40 {
		if t, err := time.Parse(time.RFC3339Nano, line[:i]); err == nil {
			return t, line[i+1:]
		}
	}
	return time.Time{}, line
}
