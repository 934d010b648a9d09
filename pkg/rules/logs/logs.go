// Package logs classifies container log lines: the decisive line that says
// why a process exited (a missing variable, a refused connection, a panic)
// and what it is about.
package logs

import (
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// LastDecisive returns the most telling line of a container's logs, from
// the previous instance first: it is the one that died.
func LastDecisive(c *rule.Pass, p *corev1.Pod, container string) (*Decisive, bool) {
	cur, prev := c.B.LogsFor(p.Name, container)
	for _, l := range []struct {
		entry *bundle.ContainerLog
		prev  bool
	}{{prev, true}, {cur, false}} {
		if l.entry == nil || l.entry.Error != "" {
			continue
		}
		if d := FindDecisive(l.entry.Text); d != nil {
			return d, l.prev
		}
	}
	return nil, false
}

// Pattern is one row of the decisive-log-line table: a line matching re
// explains why a container exited.
type Pattern struct {
	Class    string // category suffix, e.g. "MissingEnv"
	re       *regexp.Regexp
	Explains string // what the line means, for the report
	Fix      string // what a human should change
	// Priority orders classes when several match: a specific line beats a
	// generic "error" line.
	Priority int
}

// Patterns is the decisive-line catalogue, most specific first.
var Patterns = []Pattern{
	// The runtime's own words when the entrypoint cannot be executed: they
	// explain the exit better than anything the application could log.
	{"CommandNotFound", regexp.MustCompile(`(exec:? "?[^"\s:]+"?: (no such file or directory|executable file not found in \$PATH)|^(/bin/)?(ba|da)?sh: (\d+: )?(line \d+: )?[^\s:]+: (command )?not found|: command not found$)`),
		"the command the container runs does not exist in the image",
		"Fix the container's command/args (or the image's ENTRYPOINT) to a path that exists in the image, or rebuild the image so it ships the binary. If the file is there, its interpreter (#! line) or dynamic loader is not: a glibc binary on a musl/Alpine image also fails with \"no such file or directory\".", 95},
	{"ExecFormat", regexp.MustCompile(`(?i)exec format error`),
		"the entrypoint binary is built for another CPU architecture than the node's",
		"Use an image built for the node's architecture (a multi-arch image, or docker buildx --platform). A script entrypoint fails the same way without its #! line.", 95},
	// Go configuration libraries word it their own way: envconfig's
	// "required key X missing value", go-envconfig's "X: missing required
	// value"; the same words arrive inside a JSON log line.
	{"MissingEnv", regexp.MustCompile(`(?i)(required key "?[A-Z_][A-Z0-9_]*"? missing value|"?[A-Z_][A-Z0-9_]*"?:? missing required value|missing required value:? "?[A-Z_][A-Z0-9_]*"?|env(ironment)?( var(iable)?)?\s+"?[A-Z_][A-Z0-9_]*"?\s+(is\s+)?(not set|unset|missing|empty|required)|(required|missing|mandatory)\s+env(ironment)?( var(iable)?)?\s+"?[A-Z_][A-Z0-9_]*"?|"?[A-Z][A-Z0-9_]{2,}"?\s+(env(ironment)? var(iable)?\s+)?(is\s+)?(not set|must be set|is required|is empty))`),
		"the application requires an environment variable that is unset or empty",
		"Set the variable in the pod template (env or envFrom), or fix the ConfigMap/Secret it is read from.", 90},
	{"MissingFile", regexp.MustCompile(`(?i)((no such file or directory|cannot find|could not find|not found|failed to (open|read|load)|unable to (open|read|load))[^\n]*(\.ya?ml|\.json|\.conf|\.toml|\.ini|\.properties|\.cfg|\.env|config)|(open|stat|read) [^\s:]+: no such file or directory)`),
		"the application cannot find a file it needs (usually a config file expected from a mounted ConfigMap/Secret)",
		"Mount the file (ConfigMap/Secret volume with the right key and mountPath) or correct the path the application reads.", 85},
	// A schema migration (often an init container's job) that the database
	// refuses: the SQL error names what the migration expected.
	{"Migration", regexp.MustCompile(`(?i)(\bmigrat(e|ion|ions)\b[^\n]*\b(fail(ed|s|ure)?|error|dirty)\b|\b(relation|table|column) "?[\w.]+"? (does not exist|already exists)|dirty database version|duplicate column name)`),
		"a database schema migration failed",
		"Fix the failing migration or the database state it expects (a missing table, a half-applied migration), then let the container run it again.", 82},
	{"ConnectionRefused", regexp.MustCompile(`(?i)(connection refused|ECONNREFUSED|connect: connection refused|could not connect to|failed to connect to|unable to connect to)`),
		"the application cannot reach a dependency it needs at startup",
		"Check that the dependency's Service exists, has ready endpoints and listens on that port; make the application retry instead of exiting.", 80},
	{"DNS", regexp.MustCompile(`(?i)(no such host|name or service not known|temporary failure in name resolution|could not resolve host|getaddrinfo ENOTFOUND)`),
		"the application cannot resolve a host name it needs",
		"Check the host name in the configuration and that the Service it names exists in the expected namespace.", 80},
	// PostgreSQL's "data directory … has wrong ownership" and the like: a
	// volume mounted with the wrong owner for the process's user.
	{"PermissionDenied", regexp.MustCompile(`(?i)(permission denied|EACCES|operation not permitted|read-only file system|has wrong ownership|must be owned by|has invalid permissions)`),
		"the process is denied access to a file, directory or operation",
		"Check the container's securityContext (runAsUser, fsGroup, readOnlyRootFilesystem) and the ownership of the mounted paths.", 75},
	{"AddressInUse", regexp.MustCompile(`(?i)(address already in use|EADDRINUSE|bind: address)`),
		"the process cannot bind its listening port because another process already holds it",
		"Make sure only one process (or container sharing the pod network) listens on that port; check hostNetwork and sidecars.", 75},
	{"OutOfMemory", regexp.MustCompile(`(?i)(java\.lang\.OutOfMemoryError|fatal error: runtime: out of memory|JavaScript heap out of memory|Cannot allocate memory|MemoryError)`),
		"the process ran out of memory inside its own runtime",
		"Raise the memory limit or lower the runtime's heap size (e.g. -Xmx, --max-old-space-size) to fit within the container limit.", 70},
	{"Panic", regexp.MustCompile(`(^panic: |^fatal error: |goroutine \d+ \[running\]|^Traceback \(most recent call last\)|Exception in thread "|^Unhandled exception|^thread '.*' panicked at)`),
		"the application crashed with an unhandled panic or exception",
		"Fix the crash in the application code (the stack trace in the logs points at the failing line) or roll back to the last good version.", 60},
	// Below Panic: a Go panic prints "[signal SIGSEGV …]" under its
	// "panic:" line, and the panic line is the better headline.
	{"Segfault", regexp.MustCompile(`(?i)(segmentation (fault|violation)|SIGSEGV|core dumped)`),
		"the process crashed on an invalid memory access (segmentation fault) in native code",
		"Look for a native crash: a binary built for another libc or CPU, a broken native library or extension, or a bug in native code; reproduce with the same image locally.", 55},
	{"ErrorLine", regexp.MustCompile(`(?i)\b(fatal|critical|error|exception|failed)\b`),
		"the application logged an error just before exiting",
		"Read the error and fix the configuration or code it names.", 10},
}

// Decisive is a matched log line.
type Decisive struct {
	Pattern *Pattern
	Line    string    // without the timestamp prefix
	Time    time.Time // from the kubelet's timestamp prefix, when present
}

// FindDecisive scans a log tail and returns its most telling line: the most
// specific pattern wins; among equals, the last line (closest to the exit).
func FindDecisive(text string) *Decisive {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var best *Decisive
	for i := len(lines) - 1; i >= 0; i-- {
		at, line := SplitTimestamp(lines[i])
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for pi := range Patterns {
			p := &Patterns[pi]
			if best != nil && p.Priority <= best.Pattern.Priority {
				break
			}
			if p.re.MatchString(line) {
				best = &Decisive{Pattern: p, Line: line, Time: at}
				// A panic's first line is more telling than its stack frames.
				if p.Class == "Panic" {
					best.Line = panicHeadline(lines, i)
				}
				break
			}
		}
	}
	return best
}

// panicHeadline returns the line that names a panic, not a stack frame: the
// "panic:" line above a goroutine dump, or the last line of a Python
// traceback block.
func panicHeadline(lines []string, i int) string {
	_, line := SplitTimestamp(lines[i])
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "Traceback"):
		for j := i + 1; j < len(lines); j++ {
			_, l := SplitTimestamp(lines[j])
			if l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
				return strings.TrimSpace(l)
			}
		}
	case strings.HasPrefix(line, "goroutine "):
		for j := i - 1; j >= 0; j-- {
			_, l := SplitTimestamp(lines[j])
			if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
				return strings.TrimSpace(l)
			}
		}
	}
	return line
}

// SplitTimestamp removes the RFC3339 prefix the kubelet adds with
// timestamps=true.
func SplitTimestamp(line string) (time.Time, string) {
	if i := strings.IndexByte(line, ' '); i >= 20 && i <= 40 {
		if t, err := time.Parse(time.RFC3339Nano, line[:i]); err == nil {
			return t, line[i+1:]
		}
	}
	return time.Time{}, line
}

var envNameRe = regexp.MustCompile(`\b([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,})\b`)

var PathRe = regexp.MustCompile(`(/[\w.@-]+)+`)

// CommandRe names the missing command: `exec "foo": …` / `exec /app/x: …`
// (group 1) or a shell's `sh: 1: foo: not found` (group 2).
var CommandRe = regexp.MustCompile(`exec:? "?([^"\s:]+)"?:|sh: (?:\d+: )?(?:line \d+: )?([^\s:]+): (?:command )?not found`)

// SubjectOf names what a decisive line is about: the variable, the file, the
// endpoint. Empty when the line does not say.
func SubjectOf(class, line string) string {
	switch class {
	case "MissingEnv":
		for _, m := range envNameRe.FindAllString(line, -1) {
			switch m {
			case "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "ENV", "PANIC", "CRITICAL":
				continue
			}
			return "environment variable " + m
		}
	case "MissingFile", "PermissionDenied", "ExecFormat":
		// The last path is the one the error is about: in "/bin/sh:
		// /app/run.sh: Permission denied" the shell only reports it.
		if m := PathRe.FindAllString(line, -1); len(m) > 0 {
			return m[len(m)-1]
		}
	case "CommandNotFound":
		if m := CommandRe.FindStringSubmatch(line); m != nil {
			return "command " + m[1] + m[2] // only one group matches
		}
	case "ConnectionRefused", "DNS":
		return EndpointIn(line)
	}
	return ""
}

// hostPortRe finds the endpoint a connection error names.
var hostPortRe = regexp.MustCompile(`(?:dial tcp |connect to |connecting to |to |host )?\[?([a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]|\d+\.\d+\.\d+\.\d+)\]?:(\d{2,5})\b`)

// clockRe matches what hostPortRe takes for host:port in a timestamp:
// "2026-11-26T07:00" in a logfmt line's time=2026-11-26T07:00:01Z.
var clockRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T)?\d{1,2}$`)

// EndpointIn returns "host:port" named in a log line, if any.
func EndpointIn(line string) string {
	for _, m := range hostPortRe.FindAllStringSubmatch(line, -1) {
		if !clockRe.MatchString(m[1]) {
			return m[1] + ":" + m[2]
		}
	}
	return ""
}
