package bundle

import (
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// WaitSource is where a wait target was read.
type WaitSource string

const (
	// FromCommandLine: the init container's command and args.
	FromCommandLine WaitSource = "the command line"
	// FromLog: a line of the init container's log.
	FromLog WaitSource = "the log"
)

// WaitTarget is a host (and port, when named) an init container's wait
// loop waits for.
type WaitTarget struct {
	Host string
	Port string
	From WaitSource
}

// HostPort is the target as host or host:port.
func (t WaitTarget) HostPort() string {
	if t.Port == "" {
		return t.Host
	}
	return net.JoinHostPort(t.Host, t.Port)
}

// InitWaitTargets are the hosts an init container that keeps running waits
// for: those its command line hands a lookup or a connection check
// (`until nslookup mydb; do …`, `nc -z db 5432`, `wait-for-it db:5432`,
// `pg_isready -h db -p 5432`, a URL for curl or wget), else those its log
// fails to reach by name (busybox nc's "bad address 'db'", pg_isready's
// "db:5432 - no response"). The command line comes first: it says what
// the loop waits for whatever it prints. A shell substitution in the
// namespace label (the docs' `myservice.$(cat …/namespace).svc…`) reads
// the pod's own namespace file, so it is taken as the pod's namespace.
// See docs/DESIGN.md §7.
func InitWaitTargets(p *corev1.Pod, container, log string) []WaitTarget {
	var out []WaitTarget
	add := func(host, port string, from WaitSource) {
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if host == "" || net.ParseIP(host) != nil || host == "localhost" {
			return
		}
		for i, t := range out {
			if t.Host == host {
				if t.Port == "" {
					out[i].Port = port
				}
				return
			}
		}
		out = append(out, WaitTarget{Host: host, Port: port, From: from})
	}
	args := commandLine(p, container)
	for _, t := range commandTargets(strings.Join(args, " "), p.Namespace) {
		add(t.Host, t.Port, FromCommandLine)
	}
	for _, t := range argURLs(args) {
		add(t.Host, t.Port, FromCommandLine)
	}
	if len(out) > 0 {
		return out
	}
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-20; i-- {
		e := applog.Extract(lines[i])
		for _, m := range unresolvedRe.FindAllStringSubmatch(lines[i], -1) {
			add(m[1], "", FromLog)
		}
		for _, h := range e.Unresolved {
			h, pt := splitHP(h)
			add(h, pt, FromLog)
		}
		for _, ep := range e.Endpoints {
			if h, pt, err := net.SplitHostPort(ep); err == nil {
				add(h, pt, FromLog)
			}
		}
	}
	return out
}

// unresolvedRe is a lookup failure of busybox's nc, nslookup and wget,
// curl's and getent's: the name is its first group.
var unresolvedRe = regexp.MustCompile(`(?i)(?:bad address|can't resolve|could not resolve(?: host)?:?|unknown host)\s+'?([a-z0-9][a-z0-9.-]*[a-z0-9])'?`)

// argURLs are the hosts (and ports) of the URLs a command line names
// (curl's and wget's targets).
func argURLs(args []string) []WaitTarget {
	var out []WaitTarget
	for _, a := range args {
		for _, raw := range applog.Extract(a).URLs {
			if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
				out = append(out, WaitTarget{Host: u.Hostname(), Port: u.Port(), From: FromCommandLine})
			}
		}
	}
	return out
}

func splitHP(s string) (string, string) {
	if h, p, err := net.SplitHostPort(s); err == nil {
		return h, p
	}
	return s, ""
}

// waitTool is how a command-line tool names the host it checks.
type waitTool int

const (
	toolLookup  waitTool = iota // nslookup/host/dig NAME
	toolConnect                 // nc/telnet HOST PORT
	toolWaitFor                 // wait-for-it HOST:PORT or -h HOST -p PORT
	toolClient                  // pg_isready/mysqladmin/redis-cli -h HOST -p PORT
)

var waitTools = map[string]waitTool{
	"nslookup": toolLookup, "host": toolLookup, "dig": toolLookup, "getent": toolLookup,
	"nc": toolConnect, "ncat": toolConnect, "netcat": toolConnect, "telnet": toolConnect,
	"wait-for-it": toolWaitFor, "wait-for-it.sh": toolWaitFor, "wait-for": toolWaitFor, "wait-for.sh": toolWaitFor,
	"pg_isready": toolClient, "mysqladmin": toolClient, "redis-cli": toolClient, "psql": toolClient, "mysql": toolClient,
}

var (
	// substRe is a shell substitution; it becomes one token.
	substRe = regexp.MustCompile(`\$\([^()]*\)|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)
	// separatorRe splits a script into simple commands.
	separatorRe = regexp.MustCompile(`;|&&|\|\||\||\n|\bdo\b|\bthen\b|\buntil\b|\bwhile\b|\bif\b|!`)
	hostTokRe   = regexp.MustCompile(`^[a-z0-9_]([a-z0-9_.-]*[a-z0-9])?$`)
)

// wrappers are words a checking command may be run under.
var wrappers = map[string]bool{"exec": true, "command": true, "busybox": true, "timeout": true, "env": true, "sh": true, "bash": true, "ash": true}

// base is a command word without its directory (/bin/sh → sh).
func base(w string) string { return w[strings.LastIndex(w, "/")+1:] }

// substToken stands for a shell substitution inside a host name.
const substToken = "_subst_"

// commandTargets reads the hosts a shell script's lookup and connection
// checks name.
func commandTargets(script, namespace string) []WaitTarget {
	script = substRe.ReplaceAllString(strings.ToLower(script), substToken)
	var out []WaitTarget
	for _, cmd := range separatorRe.Split(script, -1) {
		f := strings.Fields(strings.NewReplacer(`"`, " ", `'`, " ").Replace(cmd))
		i := 0
		for i < len(f) && wrappers[base(f[i])] {
			w := base(f[i])
			i++
			for w != "timeout" && w != "exec" && i < len(f) && strings.HasPrefix(f[i], "-") {
				i++ // a shell's -c, -ec
			}
			if i < len(f) && w == "timeout" {
				i++ // timeout's duration
			}
		}
		if i >= len(f) {
			continue
		}
		tool, ok := waitTools[base(f[i])]
		if !ok {
			continue
		}
		if h, pt := toolTarget(tool, f[i+1:]); h != "" {
			if h = hostInNamespace(h, namespace); h != "" {
				out = append(out, WaitTarget{Host: h, Port: pt, From: FromCommandLine})
			}
		}
	}
	return out
}

// toolTarget is the host and port a tool's arguments name.
func toolTarget(tool waitTool, args []string) (host, port string) {
	var plain []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		flag, val, hasVal := strings.Cut(a, "=")
		switch {
		case flag == "-h" || flag == "--host" || flag == "--hostname":
			if hasVal {
				host = val
			} else if i+1 < len(args) {
				host, i = args[i+1], i+1
			}
		case flag == "-p" || flag == "-P" || flag == "--port":
			if hasVal {
				port = val
			} else if i+1 < len(args) {
				port, i = args[i+1], i+1
			}
		case (flag == "-w" || flag == "-t" || flag == "--timeout" || flag == "-d" || flag == "-U" || flag == "-u") && !hasVal && tool != toolLookup:
			i++ // a flag with a value
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "@") || strings.HasPrefix(a, "+"):
		default:
			plain = append(plain, a)
		}
	}
	if _, err := strconv.Atoi(port); port != "" && err != nil {
		port = ""
	}
	if host != "" {
		return host, port
	}
	if len(plain) == 0 {
		return "", ""
	}
	switch tool {
	case toolLookup:
		if plain[0] == "hosts" && len(plain) > 1 { // getent hosts NAME
			return plain[1], ""
		}
		return plain[0], ""
	case toolConnect:
		if len(plain) > 1 {
			if _, err := strconv.Atoi(plain[1]); err == nil {
				return plain[0], plain[1]
			}
		}
		return plain[0], port
	case toolWaitFor:
		h, pt := splitHP(strings.TrimPrefix(plain[0], "tcp://"))
		return h, pt
	}
	return "", ""
}

// hostInNamespace is a host token as a name to look up, with a substituted
// namespace label read as namespace; "" when the token is no host name
// (a substitution in the Service label, a path).
func hostInNamespace(h, namespace string) string {
	h, _ = splitHP(h)
	labels := strings.Split(h, ".")
	if strings.Contains(labels[0], substToken) {
		return ""
	}
	if len(labels) > 2 && labels[1] == substToken && labels[2] == "svc" {
		labels[1] = namespace
	}
	h = strings.Join(labels, ".")
	if strings.Contains(h, substToken) || !hostTokRe.MatchString(h) {
		return ""
	}
	return h
}
