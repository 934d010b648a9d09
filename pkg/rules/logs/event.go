package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// refine reads the rest of an event when its line says too little. An
// entrypoint's error paragraph names the variable on its second line
// ("Error: Database is uninitialized …" then "You must specify
// POSTGRES_PASSWORD …"): the event's lines joined are its line. A crash
// report's root cause is often the innermost exception ("SocketException
// (111): Connection refused") while an outer one names what it was about
// ("Failed to connect to 10.96.0.55:5432", "Failed to bind to address
// http://[::]:8080"): an outer line of the same class that names its subject
// is the better line.
func refine(ev *applog.Event, line string, p *Pattern) (string, *Pattern) {
	if ev.Trace == "" && len(ev.Raw) > 1 && (p == nil || p.Priority <= 10) {
		joined := joinLines(ev.Raw)
		if q := classify(joined, false); q != nil && (p == nil || q.Priority > p.Priority) {
			return joined, q
		}
	}
	if ev.Trace == "" && p != nil && len(ev.Raw) > 1 {
		if quoted := quoteSubject(ev.Raw, p, line); quoted != "" {
			return quoted, p
		}
	}
	if p == nil || p.Priority <= 10 || SubjectOf(p.Class, line) != "" {
		return line, p
	}
	for _, alt := range eventLines(ev) {
		if alt == line {
			continue
		}
		if q := classify(alt, false); q == p && SubjectOf(q.Class, alt) != "" {
			return alt, p
		}
	}
	return line, p
}

// quoteSubject: when a row knows what its headline is about without the
// headline saying it (the postgres image's "superuser password is not
// specified" is about POSTGRES_PASSWORD), the paragraph's lines up to the one
// naming it, so the quoted evidence shows it; "" when no short prefix does.
func quoteSubject(raw []string, p *Pattern, line string) string {
	subject := SubjectOf(p.Class, line)
	fields := strings.Fields(subject)
	if len(fields) == 0 {
		return ""
	}
	name := fields[len(fields)-1]
	if strings.Contains(line, name) || !strings.Contains(line, strings.TrimSpace(raw[0])) {
		return ""
	}
	for n := 2; n <= len(raw) && n <= 6; n++ {
		joined := joinLines(raw[:n])
		if len(joined) > 600 {
			return ""
		}
		if strings.Contains(joined, name) {
			// Finish the sentence the name is in (entrypoints wrap theirs).
			for m := n + 1; m <= len(raw) && m <= n+2 && !strings.HasSuffix(joined, "."); m++ {
				joined = joinLines(raw[:m])
			}
			return joined
		}
	}
	return ""
}

// joinLines is a paragraph's lines in one line.
func joinLines(raw []string) string {
	parts := make([]string, 0, len(raw))
	for _, l := range raw {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// eventLines are the lines of an event other than its headline: the
// message and error fields and each exception of its chain, without stack
// frames.
func eventLines(ev *applog.Event) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	add(ev.Error)
	if ev.Message != "" && ev.Error != "" {
		add(ev.Message + ": " + ev.Error)
	}
	add(ev.Message)
	for _, l := range ev.Raw {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "{") || frameLineRe.MatchString(l) {
			continue
		}
		add(strings.TrimPrefix(strings.TrimPrefix(l, "---> "), "Caused by: "))
	}
	return out
}

// frameLineRe is a stack frame of the JVM, .NET, Python or Go.
var frameLineRe = regexp.MustCompile(`^(at |File "|--- End of|\.\.\. \d+ more)|^/\S+\.go:\d+`)

// subjectMore names what the classes added after SubjectOf's are about.
func subjectMore(class, line string) string {
	switch class {
	case "AddressInUse", "PrivilegedPort":
		// Ruby's and others' crash lines start with a source position
		// ("binder.rb:334:in `initialize'") that reads like host:port.
		line = sourceRefRe.ReplaceAllString(line, " ")
		if m := portWordRe.FindStringSubmatch(line); m != nil {
			return "port " + m[1]
		}
		// Python's socket addresses print as tuples: gunicorn's
		// "Connection in use: ('0.0.0.0', 8000)".
		if m := pyAddrRe.FindStringSubmatch(line); m != nil {
			return "port " + m[2] + " on " + m[1]
		}
		if l := applog.Extract(line).Listen; len(l) > 0 {
			return "port " + l[0]
		}
		if e := EndpointIn(line); e != "" {
			return e
		}
	case "ConnectionRefused":
		// Prisma before 4.x quoted host and port apart: "Can't reach
		// database server at `db`:`5432`".
		if m := prismaAddrRe.FindStringSubmatch(line); m != nil {
			return m[1] + ":" + m[2]
		}
	case "DNS":
		// SubjectOf has tried the host the log component extracts.
		if m := nxdomainRe.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	case "InvalidConfig":
		// Redis's FATAL CONFIG FILE ERROR, as applog words its headline.
		if m := directiveRe.FindStringSubmatch(line); m != nil {
			return m[1]
		}
		// Spring Boot's failure analysis says where a bad value came from:
		// "Origin: System Environment Property "SERVER_PORT"".
		if m := envOriginRe.FindStringSubmatch(line); m != nil {
			return "environment variable " + m[1] + serviceLink(m[1], line)
		}
		if m := settingRe.FindStringSubmatch(line); m != nil {
			return "setting " + m[1] + m[2]
		}
		if m := nullParamRe.FindStringSubmatch(line); m != nil {
			return "configuration value " + m[1] + " (null)"
		}
		if m := clusterIDRe.FindStringSubmatch(line); m != nil {
			return "cluster.id of " + m[1]
		}
	case "SQL":
		if s := applog.Extract(line).SQL; len(s) > 0 {
			return s[0]
		}
	}
	return ""
}

var (
	pyAddrRe     = regexp.MustCompile(`\('([^']*)', (\d{1,5})\)`)
	prismaAddrRe = regexp.MustCompile("at `([\\w.-]+)`:`(\\d{1,5})`")
	nxdomainRe   = regexp.MustCompile(`host '?([\w.-]+)'?: nxdomain`)
	directiveRe  = regexp.MustCompile(`\((config directive '[^']*'(?: at line \d+)?)\)`)
	portWordRe   = regexp.MustCompile(`(?i)\bport (\d{2,5})\b`)
	sourceRefRe  = regexp.MustCompile(`\S+\.(?:rb|py|go|js|mjs|ts|java|kt|cs|rs|php|ex|exs|erl):\d+(?::\d+)?`)
	linkValueRe  = regexp.MustCompile(`tcp://\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}`)
	envOriginRe  = regexp.MustCompile(`Origin: System Environment Property "([A-Za-z_][A-Za-z0-9_]*)"`)
	// Django's checks: "The SECRET_KEY setting must not be empty.",
	// "settings.DATABASES is improperly configured".
	settingRe   = regexp.MustCompile(`The ([A-Z][A-Z0-9_]+) setting must|settings\.([A-Z][A-Z0-9_]+) is improperly configured`)
	nullParamRe = regexp.MustCompile(`Value cannot be null\. \(Parameter '([\w]+)'\)`)
	clusterIDRe = regexp.MustCompile(`Invalid cluster\.id in:? (\S+?)\.?(?:\s|$)`)
)

// serviceLink says where a bad <NAME>_PORT value came from when it is a
// Service link: the kubelet sets <SVC>_PORT=tcp://<clusterIP>:<port> for
// every Service of the namespace (pkg/kubelet/envvars), so a Service named
// "server" hands Spring Boot's server.port (relaxed binding of SERVER_PORT)
// a URL instead of a number.
func serviceLink(name, line string) string {
	svc, ok := strings.CutSuffix(name, "_PORT")
	if !ok || svc == "" {
		return ""
	}
	v := linkValueRe.FindString(line)
	if v == "" {
		return ""
	}
	return "=" + v + ", the Service link Kubernetes sets for a Service named " + strings.ToLower(strings.ReplaceAll(svc, "_", "-")) +
		"; enableServiceLinks: false in the pod spec, or another Service name, avoids it"
}
