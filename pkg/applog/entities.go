package applog

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Entities are the things a log line names, for the investigator to check
// against the pod spec and the cluster.
type Entities struct {
	EnvVars    []string    // variables reported missing, or left as a literal $(VAR)
	Listen     []string    // ports the application listens on or fails to bind
	Endpoints  []string    // host:port it connects to
	Hosts      []string    // host names named (endpoints, URLs, DNS failures)
	Unresolved []string    // host names that did not resolve
	URLs       []string    // URLs
	Paths      []string    // absolute file paths
	Certs      []Cert      // certificates described (subject, names, expiry)
	SQL        []string    // SQL objects: "relation users", "database shop", "user app"
	HTTPStatus []int       // HTTP status codes of failed calls
	Forbidden  []Forbidden // Kubernetes RBAC denials
	Commands   []string    // commands that were not found
	Libraries  []string    // shared libraries that were not found
	Users      []string    // users a refused login names (the server's side or the client's)
}

// Cert is a certificate a TLS error describes.
type Cert struct {
	Subject  string    // CN=… or the subject string
	Names    []string  // "certificate is valid for a, b, not c": a, b
	Wanted   string    // …the name that was asked for (c)
	NotAfter time.Time // expiry, when the error states it
	Expired  bool
}

// Forbidden is a Kubernetes API denial, as client-go and the API server
// word it: `pods is forbidden: User "system:serviceaccount:shop:api"
// cannot list resource "pods" in API group "" in the namespace "shop"`.
type Forbidden struct {
	User           string
	ServiceAccount string // namespace/name, when the user is one
	Verb           string
	Resource       string // with its subresource: "pods/log"
	Group          string
	Namespace      string // "" at the cluster scope
	Path           string // a non-resource URL ("/metrics")
}

var (
	envMissingRe = signalTable[signalIndex(SigMissingEnv)].re
	envNameRe    = regexp.MustCompile(`\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Z]{3,}[0-9]*\b`)
	envLiteralRe = regexp.MustCompile(`\$\((?P<name>[A-Za-z_][A-Za-z0-9_]*)\)`)
	// Listening and binding, in the words of Go's net package, nginx,
	// Tomcat, gunicorn, puma, Kestrel, Node, PostgreSQL and Redis.
	listenCtxRe  = regexp.MustCompile(`(?i)\b(listen(ing|s)?|bind(ing)?|bound|serving|started on|running on|now listening|port\(s\)|listening socket|already in use)\b|EADDRINUSE|EACCES`)
	listenPortRe = regexp.MustCompile(`(?i)(?:port\(s\)?:?|port|:)\s*"?(?P<port>\d{2,5})\b`)
	hostPortRe   = regexp.MustCompile(`\[?(?P<host>[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]|\d+\.\d+\.\d+\.\d+|[0-9a-fA-F:]*:[0-9a-fA-F:]+)\]?:(?P<port>\d{2,5})\b`)
	clockRe      = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T)?\d{1,2}$|^\d{4}-\d{2}-\d{2}`)
	// libpq: `connection to server at "db" (10.0.0.5), port 5432 failed`
	// and the older `Is the server running on host "db" (10.0.0.5) and
	// accepting\n\tTCP/IP connections on port 5432?`.
	sqlServerRe  = regexp.MustCompile(`(?i)\b(?:server|data source|address|addr)\s*=\s*(?:tcp:)?(?P<host>[a-z0-9][\w.-]*[a-z0-9]),\s*(?P<port>\d{2,5})\b|\bon server '(?:tcp:)?(?P<host>[a-z0-9][\w.-]*[a-z0-9])(?:,(?P<port>\d{2,5}))?'`)
	pgHostRe     = regexp.MustCompile(`(?:on host|server at) "(?P<host>[^"]+)"(?: \([^)]*\))?,?\s+(?:and accepting\s+TCP/IP connections on\s+)?port (?P<port>\d+)`)
	urlRe        = regexp.MustCompile(`\b(?:https?|wss?|postgres(?:ql)?|mysql|redis|rediss|amqps?|mongodb(?:\+srv)?|nats|kafka|grpc|jdbc:\w+|ldaps?)://[^\s"'<>)\]},;]+`)
	dnsHostRe    = regexp.MustCompile(`host not found in (?:upstream|resolver) "(?P<host>[^"]+)"|lookup (?P<host>[\w.-]+)(?: on [\w.:\[\]]+)?: (?:no such host|server misbehaving|i/o timeout|Temporary failure)|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) (?P<host>[\w.-]+)|could not translate host name "(?P<host>[^"]+)"|UnknownHostException: (?P<host>[\w.-]+)|[Cc]ould not resolve host:? '?(?P<host>[\w.-]+)|[Ff]ailed to resolve '?(?P<host>[\w.-]+)|DNS resolution failed for (?P<host>[\w.-]+)|resolve (?:host(?:name)? )?'?(?P<host>[\w.-]+)'?: (?:Name or service not known|Temporary failure)|getaddrinfo for (?P<host>[\w.-]+) failed|Unknown MySQL server host '(?P<host>[\w.-]+)'|could not resolve address '(?P<host>[\w.-]+)'|\b(?:ping|nc|wget|telnet|nslookup): bad address '(?P<host>[\w.-]+)'`)
	pathRe       = regexp.MustCompile(`(?:^|[\s"'(=\[,])(?P<path>/[\w.@+-]+(?:/[\w.@+*-]*)*)`)
	certNamesRe  = regexp.MustCompile(`certificate is valid for (?P<names>[^,]+(?:, [^,]+)*?), not (?P<wanted>[\w.*-]+)`)
	certWantedRe = regexp.MustCompile(`not valid for any names, but wanted to match (?P<wanted>[\w.*-]+)`)
	certAfterRe  = regexp.MustCompile(`current time (?P<now>\S+) is after (?P<after>\S+)`)
	certNotAftRe = regexp.MustCompile(`(?i)(?:NotAfter|notAfter|expired on|expires|expired at|valid until)[:=]?\s*(?P<after>[^;\n,)]+)`)
	certSubjRe   = regexp.MustCompile(`(?i)subject[=:]\s*"?(?P<subject>[^";\n]+)|\bCN=(?P<subject>[^,\s"/]+)`)
	sqlRe        = regexp.MustCompile(`(?P<kind>relation|table|column|database|role|schema) "(?P<name>[^"]+)"|Table '(?P<table>[^']+)' doesn't exist|no such table: (?P<table>[\w.]+)|Unknown database '(?P<database>[^']+)'|for user "(?P<user>[^"]+)"|Access denied for user '(?P<user>[^']+)'`)
	httpRe       = signalTable[signalIndex(SigHTTPStatus)].re
	forbiddenRe  = regexp.MustCompile(`User "(?P<user>[^"]+)" cannot (?P<verb>\w+) (?:resource "(?P<resource>[^"]+)"(?: in API group "(?P<group>[^"]*)")?(?: in the namespace "(?P<ns>[^"]+)"| at the cluster scope)?|path "(?P<path>[^"]+)")`)
	forbiddenOld = regexp.MustCompile(`User "(?P<user>[^"]+)" cannot (?P<verb>\w+) (?P<resource>[\w./]+)(?: in the namespace "(?P<ns>[^"]+)"| at the cluster scope)`)
	commandRe    = regexp.MustCompile(`exec:? "?(?P<cmd>[^"\s:]+)"?: (?:stat \S+: )?(?:no such file or directory|executable file not found)|(?:^|\s)(?:/bin/|/usr/bin/)?(?:ba|da|z|a)?sh: (?:\d+: )?(?:line \d+: )?(?:exec: )?(?P<cmd>[^\s:]+): (?:command )?not found|(?:^|\s)\S+: (?:\d+|line \d+): (?:exec: )?(?P<cmd>[^\s:]+): (?:command )?not found|(?:^|\s)(?P<cmd>[^\s:]+): command not found`)
	// The user of a refused login, in the servers' own words: RabbitMQ's
	// "PLAIN login refused: user 'guest' …", PostgreSQL's "… for user
	// \"app\"" and its DETAIL "Role \"app\" does not exist", MySQL's
	// "Access denied for user 'app'@'10.0.0.5'", SQL Server's "Login failed
	// for user 'sa'", MongoDB's "principalName":"app".
	userRe    = regexp.MustCompile(`\buser '(?P<user>[^'\s]+)'|for user "(?P<user>[^"]+)"|Role "(?P<user>[^"]+)" does not exist|for user '(?P<user>[^'\s]+)'|"principalName"\s*:\s*"(?P<user>[^"]+)"|Could not find user "(?P<user>[^"]+)"`)
	libraryRe = regexp.MustCompile(`error while loading shared libraries: (?P<lib>[^:\s]+)|Error loading shared library (?P<lib>[^:\s]+)|(?P<lib>[\w.+-]+\.so[\w.]*): cannot open shared object file`)
)

func signalIndex(s Signal) int {
	for i := range signalTable {
		if signalTable[i].sig == s {
			return i
		}
	}
	panic("applog: no signal " + s)
}

// notEnv are upper-case words that are not variable names.
var notEnv = map[string]bool{"FATAL": true, "ERROR": true, "WARN": true, "INFO": true, "DEBUG": true, "ENV": true, "PANIC": true, "CRITICAL": true, "WARNING": true, "TRACE": true, "KEY": true, "NOT": true, "SET": true, "THE": true, "AND": true, "HTTP": true, "URL": true}

// Extract finds the entities a text names.
// sourceFileRe is a source file a logger's header names with its line
// ("[consumer.py:493]", Python's %(filename)s:%(lineno)d; "main.go:51"):
// file:line, not host:port.
var sourceFileRe = regexp.MustCompile(`(?i)^[\w-]+\.(?:py|go|rb|js|mjs|ts|java|kt|scala|php|c|h|cpp|cc|ex|exs|erl)$`)

func Extract(s string) Entities {
	var e Entities
	// Messages quoted inside a logfmt or JSON value keep their escapes.
	s = strings.ReplaceAll(s, `\"`, `"`)
	add := func(list *[]string, v string) {
		v = strings.TrimSpace(v)
		if v == "" {
			return
		}
		for _, x := range *list {
			if x == v {
				return
			}
		}
		*list = append(*list, v)
	}
	for _, m := range envMissingRe.FindAllString(s, -1) {
		if i := strings.Index(m, "placeholder '"); i >= 0 {
			add(&e.EnvVars, strings.TrimSuffix(m[i+len("placeholder '"):], "'"))
			continue
		}
		for _, n := range envNameRe.FindAllString(m, -1) {
			if !notEnv[n] {
				add(&e.EnvVars, n)
				break
			}
		}
	}
	for _, m := range submatch.FindAll(envLiteralRe, s, -1) {
		add(&e.EnvVars, m.Get("name"))
	}
	urls := urlRe.FindAllString(s, -1)
	for _, u := range urls {
		u = strings.TrimRight(u, ".:")
		add(&e.URLs, u)
		if h := urlHost(u); h != "" {
			add(&e.Hosts, h)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		// Times (09:34:01, 2026-11-26T09:34) look like host:port.
		line = timeRe.ReplaceAllString(line, " ")
		if listenCtxRe.MatchString(line) && !connectRe.MatchString(line) {
			for _, m := range submatch.FindAll(listenPortRe, line, -1) {
				if n, _ := strconv.Atoi(m.Get("port")); n > 0 && n < 65536 {
					add(&e.Listen, m.Get("port"))
				}
			}
			continue
		}
		for _, m := range submatch.FindAll(hostPortRe, stripURLs(line), -1) {
			host := m.Get("host")
			if clockRe.MatchString(host) || strings.Count(host, ":") > 0 && !strings.Contains(m.Whole(), "[") || sourceFileRe.MatchString(host) {
				continue
			}
			add(&e.Endpoints, host+":"+m.Get("port"))
			if !ipRe.MatchString(host) {
				add(&e.Hosts, host)
			}
		}
	}
	// Java's InetSocketAddress prints "host/ip:port" (Kafka's NetworkClient:
	// "Connection to node -1 (kafka.ns.svc.cluster.local/10.96.18.40:9092)"):
	// the name is what the configuration asked for.
	for _, m := range submatch.FindAll(javaAddrRe, s, -1) {
		add(&e.Endpoints, m.Get("host")+":"+m.Get("port"))
		add(&e.Hosts, m.Get("host"))
	}
	// SQL Server writes an endpoint as "host,port": in a connection string
	// (Server=tcp:mssql,1433; Data Source=db,1433) and in EF Core's "on
	// server 'mssql,1433'".
	for _, m := range submatch.FindAll(sqlServerRe, s, -1) {
		host := m.Get("host")
		if port := m.Get("port"); port != "" {
			add(&e.Endpoints, host+":"+port)
		}
		if !ipRe.MatchString(host) {
			add(&e.Hosts, host)
		}
	}
	for _, m := range submatch.FindAll(pgHostRe, s, -1) {
		add(&e.Endpoints, m.Get("host")+":"+m.Get("port"))
		if !ipRe.MatchString(m.Get("host")) {
			add(&e.Hosts, m.Get("host"))
		}
	}
	for _, m := range submatch.FindAll(dnsHostRe, s, -1) {
		if h := m.Get("host"); h != "" {
			add(&e.Unresolved, h)
			add(&e.Hosts, h)
		}
	}
	for _, m := range submatch.FindAll(pathRe, stripURLs(s), -1) {
		p := strings.TrimRight(m.Get("path"), ".:,")
		if len(p) > 1 && !strings.HasPrefix(p, "//") {
			add(&e.Paths, p)
		}
	}
	if signalTable[signalIndex(SigTLS)].re.MatchString(s) {
		e.Certs = certs(s)
	}
	for _, m := range submatch.FindAll(sqlRe, s, -1) {
		switch {
		case m.Get("kind") != "":
			add(&e.SQL, m.Get("kind")+" "+m.Get("name"))
		case m.Get("table") != "":
			add(&e.SQL, "table "+m.Get("table"))
		case m.Get("database") != "":
			add(&e.SQL, "database "+m.Get("database"))
		case m.Get("user") != "":
			add(&e.SQL, "user "+m.Get("user"))
		}
	}
	for _, m := range submatch.FindAll(httpRe, s, -1) {
		code := m.Get("code")
		if n, err := strconv.Atoi(code); err == nil && !containsInt(e.HTTPStatus, n) {
			e.HTTPStatus = append(e.HTTPStatus, n)
		}
	}
	for _, m := range submatch.FindAll(forbiddenRe, s, -1) {
		e.Forbidden = append(e.Forbidden, forbidden(m.Get("user"), m.Get("verb"), m.Get("resource"), m.Get("group"), m.Get("ns"), m.Get("path")))
	}
	if len(e.Forbidden) == 0 {
		for _, m := range submatch.FindAll(forbiddenOld, s, -1) {
			e.Forbidden = append(e.Forbidden, forbidden(m.Get("user"), m.Get("verb"), m.Get("resource"), "", m.Get("ns"), ""))
		}
	}
	for _, m := range submatch.FindAll(commandRe, s, -1) {
		add(&e.Commands, m.Get("cmd"))
	}
	for _, m := range submatch.FindAll(libraryRe, s, -1) {
		add(&e.Libraries, m.Get("lib"))
	}
	if signalTable[signalIndex(SigUnauthorized)].re.MatchString(s) {
		for _, m := range submatch.FindAll(userRe, s, -1) {
			add(&e.Users, m.Get("user"))
		}
	}
	return e
}

// timeRe matches clock times, which would read as host:port.
var timeRe = regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b|T\d{2}:\d{2}\b`)

// connectRe tells an outgoing connection from a listening socket.
var connectRe = regexp.MustCompile(`(?i)\bconnect(ed|ing|ion|s)?\b|\bdial\b`)

var ipRe = regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`)

var javaAddrRe = regexp.MustCompile(`\b(?P<host>[a-zA-Z][\w.-]*[a-zA-Z0-9])/(?P<ip>\d+\.\d+\.\d+\.\d+):(?P<port>\d{2,5})\b`)

func forbidden(user, verb, resource, group, ns, path string) Forbidden {
	f := Forbidden{User: user, Verb: verb, Resource: resource, Group: group, Namespace: ns, Path: path}
	if rest, ok := strings.CutPrefix(user, "system:serviceaccount:"); ok {
		f.ServiceAccount = strings.Replace(rest, ":", "/", 1)
	}
	return f
}

func certs(s string) []Cert {
	var c Cert
	if m, ok := submatch.Find(certNamesRe, s); ok {
		c.Names = strings.Split(m.Get("names"), ", ")
		c.Wanted = m.Get("wanted")
	} else if m, ok := submatch.Find(certWantedRe, s); ok {
		c.Wanted = m.Get("wanted")
	}
	if m, ok := submatch.Find(certAfterRe, s); ok {
		c.NotAfter, _ = time.Parse(time.RFC3339, m.Get("after"))
		c.Expired = true
	} else if m, ok := submatch.Find(certNotAftRe, s); ok {
		for _, layout := range []string{time.RFC3339, "Jan _2 15:04:05 2006 MST", time.UnixDate, "Mon Jan 02 15:04:05 MST 2006", "2006-01-02 15:04:05"} {
			if t, err := time.Parse(layout, strings.TrimSpace(m.Get("after"))); err == nil {
				c.NotAfter = t
				break
			}
		}
	}
	if strings.Contains(strings.ToLower(s), "expired") {
		c.Expired = true
	}
	if m, ok := submatch.Find(certSubjRe, s); ok {
		c.Subject = strings.TrimSpace(m.Get("subject"))
	}
	return []Cert{c}
}

func urlHost(u string) string {
	rest := u[strings.Index(u, "://")+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if strings.HasPrefix(rest, "[") {
		if i := strings.IndexByte(rest, ']'); i > 0 {
			return rest[1:i]
		}
	}
	if i := strings.IndexByte(rest, ':'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, ','); i >= 0 { // mongodb://a,b
		rest = rest[:i]
	}
	return rest
}

func stripURLs(s string) string {
	return urlRe.ReplaceAllStringFunc(s, func(u string) string {
		// keep host:port visible as an endpoint
		h := u[strings.Index(u, "://")+3:]
		if i := strings.IndexAny(h, "/?#"); i >= 0 {
			h = h[:i]
		}
		if i := strings.LastIndexByte(h, '@'); i >= 0 {
			h = h[i+1:]
		}
		return " " + h + " "
	})
}

func containsInt(l []int, n int) bool {
	for _, x := range l {
		if x == n {
			return true
		}
	}
	return false
}
