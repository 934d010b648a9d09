package applog

import (
	"regexp"
	"strconv"
	"strings"
	"time"
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
	envLiteralRe = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	// Listening and binding, in the words of Go's net package, nginx,
	// Tomcat, gunicorn, puma, Kestrel, Node, PostgreSQL and Redis.
	listenCtxRe  = regexp.MustCompile(`(?i)\b(listen(ing|s)?|bind(ing)?|bound|serving|started on|running on|now listening|port\(s\)|listening socket|already in use)\b|EADDRINUSE|EACCES`)
	listenPortRe = regexp.MustCompile(`(?i)(?:port\(s\)?:?|port|:)\s*"?(\d{2,5})\b`)
	hostPortRe   = regexp.MustCompile(`\[?([a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]|\d+\.\d+\.\d+\.\d+|[0-9a-fA-F:]*:[0-9a-fA-F:]+)\]?:(\d{2,5})\b`)
	clockRe      = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T)?\d{1,2}$|^\d{4}-\d{2}-\d{2}`)
	// libpq: `connection to server at "db" (10.0.0.5), port 5432 failed`
	// and the older `Is the server running on host "db" (10.0.0.5) and
	// accepting\n\tTCP/IP connections on port 5432?`.
	pgHostRe     = regexp.MustCompile(`(?:on host|server at) "([^"]+)"(?: \([^)]*\))?,?\s+(?:and accepting\s+TCP/IP connections on\s+)?port (\d+)`)
	urlRe        = regexp.MustCompile(`\b(?:https?|wss?|postgres(?:ql)?|mysql|redis|rediss|amqps?|mongodb(?:\+srv)?|nats|kafka|grpc|jdbc:\w+|ldaps?)://[^\s"'<>)\]},;]+`)
	dnsHostRe    = regexp.MustCompile(`host not found in (?:upstream|resolver) "([^"]+)"|lookup ([\w.-]+)(?: on [\w.:\[\]]+)?: (?:no such host|server misbehaving|i/o timeout|Temporary failure)|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)|could not translate host name "([^"]+)"|UnknownHostException: ([\w.-]+)|[Cc]ould not resolve host:? '?([\w.-]+)|[Ff]ailed to resolve '?([\w.-]+)|DNS resolution failed for ([\w.-]+)|resolve (?:host(?:name)? )?'?([\w.-]+)'?: (?:Name or service not known|Temporary failure)|getaddrinfo for ([\w.-]+) failed|Unknown MySQL server host '([\w.-]+)'|could not resolve address '([\w.-]+)'`)
	pathRe       = regexp.MustCompile(`(?:^|[\s"'(=\[,])(/[\w.@+-]+(?:/[\w.@+*-]*)*)`)
	certNamesRe  = regexp.MustCompile(`certificate is valid for ([^,]+(?:, [^,]+)*?), not ([\w.*-]+)`)
	certWantedRe = regexp.MustCompile(`not valid for any names, but wanted to match ([\w.*-]+)`)
	certAfterRe  = regexp.MustCompile(`current time (\S+) is after (\S+)`)
	certNotAftRe = regexp.MustCompile(`(?i)(?:NotAfter|notAfter|expired on|expires|expired at|valid until)[:=]?\s*([^;\n,)]+)`)
	certSubjRe   = regexp.MustCompile(`(?i)subject[=:]\s*"?([^";\n]+)|\bCN=([^,\s"/]+)`)
	sqlRe        = regexp.MustCompile(`(relation|table|column|database|role|schema) "([^"]+)"|Table '([^']+)' doesn't exist|no such table: ([\w.]+)|Unknown database '([^']+)'|for user "([^"]+)"|Access denied for user '([^']+)'`)
	httpRe       = signalTable[signalIndex(SigHTTPStatus)].re
	forbiddenRe  = regexp.MustCompile(`User "([^"]+)" cannot (\w+) (?:resource "([^"]+)"(?: in API group "([^"]*)")?(?: in the namespace "([^"]+)"| at the cluster scope)?|path "([^"]+)")`)
	forbiddenOld = regexp.MustCompile(`User "([^"]+)" cannot (\w+) ([\w./]+)(?: in the namespace "([^"]+)"| at the cluster scope)`)
	commandRe    = regexp.MustCompile(`exec:? "?([^"\s:]+)"?: (?:stat \S+: )?(?:no such file or directory|executable file not found)|(?:^|\s)(?:/bin/|/usr/bin/)?(?:ba|da|z|a)?sh: (?:\d+: )?(?:line \d+: )?(?:exec: )?([^\s:]+): (?:command )?not found|(?:^|\s)\S+: (?:\d+|line \d+): (?:exec: )?([^\s:]+): (?:command )?not found|(?:^|\s)([^\s:]+): command not found`)
	libraryRe    = regexp.MustCompile(`error while loading shared libraries: ([^:\s]+)|Error loading shared library ([^:\s]+)|([\w.+-]+\.so[\w.]*): cannot open shared object file`)
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
	for _, m := range envLiteralRe.FindAllStringSubmatch(s, -1) {
		add(&e.EnvVars, m[1])
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
			for _, m := range listenPortRe.FindAllStringSubmatch(line, -1) {
				if n, _ := strconv.Atoi(m[1]); n > 0 && n < 65536 {
					add(&e.Listen, m[1])
				}
			}
			continue
		}
		for _, m := range hostPortRe.FindAllStringSubmatch(stripURLs(line), -1) {
			if clockRe.MatchString(m[1]) || strings.Count(m[1], ":") > 0 && !strings.Contains(m[0], "[") {
				continue
			}
			add(&e.Endpoints, m[1]+":"+m[2])
			if !ipRe.MatchString(m[1]) {
				add(&e.Hosts, m[1])
			}
		}
	}
	// Java's InetSocketAddress prints "host/ip:port" (Kafka's NetworkClient:
	// "Connection to node -1 (kafka.ns.svc.cluster.local/10.96.18.40:9092)"):
	// the name is what the configuration asked for.
	for _, m := range javaAddrRe.FindAllStringSubmatch(s, -1) {
		add(&e.Endpoints, m[1]+":"+m[3])
		add(&e.Hosts, m[1])
	}
	for _, m := range pgHostRe.FindAllStringSubmatch(s, -1) {
		add(&e.Endpoints, m[1]+":"+m[2])
		if !ipRe.MatchString(m[1]) {
			add(&e.Hosts, m[1])
		}
	}
	for _, m := range dnsHostRe.FindAllStringSubmatch(s, -1) {
		for _, g := range m[1:] {
			if g != "" {
				add(&e.Unresolved, g)
				add(&e.Hosts, g)
			}
		}
	}
	for _, m := range pathRe.FindAllStringSubmatch(stripURLs(s), -1) {
		p := strings.TrimRight(m[1], ".:,")
		if len(p) > 1 && !strings.HasPrefix(p, "//") {
			add(&e.Paths, p)
		}
	}
	if signalTable[signalIndex(SigTLS)].re.MatchString(s) {
		e.Certs = certs(s)
	}
	for _, m := range sqlRe.FindAllStringSubmatch(s, -1) {
		switch {
		case m[1] != "":
			add(&e.SQL, m[1]+" "+m[2])
		case m[3] != "":
			add(&e.SQL, "table "+m[3])
		case m[4] != "":
			add(&e.SQL, "table "+m[4])
		case m[5] != "":
			add(&e.SQL, "database "+m[5])
		case m[6] != "":
			add(&e.SQL, "user "+m[6])
		case m[7] != "":
			add(&e.SQL, "user "+m[7])
		}
	}
	for _, m := range httpRe.FindAllStringSubmatch(s, -1) {
		code := m[1] + m[2] + m[3]
		if n, err := strconv.Atoi(code); err == nil && !containsInt(e.HTTPStatus, n) {
			e.HTTPStatus = append(e.HTTPStatus, n)
		}
	}
	for _, m := range forbiddenRe.FindAllStringSubmatch(s, -1) {
		e.Forbidden = append(e.Forbidden, forbidden(m[1], m[2], m[3], m[4], m[5], m[6]))
	}
	if len(e.Forbidden) == 0 {
		for _, m := range forbiddenOld.FindAllStringSubmatch(s, -1) {
			e.Forbidden = append(e.Forbidden, forbidden(m[1], m[2], m[3], "", m[4], ""))
		}
	}
	for _, m := range commandRe.FindAllStringSubmatch(s, -1) {
		add(&e.Commands, m[1]+m[2]+m[3]+m[4])
	}
	for _, m := range libraryRe.FindAllStringSubmatch(s, -1) {
		add(&e.Libraries, m[1]+m[2]+m[3])
	}
	return e
}

// timeRe matches clock times, which would read as host:port.
var timeRe = regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b|T\d{2}:\d{2}\b`)

// connectRe tells an outgoing connection from a listening socket.
var connectRe = regexp.MustCompile(`(?i)\bconnect(ed|ing|ion|s)?\b|\bdial\b`)

var ipRe = regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`)

var javaAddrRe = regexp.MustCompile(`\b([a-zA-Z][\w.-]*[a-zA-Z0-9])/(\d+\.\d+\.\d+\.\d+):(\d{2,5})\b`)

func forbidden(user, verb, resource, group, ns, path string) Forbidden {
	f := Forbidden{User: user, Verb: verb, Resource: resource, Group: group, Namespace: ns, Path: path}
	if rest, ok := strings.CutPrefix(user, "system:serviceaccount:"); ok {
		f.ServiceAccount = strings.Replace(rest, ":", "/", 1)
	}
	return f
}

func certs(s string) []Cert {
	var c Cert
	if m := certNamesRe.FindStringSubmatch(s); m != nil {
		c.Names = strings.Split(m[1], ", ")
		c.Wanted = m[2]
	} else if m := certWantedRe.FindStringSubmatch(s); m != nil {
		c.Wanted = m[1]
	}
	if m := certAfterRe.FindStringSubmatch(s); m != nil {
		c.NotAfter, _ = time.Parse(time.RFC3339, m[2])
		c.Expired = true
	} else if m := certNotAftRe.FindStringSubmatch(s); m != nil {
		for _, layout := range []string{time.RFC3339, "Jan _2 15:04:05 2006 MST", time.UnixDate, "Mon Jan 02 15:04:05 MST 2006", "2006-01-02 15:04:05"} {
			if t, err := time.Parse(layout, strings.TrimSpace(m[1])); err == nil {
				c.NotAfter = t
				break
			}
		}
	}
	if strings.Contains(strings.ToLower(s), "expired") {
		c.Expired = true
	}
	if m := certSubjRe.FindStringSubmatch(s); m != nil {
		c.Subject = strings.TrimSpace(m[1] + m[2])
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
