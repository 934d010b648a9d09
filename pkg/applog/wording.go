package applog

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// HTTP403Re is an HTTP API's 403 quoted with its status: Vault's "Code:
// 403", "status code: 403", "HTTP/1.1 403", googleapi's "Error 403:",
// "403 Forbidden".
var HTTP403Re = regexp.MustCompile(`\b(?:Code|[Ss]tatus(?: [Cc]ode)?|HTTP(?:/[\d.]+)?|Error)[:=]?\s*403\b|\b403 Forbidden\b`)

// More wordings of the signals, from programs whose own phrasing the main
// table's expressions miss. Kept as rows of their own (signalsOf tries
// every row; a signal's weight is its first row's) so each cites the
// program it comes from.
var moreSignals = []signalRule{
	// Database images' entrypoints name the variable to set rather than
	// saying it is unset: docker-library/postgres docker-entrypoint.sh
	// ("You must specify POSTGRES_PASSWORD to a non-empty value"),
	// docker-library/mysql and mariadb ("You need to specify one of the
	// following as an environment variable: - MYSQL_ROOT_PASSWORD"), and
	// applications' own checks ("… environment variables are not set.
	// Provide a postgres url for DATABASE_URL.").
	{SigMissingEnv, 47, []string{"specify", "provide", "not set", "environment variable"}, regexp.MustCompile(`(?i:must specify|need to specify|please specify|please set|you must set)(?i: one of(?: the following)?)?(?i: as an? environment variables?)?:?\s*(?:-\s*)?"?[A-Z][A-Z0-9]*_[A-Z0-9_]+"?|(?i:environment variables? (?:is|are) (?:not set|missing|unset))[^\n]{0,80}?\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b`)},
	// Kafka's ClientUtils "… as DNS resolution failed for kafka-headless"
	// and Erlang's inet error nxdomain, "non-existing domain" (RabbitMQ's
	// "epmd error for host X: nxdomain (non-existing domain)").
	{SigDNS, 42, []string{"dns resolution", "nxdomain", "non-existing domain"}, regexp.MustCompile(`(?i)DNS resolution failed|\bnxdomain\b|non-existing domain`)},
	// Kafka's ClientUtils.parseAndValidateAddresses gives up with
	// ConfigException "No resolvable bootstrap urls given in
	// bootstrap.servers": a DNS failure, whatever its exception's type.
	{SigDNS, 42, []string{"no resolvable bootstrap"}, regexp.MustCompile(`No resolvable bootstrap urls`)},
	// gunicorn/sock.py: "Connection in use: ('0.0.0.0', 8000)" before it
	// retries, then "Can't connect to ('0.0.0.0', 8000)".
	{SigAddrInUse, 44, []string{"connection in use"}, regexp.MustCompile(`Connection in use: \(`)},
	// .NET's SocketException (13) is EACCES from bind(2) (Kestrel on a
	// port below 1024 as non-root); Kestrel's own "Failed to bind to
	// address http://+:80: Permission denied" too.
	{SigBindDenied, 45, []string{"socketexception (13)", "failed to bind"}, regexp.MustCompile(`SocketException \(13\): Permission denied|Failed to bind to address \S+: (?i:permission denied|access denied)`)},
	// An HTTP API's 403 quoted with its status (Vault's api client "Code:
	// 403. Errors: * permission denied", "status code 403", "HTTP/1.1 403"):
	// the API refuses the client's identity, whatever file-like words the
	// server's message uses.
	{SigUnauthorized, 40, []string{"403"}, HTTP403Re},
	// Prisma's P1001 (prisma-engines user-facing-errors DatabaseNotReachable):
	// "Can't reach database server at `host:5432`".
	{SigRefused, 36, []string{"can't reach", "cannot reach"}, regexp.MustCompile(`(?i)(?:can't|cannot) reach database server at`)},
	// Redis's config loader: "Bad directive or wrong number of arguments",
	// "wrong number of arguments"; Spring Boot's BindFailureAnalyzer:
	// "Failed to bind properties under 'server.port' to java.lang.Integer".
	{SigConfig, 30, []string{"wrong number of arguments", "bad directive", "failed to bind properties"}, regexp.MustCompile(`(?i)Bad directive|wrong number of arguments|Failed to bind properties under '[^']+'`)},
	// Exceptions whose type says the configuration is wrong: Django's
	// django.core.exceptions.ImproperlyConfigured ("The SECRET_KEY setting
	// must not be empty."), Kafka's org.apache.kafka.common.config.
	// ConfigException, commons-configuration's and Spring's
	// ConfigurationException, and the broker's "Invalid cluster.id in:
	// …/meta.properties" (kafka.server.KafkaServer) when the data directory
	// belongs to another cluster.
	{SigConfig, 30, []string{"improperlyconfigured", "configexception", "configurationexception", "invalid cluster.id"}, regexp.MustCompile(`\bImproperlyConfigured\b|\b\w*Config(?:uration)?Exception\b|Invalid cluster\.id in`)},
	// .NET's ArgumentNullException for a connection string or other
	// setting the configuration did not give ("Value cannot be null.
	// (Parameter 'connectionString')"; EF Core's UseSqlServer/UseNpgsql).
	// redis-py's AuthenticationError ("invalid username-password pair or
	// user is disabled", Redis 6 ACL's own reply), client-go's 401 ("the
	// server has asked for the client to provide credentials").
	{SigUnauthorized, 40, []string{"username-password pair", "provide credentials"}, regexp.MustCompile(`invalid username-password pair|the server has asked for the client to provide credentials`)},
	// lib/pq and libpq when client and server disagree on TLS: "pq: SSL is
	// not enabled on the server", "server does not support SSL, but SSL was
	// required" (sslmode); not a refused connection.
	{SigTLS, 38, []string{"ssl is not enabled", "does not support ssl"}, regexp.MustCompile(`SSL is not enabled on the server|server does not support SSL, but SSL was required`)},
	// npm's run-script: the image's package.json has no such script
	// ("npm ERR! missing script: start", npm 7+: "Missing script: \"start\"").
	{SigConfig, 30, []string{"missing script"}, regexp.MustCompile(`(?i)npm ERR! missing script: |npm error Missing script: `)},
	// A number setting given a Service link's value: Python's int() on
	// REDIS_PORT=tcp://10.96.0.12:6379 (the kubelet sets <SVC>_PORT for
	// every Service named <svc>): "invalid literal for int() with base 10".
	{SigConfig, 30, []string{"invalid literal for int()"}, regexp.MustCompile(`invalid literal for int\(\) with base 10: '`)},
	// java -jar on a path that is not in the image: "Unable to access
	// jarfile /app/app.jar".
	{SigMissingFile, 38, []string{"unable to access jarfile"}, regexp.MustCompile(`Unable to access jarfile \S+`)},
	// A failed HTTP call in the words of axios ("Request failed with status
	// code 503") and Python requests ("401 Client Error: Unauthorized for
	// url: …").
	{SigHTTPStatus, 20, []string{"request failed with status code", "client error", "server error"}, regexp.MustCompile(`Request failed with status code [45]\d\d|\b[45]\d\d (?:Client|Server) Error: `)},
	// Configuration loaders naming a required key they did not get
	// (koanf/viper-based services: `missing required field "database.host"`,
	// Spring: "Missing required property 'x'").
	{SigConfig, 30, []string{"missing required"}, regexp.MustCompile(`(?i)missing required (?:field|key|setting|property|config(?:uration)? (?:key|value|option))s? ["'\x60]?[\w.-]+`)},
	// Images' entrypoints checking their data directory: Grafana's run.sh
	// "GF_PATHS_DATA='/var/lib/grafana' is not writable."
	{SigPermission, 36, []string{"is not writable"}, regexp.MustCompile(`(?i)\S+ is not writable`)},
	{SigConfig, 30, []string{"value cannot be null"}, regexp.MustCompile(`Value cannot be null\. \(Parameter '(?i:connectionString|[\w]*(?:url|uri|host|endpoint|key|secret|password|setting|config)\w*)'\)`)},
}

func init() { signalTable = append(signalTable, moreSignals...) }

// scriptLevelRe is the "<program>: <level>: message" prefix of shell
// entrypoints and GNU tools: nginx's docker-entrypoint.d scripts print
// "10-listen-on-ipv6-by-default.sh: info: /etc/nginx/conf.d/default.conf is
// not a file or does not exist", an info line whatever its words.
var scriptLevelRe = regexp.MustCompile(`^[\w.-]+(?:\.sh)?: (?P<level>info|notice|warning|warn|error|fatal|debug): `)

// scriptLevel returns the level a "<program>: <level>: " prefix declares.
func scriptLevel(head string) (Level, bool) {
	if !strings.Contains(head, ": ") {
		return LevelUnknown, false
	}
	if m, ok := submatch.Find(scriptLevelRe, head); ok {
		return levelWord(m.Get("level")), true
	}
	return LevelUnknown, false
}

// redisConfigHeadline is the decisive line of Redis's FATAL CONFIG FILE
// ERROR block (src/config.c loadServerConfigFromString: the banner, "Reading
// the configuration file, at line N", ">>> 'directive args'", the error):
// the error, with the directive and line it is about ("wrong number of
// arguments" alone does not say that requirepass rendered empty).
func redisConfigHeadline(block []string) string {
	last := strings.TrimSpace(block[len(block)-1])
	directive, line := "", ""
	for _, l := range block {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, ">>> ") {
			directive = strings.TrimPrefix(l, ">>> ")
		}
		if i := strings.Index(l, "at line "); strings.HasPrefix(l, "Reading the configuration file") && i > 0 {
			line = l[i+len("at line "):]
		}
	}
	if directive == "" || strings.HasPrefix(last, ">>> ") {
		return last
	}
	where := "config directive " + directive
	if line != "" {
		where += " at line " + line
	}
	return last + " (" + where + ")"
}

// addressKeys are the fields structured loggers put the address of a
// failed bind or dial in, beside the error: tracing's
// {"fields":{"message":"failed to bind listener","addr":"0.0.0.0:8080",
// "error":"Address already in use (os error 98)"}}, zap's "addr", slog's
// "address". std::io::Error and many others do not repeat it.
var addressKeys = []string{"addr", "address", "listen_addr", "listen", "bind", "bind_addr", "endpoint", "host", "port"}

// withAddressFields appends to a failure record's message the address
// fields its error does not already name.
func withAddressFields(msg, err string, obj map[string]any) string {
	var extra []string
	for _, k := range addressKeys {
		v := text(obj[k])
		if v == "" || strings.Contains(err, v) || strings.Contains(msg, v) {
			continue
		}
		extra = append(extra, k+"="+v)
	}
	if len(extra) == 0 {
		return msg
	}
	return msg + " (" + strings.Join(extra, " ") + ")"
}

// liftFields reads the formats that nest the event's fields under one key:
// tracing-subscriber's JSON ({"level":"ERROR","fields":{"message":…,
// "error":…},"target":…}) and MongoDB's structured log since 4.4
// ({"s":"F","c":"CONTROL","msg":…,"attr":{"error":…}},
// https://www.mongodb.com/docs/manual/reference/log-messages/): they become
// top-level keys unless taken.
func liftFields(obj map[string]any) {
	for _, key := range []string{"fields", "attr"} {
		fields, ok := obj[key].(map[string]any)
		if !ok {
			continue
		}
		for k, v := range fields {
			if _, taken := obj[k]; !taken {
				obj[k] = v
			}
		}
	}
}

// mongoSeverity reads MongoDB's severity field "s" (F fatal, E error, W
// warning, I informational, D1–D5 debug; the log-messages page above). A
// one-letter key is read only in MongoDB's own record shape, with its
// component "c" and context "ctx", so another program's "s" is left alone.
func mongoSeverity(obj map[string]any) Level {
	s, ok := obj["s"].(string)
	if !ok || obj["c"] == nil || obj["ctx"] == nil {
		return LevelUnknown
	}
	switch s {
	case "F":
		return LevelFatal
	case "E":
		return LevelError
	case "W":
		return LevelWarn
	case "I":
		return LevelInfo
	case "D", "D1", "D2", "D3", "D4", "D5":
		return LevelDebug
	}
	return LevelUnknown
}

// The node's inotify limits, not the process's file descriptors: in a
// container the descriptor limit is the runtime's (1048576 under
// containerd), while inotify_init(2) returns EMFILE ("too many open
// files") once the user's fs.inotify.max_user_instances (128 by default,
// shared by every container of that UID on the node) is reached, and
// inotify_add_watch(2) ENOSPC ("no space left on device") at
// max_user_watches. The line must name the watcher: fsnotify.NewWatcher
// (promtail's "filetarget.fsnotify.NewWatcher: too many open files",
// https://github.com/grafana/loki/issues/4740; its file target manager,
// which creates that watcher, "failed to make file target manager: too
// many open files", https://github.com/SREGym/SREGym/issues/636),
// coreutils tail's "inotify cannot be used, reverting to polling: Too many
// open files", Node's fs.watch ("EMFILE: too many open files, watch",
// "ENOSPC: System limit for number of file watchers reached").
var watchLimitRe = regexp.MustCompile(`(?i)(?:inotify|fsnotify|watcher|\bwatch(?:es)?\b|file target manager).{0,80}(?:too many open files|no space left on device|EMFILE|ENOSPC)|(?:too many open files|EMFILE|ENOSPC)[^\n]{0,20}\bwatch\b|System limit for number of file watchers reached`)

func init() {
	signalTable = append(signalTable, signalRule{SigWatchLimit, 46, []string{"inotify", "fsnotify", "watch", "file target"}, watchLimitRe})
}
