package applog

import (
	"regexp"
	"sort"
	"strings"
)

// Signal is a kind of failure a line states, whatever its logger.
type Signal string

const (
	SigCommandNotFound Signal = "CommandNotFound" // exec: not found, sh: X: not found
	SigExecFormat      Signal = "ExecFormat"      // binary for another architecture
	SigLoader          Signal = "Loader"          // shared library or dynamic loader missing
	SigShellSyntax     Signal = "ShellSyntax"     // sh: syntax error: unexpected …
	SigMissingEnv      Signal = "MissingEnv"      // a required environment variable is unset
	SigModule          Signal = "MissingModule"   // Cannot find module, ModuleNotFoundError, ClassNotFound
	SigForbidden       Signal = "Forbidden"       // Kubernetes RBAC denial
	SigUnauthorized    Signal = "Unauthorized"    // authentication failed (database, broker, API)
	SigTLS             Signal = "TLS"             // certificate expired, unknown authority, handshake
	SigDNS             Signal = "DNS"             // a host name does not resolve
	SigAddrInUse       Signal = "AddressInUse"    // port already bound
	SigBindDenied      Signal = "BindDenied"      // privileged port without the capability
	SigNoSpace         Signal = "NoSpace"         // no space left on device
	SigReadOnlyFS      Signal = "ReadOnlyFS"      // read-only file system
	SigPermission      Signal = "PermissionDenied"
	SigMissingFile     Signal = "MissingFile"
	SigSQL             Signal = "SQL"         // relation/table/database/role missing, migrations
	SigOOM             Signal = "OutOfMemory" // the runtime's own out-of-memory
	SigRefused         Signal = "ConnectionRefused"
	SigTimeout         Signal = "Timeout"
	SigReset           Signal = "ConnectionReset"
	SigConfig          Signal = "InvalidConfig" // unknown flag, parse error, invalid value
	SigHTTPStatus      Signal = "HTTPStatus"    // a failed HTTP call (4xx/5xx)
	SigSegfault        Signal = "Segfault"
	SigWatchLimit      Signal = "WatchLimit" // the node's inotify instances or watches are used up
)

// signalRule is one row of the signal table; weight says how specific the
// signal is (how surely it names a cause rather than a symptom).
type signalRule struct {
	sig    Signal
	weight int
	// keywords are lower-case words one of which every match contains: a
	// cheap test that spares most lines the regular expression.
	keywords []string
	re       *regexp.Regexp
}

// signalTable is matched against an event's text. Wordings are those of the
// runtimes, shells and libraries themselves (see the corpus test for where
// each came from).
var signalTable = []signalRule{
	{SigCommandNotFound, 50, []string{"exec", "not found", "no such file"}, regexp.MustCompile(`exec:? "?[^"\s:]+"?: (stat \S+: )?(no such file or directory|executable file not found in \$PATH)|(^|\s)(/bin/|/usr/bin/)?(ba|da|z|a)?sh: (\d+: )?(line \d+: )?(exec: )?[^\s:]+: (command )?not found|(^|\s)\S+: (\d+|line \d+): (exec: )?[^\s:]+: (command )?not found|: command not found$|^exec /\S+: no such file or directory|exec user process caused:? "?no such file or directory|executable file not found in \$PATH|OCI runtime exec failed|no such file or directory: unknown`)},
	{SigExecFormat, 50, []string{"exec format", "cannot execute"}, regexp.MustCompile(`(?i)exec format error|cannot execute binary file`)},
	{SigLoader, 50, []string{"shared librar", "relocating", "symbol not found", "glibc_", "shared object"}, regexp.MustCompile(`error while loading shared libraries|Error loading shared library|Error relocating|symbol not found|GLIBC_[\d.]+'? not found|cannot open shared object file`)},
	{SigShellSyntax, 48, []string{"syntax error", "unexpected eof", "bad substitution", "unbound variable"}, regexp.MustCompile(`(?i)syntax error|unexpected EOF while looking for matching|: Syntax error: |bad substitution|unbound variable`)},
	{SigMissingEnv, 47, []string{"env ", "env\t", "environment", "keyerror", "required key", "missing required", "placeholder", "not set", "must be set", "is required", "is empty", "is missing", "not defined", "unset"}, regexp.MustCompile(`required key "?[A-Z_][A-Z0-9_]*"? missing value|"?[A-Z_][A-Z0-9_]*"?:? missing required value|missing required value:? "?[A-Z_][A-Z0-9_]*"?|(?i:env(?:ironment)?(?: var(?:iable)?)?)\s+["'\x60]?[A-Z_][A-Z0-9_]*["'\x60]?\s+(?i:(?:is\s+)?(?:not set|unset|missing|empty|required|not defined))|(?i:(?:required|missing|mandatory|undefined)\s+env(?:ironment)?(?: var(?:iable)?)?):?\s+["'\x60]?[A-Z_][A-Z0-9_]*["'\x60]?|["'\x60]?[A-Z][A-Z0-9_]{2,}["'\x60]?\s+(?i:(?:env(?:ironment)? var(?:iable)?\s+)?(?:is\s+)?(?:not set|must be set|is required|is empty|is missing|not defined))|KeyError: '[A-Z][A-Z0-9_]+'|Could not resolve placeholder '[^']+'|(?i:missing (?:required )?environment variable)|ImproperlyConfigured: Set the [A-Z_]+ environment variable`)},
	{SigForbidden, 47, []string{"forbidden", "cannot "}, regexp.MustCompile(`is forbidden: User "[^"]+" cannot|cannot (get|list|watch|create|update|patch|delete) (resource )?"?[\w.]+"? in (API group|the namespace)`)},
	{SigOOM, 46, []string{"memory", "oom"}, regexp.MustCompile(`OutOfMemoryError|fatal error: runtime: out of memory|JavaScript heap out of memory|Cannot allocate memory|\bMemoryError\b|OOM command not allowed|failed to allocate memory|out of memory`)},
	{SigModule, 45, []string{"module", "importerror", "classnotfound", "noclassdeffound", "cannot load such", "could not load file", "main class", "uninitialized constant"}, regexp.MustCompile(`Cannot find module|ERR_MODULE_NOT_FOUND|ModuleNotFoundError|ImportError|ClassNotFoundException|NoClassDefFoundError|cannot load such file|Could not load file or assembly|Could not find or load main class|uninitialized constant`)},
	{SigBindDenied, 45, []string{"bind", "eacces", "permission denied", "access a socket"}, regexp.MustCompile(`(?i)bind\(?\)?.{0,40}(permission denied|EACCES)|access a socket in a way forbidden|listen EACCES|permission denied.{0,20}bind|permission to bind|bind: permission denied`)},
	{SigNoSpace, 45, []string{"space", "enospc", "disk", "could not extend"}, regexp.MustCompile(`(?i)no space left on device|ENOSPC|disk (is )?full|could not extend file|not enough space`)},
	{SigAddrInUse, 44, []string{"in use", "eaddrinuse", "already allocated", "already listening", "assign requested", "eaddrnotavail"}, regexp.MustCompile(`(?i)already (be )?in use|EADDRINUSE|Address in use|port is already allocated|already listening|Cannot assign requested address|EADDRNOTAVAIL`)},
	{SigTLS, 42, []string{"x509", "certificate", "cert_", "self_signed", "pkix", "sslhandshake", "tls", "ssl routines", "certification path"}, regexp.MustCompile(`(?i)x509: |unable to find valid certification path|certificate (has )?expired|certificate is not (yet )?valid|unable to verify the first certificate|CERT_HAS_EXPIRED|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|PKIX path (building|validation) failed|SSLHandshakeException|certificate verify failed|tls: (failed|bad certificate|handshake)|remote error: tls|unable to get local issuer certificate|SSL routines`)},
	{SigDNS, 42, []string{"no such host", "not known", "name resolution", "getaddrinfo", "translate host", "unknownhost", "servname", "resolve", "misbehaving", "host not found", "no address associated", "unknown mysql server host", "could not resolve address", "bad address"}, regexp.MustCompile(`(?i)no such host|: bad address '[\w.-]+'|Unknown MySQL server host|could not resolve address|Name or service not known|Temporary failure in name resolution|getaddrinfo (ENOTFOUND|EAI_AGAIN)|could not translate host name|UnknownHostException|nodename nor servname|could not resolve host|server misbehaving|Name does not resolve|host not found in (upstream|resolver)|No address associated with hostname|failed to resolve|DNS resolution failed`)},
	{SigUnauthorized, 40, []string{"auth", "access denied", "wrongpass", "password", "credentials", "401", "login", "log in", "access_refused"}, regexp.MustCompile(`(?i)password authentication failed|Couldn't log in|ACCESS_REFUSED|login (?:was )?refused|authentication failed|Access denied for user|NOAUTH|WRONGPASS|invalid password|invalid credentials|SASL authentication|\b401 Unauthorized|Login failed for user|invalid username or password|Bad credentials|unable to authenticate|auth(entication)? error`)},
	{SigSQL, 40, []string{"exist", "no such table", "unknown database", "unknown column", "dirty database", "migration", "duplicate column", "sqlstate", "ora-", "undefined_table", "activerecord::", "django.db.utils"}, regexp.MustCompile(`(?i)relation "[^"]+" does not exist|(table|column|relation|database|role|schema) "?[\w.]+"? (does not exist|doesn't exist|already exists)|Table '[^']+' doesn't exist|no such table|Unknown database|Unknown column|dirty database version|migration[s]? .{0,40}(failed|error)|duplicate column name|SQLSTATE\[?\w*\]?|ORA-\d{5}|undefined_table|ActiveRecord::(PendingMigrationError|NoDatabaseError)|django\.db\.utils\.\w+Error`)},
	{SigReadOnlyFS, 44, []string{"read-only", "erofs"}, regexp.MustCompile(`(?i)read-only file system|EROFS`)},
	{SigPermission, 36, []string{"permission", "eacces", "not permitted", "eperm", "ownership", "world access", "must be owned", "accessdenied"}, regexp.MustCompile(`(?i)permission denied|EACCES|operation not permitted|EPERM\b|has wrong ownership|has group or world access|must be owned by|has invalid permissions|AccessDeniedException`)},
	{SigMissingFile, 38, []string{"no such file", "enoent", "filenotfound", "cannot find the", "does not exist", "not found", "could not open", "errno 2"}, regexp.MustCompile(`(?i)no such file or directory|ENOENT|FileNotFoundException|FileNotFoundError|cannot find the (file|path)|(file|directory|path) "?[^\s"]+"? (does not exist|not found)|could not open (config|configuration) file|Errno 2\]`)},
	{SigRefused, 36, []string{"refused", "could not connect", "failed to connect", "unable to connect", "server running", "could not be established", "nobrokersavailable"}, regexp.MustCompile(`(?i)connection refused|ECONNREFUSED|Connection refused|could not connect to|failed to connect to|unable to connect to|Is the server running|Connection to \S+ refused|actively refused|Connection to node -?\d+ .{0,120}could not be established|NoBrokersAvailable`)},
	{SigTimeout, 32, []string{"timeout", "timed out", "etimedout", "deadline exceeded"}, regexp.MustCompile(`(?i)i/o timeout|timed out|ETIMEDOUT|deadline exceeded|timeout expired|connect timeout|Timeout waiting|TimeoutException|timeout after`)},
	{SigSegfault, 34, []string{"segmentation", "sigsegv", "core dumped", "sigabrt", "illegal instruction"}, regexp.MustCompile(`(?i)segmentation (fault|violation)|SIGSEGV|core dumped|SIGABRT|Illegal instruction`)},
	{SigReset, 24, []string{"reset", "broken pipe", "epipe", "unexpected eof", "hang up"}, regexp.MustCompile(`(?i)connection reset|ECONNRESET|broken pipe|EPIPE|unexpected EOF|socket hang up`)},
	{SigConfig, 30, []string{"invalid", "unknown", "flag provided", "parse", "unmarshal", "yaml:", "mapping values", "unrecognized", "unexpected token", "no such option", "validation", "not a valid", "must be", "directive", "supported"}, regexp.MustCompile(`(?i)invalid (config|configuration|value|argument|option|setting)|\b(?:config|configuration) (?:file )?is (?:invalid|not valid)|(?:unknown|unsupported|invalid) [\w .-]{1,60}, (?:supported|valid|allowed|available|expected)(?: values| options| types| ones)?(?: are| is)?: |unknown (?:(?:long|short) )?(flag|option|field|directive|variable)|flag provided but not defined|unknown shorthand flag|parse error|failed to parse|cannot unmarshal|yaml: (line|unmarshal)|mapping values are not allowed|unrecognized (?:[\w-]+ )?(option|argument|arguments|flag)|unexpected token|no such option|ValidationError|validation failed|is not a valid|must be (one of|a|an|set)|directive is not allowed|invalid port`)},
	{SigHTTPStatus, 20, []string{"status", "code", "http/", "returned", "response", "bad request", "unauthorized", "forbidden", "not found", "internal server", "bad gateway", "unavailable", "gateway timeout", "too many", "get ", "post ", "put ", "patch ", "delete ", "head "}, regexp.MustCompile(`(?i)(?:status|status code|statuscode|HTTP/\d(?:\.\d)?|code|returned|response)[\s=:"]+(?P<code>[45]\d\d)\b|\b(?P<code>[45]\d\d) (?:Bad Request|Unauthorized|Forbidden|Not Found|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout|Too Many Requests)|\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) \S+: (?P<code>[45]\d\d)\b`)},
}

// signalsOf returns the signals a text states, most specific first.
func signalsOf(s string) []Signal {
	var out []Signal
	lower := strings.ToLower(s)
	for i := range signalTable {
		if !containsAny(lower, signalTable[i].keywords) {
			continue
		}
		if signalTable[i].sig == SigHTTPStatus && !hasHTTPErrorCode(s) || signalTable[i].sig == SigVersion && !versionMismatch(s) {
			continue
		}
		if signalTable[i].re.MatchString(s) {
			out = append(out, signalTable[i].sig)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return weightOf(out[a]) > weightOf(out[b]) })
	return withoutJavaErrno(s, out)
}

// javaErrnoRe is java.io.FileNotFoundException's message: the path and,
// in parentheses, the errno text of the open(2) that failed
// (FileOutputStream and RandomAccessFile throw it "if the file … cannot be
// opened for any other reason", https://docs.oracle.com/javase/8/docs/api/java/io/FileOutputStream.html).
var javaErrnoRe = regexp.MustCompile(`FileNotFoundException: .*\((?P<errno>[A-Za-z][A-Za-z -]+)\)\s*$`)

// withoutJavaErrno drops the missing-file signal of a FileNotFoundException
// whose errno is another than ENOENT: "(Permission denied)" is EACCES,
// "(Read-only file system)" EROFS, and their own signals say so.
func withoutJavaErrno(s string, sigs []Signal) []Signal {
	m := javaErrnoRe.FindStringSubmatch(s)
	if m == nil || strings.EqualFold(m[1], "No such file or directory") {
		return sigs
	}
	out := sigs[:0:0]
	for _, sig := range sigs {
		if sig != SigMissingFile {
			out = append(out, sig)
		}
	}
	return out
}

func weightOf(sig Signal) int {
	for i := range signalTable {
		if signalTable[i].sig == sig {
			return signalTable[i].weight
		}
	}
	return 0
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// hasHTTPErrorCode reports whether s holds a 3-digit number from 400 to 599,
// which every HTTP status match needs.
func hasHTTPErrorCode(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if (s[i] == '4' || s[i] == '5') && (i == 0 || !isDigit(s[i-1])) && isDigit(s[i+1]) && isDigit(s[i+2]) && (i+3 == len(s) || !isDigit(s[i+3])) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Signals returns the failure signals a line states, most specific first:
// for callers that classify a line picked another way.
func Signals(line string) []Signal { return signalsOf(strings.ReplaceAll(line, `\"`, `"`)) }
