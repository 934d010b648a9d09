// Package logs classifies container log lines: the decisive line that says
// why a process exited (a missing variable, a refused connection, a panic)
// and what it is about.
package logs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
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
	Class    string         // category suffix, e.g. "MissingEnv"
	re       *regexp.Regexp // nil: matched by patternSignals instead
	Explains string         // what the line means, for the report
	Fix      string         // what a human should change
	// Priority orders classes when several match: a specific line beats a
	// generic "error" line.
	Priority int
}

// patternSignals matches the patterns without a regular expression by the
// log component's signal: it knows each runtime's and library's wording.
var patternSignals = map[string]applog.Signal{
	"InvalidConfig":  applog.SigConfig,
	"MissingLibrary": applog.SigLoader,
	"ShellSyntax":    applog.SigShellSyntax,
	"Forbidden":      applog.SigForbidden,
	"NoSpace":        applog.SigNoSpace,
	"MissingModule":  applog.SigModule,
	"TLS":            applog.SigTLS,
	"AuthFailed":     applog.SigUnauthorized,
	"PrivilegedPort": applog.SigBindDenied,
	"Timeout":        applog.SigTimeout,
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
	// The dynamic loader cannot find a shared library (glibc binary on a
	// musl image, a missing package).
	{Class: "MissingLibrary",
		Explains: "the entrypoint binary needs a shared library (or dynamic loader) the image does not have",
		Fix:      "Install the library in the image, or build the binary for the image's libc (a glibc binary on an Alpine/musl image fails this way; build it static or use a glibc base image).", Priority: 95},
	// A shell script the container runs does not parse: CRLF line endings
	// or a bash-only construct under /bin/sh.
	{Class: "ShellSyntax",
		Explains: "a shell script the container runs (entrypoint or command) has a syntax error",
		Fix:      "Fix the script: Windows line endings (CRLF), bash-only syntax run by /bin/sh (dash or busybox), or an unbalanced quote in the command/args.", Priority: 93},
	// Go configuration libraries word it their own way: envconfig's
	// "required key X missing value", go-envconfig's "X: missing required
	// value"; the same words arrive inside a JSON log line.
	// Case-sensitive for the name: "password is required" names no variable.
	{"MissingEnv", regexp.MustCompile(`required key "?[A-Z_][A-Z0-9_]*"? missing value|"?[A-Z_][A-Z0-9_]*"?:? missing required value|missing required value:? "?[A-Z_][A-Z0-9_]*"?|(?i:env(?:ironment)?(?: var(?:iable)?)?)\s+"?[A-Z_][A-Z0-9_]*"?\s+(?i:(?:is\s+)?(?:not set|unset|missing|empty|required))|(?i:(?:required|missing|mandatory)\s+env(?:ironment)?(?: var(?:iable)?)?)\s+"?[A-Z_][A-Z0-9_]*"?|"?[A-Z][A-Z0-9_]{2,}"?\s+(?i:(?:env(?:ironment)? var(?:iable)?\s+)?(?:is\s+)?(?:not set|must be set|is required|is empty))`),
		"the application requires an environment variable that is unset or empty",
		"Set the variable in the pod template (env or envFrom), or fix the ConfigMap/Secret it is read from.", 90},
	// The API server's and client-go's exact wording: "pods is forbidden:
	// User "system:serviceaccount:ns:sa" cannot list resource "pods"…".
	{Class: "Forbidden",
		Explains: "the pod's ServiceAccount lacks an RBAC permission the application needs",
		Fix:      "Grant the ServiceAccount the verb on the resource it names (a Role and RoleBinding in the namespace, or a ClusterRole and ClusterRoleBinding at cluster scope), or run the pod under the ServiceAccount that has it.", Priority: 88},
	{Class: "NoSpace",
		Explains: "the volume or filesystem the application writes to is full",
		Fix:      "Free space or grow the volume (a PVC's storage request, if its StorageClass allows expansion); for an emptyDir, raise its sizeLimit or the node's ephemeral storage.", Priority: 87},
	{"MissingFile", regexp.MustCompile(`(?i)((no such file or directory|cannot find|could not find|not found|failed to (open|read|load)|unable to (open|read|load))[^\n]*(\.ya?ml|\.json|\.conf|\.toml|\.ini|\.properties|\.cfg|\.env|config)|(open|stat|read) [^\s:]+: no such file or directory)`),
		"the application cannot find a file it needs (usually a config file expected from a mounted ConfigMap/Secret)",
		"Mount the file (ConfigMap/Secret volume with the right key and mountPath) or correct the path the application reads.", 85},
	// A schema migration (often an init container's job) that the database
	// refuses: the SQL error names what the migration expected.
	{"Migration", regexp.MustCompile(`(?i)(\bmigrat(e|ion|ions)\b[^\n]*\b(fail(ed|s|ure)?|error|dirty)\b|\b(relation|table|column) "?[\w.]+"? (does not exist|already exists)|dirty database version|duplicate column name)`),
		"a database schema migration failed",
		"Fix the failing migration or the database state it expects (a missing table, a half-applied migration), then let the container run it again.", 82},
	// The database answers but lacks what the application connects to:
	// PostgreSQL's postinit.c 'database "%s" does not exist' and miscinit.c
	// 'role "%s" does not exist', MySQL's ER_BAD_DB_ERROR "Unknown database
	// '%s'". Above ConnectionRefused: the server answered, though drivers
	// word it "failed to connect to `host=db …`: server error (FATAL:
	// database "shop" does not exist)" (pgx).
	{"SQL", regexp.MustCompile(`(?i)\b(database|role|schema) "?[\w.-]+"? does not exist|Unknown database '[^']+'`),
		"the database server answers but lacks the database, role or schema the application connects to",
		"Create what the error names (or run the migrations or init scripts that create it), or correct the database name or user in the application's connection settings.", 81},
	// A database server refusing to initialise a data directory that
	// already holds files: MySQL's MY-010457 "--initialize specified but
	// the data directory has files in it" and MY-013236 "The designated
	// data directory %s is unusable", PostgreSQL's initdb "directory \"%s\"
	// exists but is not empty" (a volume's mount point holds lost+found).
	{"DataDirNotEmpty", regexp.MustCompile(`data directory has files in it|designated data directory \S+ is unusable|initdb: (?:error: )?directory "[^"]+" exists but is not empty`),
		"the database server will not initialise its data directory because it already holds files (often a volume's lost+found, when the volume's mount point is the data directory)",
		"Point the data directory at a subdirectory of the volume (PGDATA=/var/lib/postgresql/data/pgdata, a subPath volume mount, or mysqld --datadir), or empty the volume if nothing on it is to be kept.", 86},
	{Class: "MissingModule",
		Explains: "the application cannot load a module, package or class it imports",
		Fix:      "Install the dependency in the image (node_modules, site-packages, the jar on the classpath) or fix the entrypoint path the runtime loads.", Priority: 84},
	{Class: "TLS",
		Explains: "a TLS handshake fails: a certificate is expired, not yet valid, issued for another name, or signed by an unknown authority",
		Fix:      "Renew the certificate (or fix the node's clock), make the name the client dials one of the certificate's names, or give the client the CA bundle that signed it.", Priority: 83},
	{Class: "AuthFailed",
		Explains: "a dependency rejects the application's credentials",
		Fix:      "Check the credentials the pod is given (the Secret and key it reads) against the dependency's, and that the user exists there.", Priority: 81},
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
	// Binding a port below 1024 as a non-root user without
	// NET_BIND_SERVICE.
	{Class: "PrivilegedPort",
		Explains: "the process may not bind its listening port: a port below 1024 needs root or the NET_BIND_SERVICE capability",
		Fix:      "Listen on a port above 1024 (and point containerPort, probes and the Service's targetPort at it), or add the NET_BIND_SERVICE capability to the container's securityContext.", Priority: 78},
	{"AddressInUse", regexp.MustCompile(`(?i)(address already in use|EADDRINUSE|bind: address|port \S+ (was|is) already in use|may already be in use)`),
		"the process cannot bind its listening port because another process already holds it",
		"Make sure only one process (or container sharing the pod network) listens on that port; check hostNetwork and sidecars.", 75},
	// Exit code 2's usual reason: an unknown flag, an unparsable value.
	{Class: "InvalidConfig",
		Explains: "the application rejects its command-line arguments or configuration",
		Fix:      "Correct the container's command/args (or the config file it parses) to what this version of the program accepts; a literal $(VAR) in an argument means VAR is not defined in the container's env.", Priority: 72},
	// A dial or call that got no answer: the host exists but nothing
	// answers in time (its pods not Ready, a NetworkPolicy dropping the
	// packets, a wrong address). Below the specific classes: "failed to
	// connect to X: i/o timeout" stays a connection failure.
	{Class: "Timeout",
		Explains: "a connection or call to a dependency times out",
		Fix:      "Check the dependency the line names: that its Service has ready endpoints, that no NetworkPolicy drops this pod's traffic to it (or its ingress from this pod), and that the address and port are right; make the application retry instead of exiting.", Priority: 65},
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
	// A structured logger's own fatal or error record, last before the
	// exit, whose words match nothing above: the application's last words
	// are the cause it states (logrus's {"level":"fatal","msg":"invalid log
	// level set"}). Never matched by words; FindDecisive assigns it.
	{Class: "FatalError",
		Explains: "the application reported a fatal error of its own and exited",
		Fix:      "Fix what the error names: the setting, flag or dependency it reports (the line is the application's own last words before the exit).", Priority: 20},
	{"ErrorLine", regexp.MustCompile(`(?i)\b(fatal|critical|error|exception|failed)\b`),
		"the application logged an error just before exiting",
		"Read the error and fix the configuration or code it names.", 10},
}

// Decisive is a matched log line.
type Decisive struct {
	Pattern *Pattern
	Line    string    // without the timestamp prefix
	Time    time.Time // from the kubelet's timestamp prefix, when present
	// Subject is what the line is about (SubjectOf), or what its event
	// names when the line itself does not: the endpoint an outer
	// exception names above a bare "Connection refused" cause.
	Subject string
	// Entities are what the whole event names, stack frames aside.
	Entities applog.Entities
	Raw      string // the event's lines, stack frames included
}

// FindDecisive returns a log tail's most telling line. The log component
// (pkg/applog) reads the records: the kubelet's timestamps, JSON and logfmt
// fields ("msg: error"), klog headers, and multi-line crash reports as one
// event whose line is the root cause (the innermost "Caused by:", the
// exception ending a Python traceback, the "panic:" line). A record its own
// logger calls INFO or DEBUG is never the cause, whatever its words. Among
// the rest the most specific pattern wins; among equals, the last (closest
// to the exit). When nothing specific matched, the component's own ranking
// (severity, last words before the exit, repetition) picks the line.
func FindDecisive(text string) *Decisive {
	log := applog.Parse(text)
	// A warning is a candidate only when no error states a specific cause:
	// zap's {"level":"warn","msg":"SESSION_TTL not set, using default"}
	// is handled by the application, the fatal record after it is not. It
	// still explains a generic error (Kafka's repeated "Connection to node
	// -1 … could not be established" before a TimeoutException).
	var best, bestWarn *Decisive
	for i := len(log.Events) - 1; i >= 0; i-- {
		ev := &log.Events[i]
		if ev.Level >= applog.LevelTrace && ev.Level <= applog.LevelInfo {
			continue
		}
		line := strings.TrimSpace(ev.Text())
		if line == "" || strings.HasPrefix(line, "#") && ev.Trace == "" {
			continue
		}
		line, p := refine(ev, line, classify(line, ev.Trace != ""))
		if p == nil {
			continue
		}
		slot := &best
		if ev.Level == applog.LevelWarn && !ev.Implied {
			slot = &bestWarn
		}
		// Among lines of one class the first wins, unless only a later one
		// names what it is about (the endpoint, the port).
		if *slot == nil || p.Priority > (*slot).Pattern.Priority ||
			p.Priority == (*slot).Pattern.Priority && SubjectOf(p.Class, (*slot).Line) == "" && SubjectOf(p.Class, line) != "" {
			*slot = newDecisive(p, line, ev)
		}
	}
	if bestWarn != nil && (best == nil || best.Pattern.Priority < specific && bestWarn.Pattern.Priority > best.Pattern.Priority ||
		// The same failure, which only the warning names (Kafka warns
		// "… DNS resolution failed for kafka-headless" before its error
		// "No resolvable bootstrap urls").
		bestWarn.Pattern == best.Pattern && best.Subject == "" && bestWarn.Subject != "") {
		best = bestWarn
	}
	if best == nil || best.Pattern.Priority <= 10 {
		if ds := log.Decisive(applog.Options{Max: 1}); len(ds) > 0 {
			p := classify(ds[0].Text, ds[0].Event.Trace != "")
			if (p == nil || p.Priority <= 10) && declaredError(ds[0].Event) {
				p = patternOf("FatalError")
			}
			if p != nil {
				return newDecisive(p, ds[0].Text, ds[0].Event)
			}
		}
	}
	return best
}

// specific is the priority from which a class names a cause (a variable,
// a file, a dependency) rather than a crash or an error word.
const specific = 70

// declaredError: a structured record its logger calls error or fatal, or
// any record declared fatal.
func declaredError(ev *applog.Event) bool {
	if ev.Implied {
		return false
	}
	return ev.Level == applog.LevelFatal || ev.Level == applog.LevelError && ev.Format != applog.FormatPlain
}

func newDecisive(p *Pattern, line string, ev *applog.Event) *Decisive {
	d := &Decisive{Pattern: p, Line: line, Time: ev.Time, Subject: SubjectOf(p.Class, line), Entities: ev.Entities(), Raw: strings.Join(ev.Raw, "\n")}
	if d.Subject == "" {
		switch p.Class {
		case "ConnectionRefused", "DNS", "Timeout":
			if ep := d.Entities.Endpoints; len(ep) > 0 {
				d.Subject = ep[0]
			} else if h := d.Entities.Unresolved; len(h) > 0 {
				d.Subject = "host " + h[0]
			}
		}
	}
	return d
}

func patternOf(class string) *Pattern {
	for i := range Patterns {
		if Patterns[i].Class == class {
			return &Patterns[i]
		}
	}
	panic("logs: no pattern " + class)
}

// LastWords returns what a container printed last before exiting (the
// previous instance first: it is the one that exited): its decisive line
// when it has one, else its last record. The log component groups crash
// reports and strips the kubelet's timestamps.
func LastWords(c *rule.Pass, p *corev1.Pod, container string) (string, bool) {
	cur, prev := c.B.LogsFor(p.Name, container)
	for _, l := range []struct {
		entry *bundle.ContainerLog
		prev  bool
	}{{prev, true}, {cur, false}} {
		if l.entry == nil || l.entry.Error != "" {
			continue
		}
		if d := FindDecisive(l.entry.Text); d != nil && d.Pattern.Priority > 10 {
			return d.Line, l.prev
		}
		if w := applog.Parse(l.entry.Text).LastWords(1); len(w) == 1 {
			return strings.TrimSpace(w[0].Text()), l.prev
		}
	}
	return "", false
}

// classify returns the most specific pattern a line matches; a crash
// report's root-cause line that matches nothing more specific is a Panic.
func classify(line string, crash bool) *Pattern {
	sigs := applog.Signals(line)
	var best *Pattern
	wordsOnly := false // best matched by its expression alone
	for pi := range Patterns {
		p := &Patterns[pi]
		if best != nil && p.Priority <= best.Priority {
			continue
		}
		switch {
		case crash && p.Class == "Panic",
			hasSignalOf(sigs, p.Class),
			// The kubelet leaves "$(VAR)" in command and args as is when
			// VAR is not in the container's env: a program printing the
			// literal was handed an undefined variable.
			p.Class == "MissingEnv" && varRefRe.MatchString(line):
			best, wordsOnly = p, false
		case p.re != nil && p.re.MatchString(line):
			best, wordsOnly = p, true
		}
	}
	if best == nil {
		return nil
	}
	// The log component knows each runtime's wording; an older expression
	// that matched words only ("host not found in upstream \"netbox\" in
	// /etc/nginx/nginx.conf:21" holds "not found" and ".conf") yields to
	// the class of the line's most specific signal.
	if wordsOnly && broadWords[best.Class] {
		if p := signalPattern(sigs); p != nil {
			best = p
		}
	}
	// EACCES on a port from 1024 up is no privileged-port failure: the
	// process may bind it as any user; something else denies it.
	if best.Class == "PrivilegedPort" && unprivilegedPorts(line) {
		best = patternOf("PermissionDenied")
	}
	return best
}

// broadWords are the classes whose expressions match common words ("not
// found", "permission denied", a path) that other failures' lines hold too;
// the others' expressions quote one failure's own wording (`database "x"
// does not exist`) and stand.
var broadWords = map[string]bool{"MissingFile": true, "PermissionDenied": true}

// signalPattern is the class of a line's most specific signal that has one.
func signalPattern(sigs []applog.Signal) *Pattern {
	for _, sig := range sigs {
		for pi := range Patterns {
			if hasSignalOf([]applog.Signal{sig}, Patterns[pi].Class) {
				return &Patterns[pi]
			}
		}
	}
	return nil
}

// unprivilegedPorts: the line names the ports it binds, all from 1024 up.
func unprivilegedPorts(line string) bool {
	ports := applog.Extract(line).Listen
	for _, p := range ports {
		if n, err := strconv.Atoi(p); err != nil || n < 1024 {
			return false
		}
	}
	return len(ports) > 0
}

var varRefRe = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// signalClasses maps the log component's signals to the classes whose own
// expressions predate it: a wording the component knows and the
// expression misses ("/bin/sh: 1: exec: /bin/x: not found") still lands in
// its class.
var signalClasses = map[applog.Signal]string{
	applog.SigCommandNotFound: "CommandNotFound",
	applog.SigExecFormat:      "ExecFormat",
	applog.SigMissingEnv:      "MissingEnv",
	applog.SigMissingFile:     "MissingFile",
	applog.SigRefused:         "ConnectionRefused",
	applog.SigDNS:             "DNS",
	applog.SigPermission:      "PermissionDenied",
	applog.SigReadOnlyFS:      "PermissionDenied",
	applog.SigAddrInUse:       "AddressInUse",
	applog.SigOOM:             "OutOfMemory",
	applog.SigSegfault:        "Segfault",
}

func hasSignalOf(sigs []applog.Signal, class string) bool {
	for _, s := range sigs {
		if signalClasses[s] == class || (patternSignals[class] != "" && patternSignals[class] == s) {
			return true
		}
	}
	return false
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

var (
	envNameRe = regexp.MustCompile(`\b([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,})\b`)
	PathRe    = regexp.MustCompile(`(/[\w.@-]+)+`)
	// CommandRe names the missing command: `exec "foo": …` / `exec /app/x: …`
	// (group 1) or a shell's `sh: 1: foo: not found` (group 2).
	CommandRe = regexp.MustCompile(`exec:? "?([^"\s:]+)"?:|sh: (?:\d+: )?(?:line \d+: )?([^\s:]+): (?:command )?not found`)
)

// SubjectOf names what a decisive line is about: the variable, the file, the
// endpoint. Empty when the line does not say.
func SubjectOf(class, line string) string {
	if s := appSubject(class, line); s != "" {
		return s
	}
	switch class {
	case "MissingEnv":
		if m := varRefRe.FindStringSubmatch(line); m != nil {
			return "environment variable " + m[1]
		}
		if v := applog.Extract(line).EnvVars; len(v) > 0 {
			return "environment variable " + v[0]
		}
		for _, m := range envNameRe.FindAllString(line, -1) {
			switch m {
			case "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "ENV", "PANIC", "CRITICAL":
				continue
			}
			return "environment variable " + m
		}
	case "FatalError":
		// Its own words are the only subject it has.
		if len(line) > 120 {
			return line[:117] + "..."
		}
		return line
	case "PermissionDenied":
		// A bind refused on an unprivileged port: the port, not a path
		// ("listen EACCES: permission denied tcp://172.20.11.4:8000").
		if l := applog.Extract(line).Listen; len(l) > 0 && hasSignalOf(applog.Signals(line), "PrivilegedPort") {
			return "port " + l[0]
		}
		if m := PathRe.FindAllString(line, -1); len(m) > 0 {
			return m[len(m)-1]
		}
	case "MissingFile", "ExecFormat", "DataDirNotEmpty":
		// The last path is the one the error is about: in "/bin/sh:
		// /app/run.sh: Permission denied" the shell only reports it. A
		// source location (Rust's "src/main.rs:10:5") is where the program
		// failed, not what it looked for.
		if p := lastPath(line); p != "" {
			return p
		}
	case "CommandNotFound":
		// The runtime's "exec failed: … exec: "curl": executable file not
		// found" holds "exec failed:" first: the command is the quoted one.
		for _, m := range CommandRe.FindAllStringSubmatch(line, -1) {
			if cmd := m[1] + m[2]; cmd != "failed" { // only one group matches
				return "command " + cmd
			}
		}
		if c := applog.Extract(line).Commands; len(c) > 0 {
			return "command " + c[0]
		}
	case "DNS":
		// nginx names the host in quotes and the config file:line after
		// it, which reads as host:port.
		ep := EndpointIn(line)
		if h := applog.Extract(line).Unresolved; len(h) > 0 {
			if strings.HasPrefix(ep, h[0]+":") {
				return ep // the host with the port it was wanted on
			}
			return "host " + h[0]
		}
		if ep != "" {
			return ep
		}
	case "ConnectionRefused", "Timeout":
		// Java's InetSocketAddress, "name/ip:port": both halves matter.
		if m := javaAddrRe.FindString(line); m != "" {
			return m
		}
		if ep := applog.Extract(line).Endpoints; len(ep) > 0 {
			return ep[0]
		}
		if ep := EndpointIn(line); ep != "" {
			return ep
		}
	case "Forbidden":
		for _, f := range applog.Extract(line).Forbidden {
			what := f.Resource
			if f.Path != "" {
				what = "path " + f.Path
			}
			who := "user " + f.User
			if f.ServiceAccount != "" {
				who = "serviceaccount " + f.ServiceAccount
			}
			return fmt.Sprintf("%s cannot %s %s", who, f.Verb, what)
		}
	case "MissingLibrary":
		if l := applog.Extract(line).Libraries; len(l) > 0 {
			return "library " + l[0]
		}
	case "TLS":
		for _, c := range applog.Extract(line).Certs {
			if !c.NotAfter.IsZero() {
				return "certificate expired " + c.NotAfter.UTC().Format("2006-01-02 15:04 MST")
			}
			if c.Wanted != "" {
				return "certificate not valid for " + c.Wanted
			}
		}
	case "PrivilegedPort":
		if l := applog.Extract(line).Listen; len(l) > 0 {
			return "port " + l[0]
		}
	case "NoSpace", "ShellSyntax", "MissingModule":
		if m := PathRe.FindAllString(line, -1); len(m) > 0 {
			return m[len(m)-1]
		}
	}
	return subjectMore(class, line)
}

var javaAddrRe = regexp.MustCompile(`\b[a-zA-Z][\w.-]*[a-zA-Z0-9]/\d+\.\d+\.\d+\.\d+:\d{2,5}\b`)

// lastPath is the last absolute path in line that is not a source location
// (path:line), "" when there is none.
func lastPath(line string) string {
	locs := PathRe.FindAllStringIndex(line, -1)
	for i := len(locs) - 1; i >= 0; i-- {
		start, end := locs[i][0], locs[i][1]
		if sourceLineRe.MatchString(line[end:]) || start > 0 && (isPathChar(line[start-1])) {
			continue
		}
		return line[start:end]
	}
	return ""
}

// sourceLineRe follows a path that is a source location.
var sourceLineRe = regexp.MustCompile(`^:\d+`)

func isPathChar(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
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
