package logs

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// The process is denied what it asks for: an API permission, a file, a
// port.
const (
	Forbidden        Class = "Forbidden"
	PermissionDenied Class = "PermissionDenied"
	FileMode         Class = "FileMode"
	PrivilegedPort   Class = "PrivilegedPort"
	AddressInUse     Class = "AddressInUse"
	// AddressFamily: a listen on an address of a family the pod's network
	// does not have (IPv6's [::] where the node has IPv6 disabled).
	AddressFamily Class = "AddressFamily"
)

// The API server's and client-go's exact wording: "pods is forbidden: User
// "system:serviceaccount:ns:sa" cannot list resource "pods"…".
var _ = register(Def{
	Class: Forbidden,
	Patterns: []Pattern{{
		Explains: "the pod's ServiceAccount lacks an RBAC permission the application needs",
		Fix:      "Grant the ServiceAccount the verb on the resource it names (a Role and RoleBinding in the namespace, or a ClusterRole and ClusterRoleBinding at cluster scope), or run the pod under the ServiceAccount that has it.", Priority: 88}},
	Signals: []applog.Signal{applog.SigForbidden},
	Subject: func(line string) string {
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
		return ""
	},
})

// PostgreSQL's "data directory … has wrong ownership" and the like: a
// volume mounted with the wrong owner for the process's user.
var _ = register(Def{
	Class: PermissionDenied,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(permission denied|EACCES|operation not permitted|read-only file system|has wrong ownership|must be owned by|has invalid permissions)`),
		Explains: "the process is denied access to a file, directory or operation",
		Fix:      "Check the container's securityContext (runAsUser, fsGroup, readOnlyRootFilesystem) and the ownership of the mounted paths.", Priority: 75}},
	Signals:    []applog.Signal{applog.SigPermission, applog.SigReadOnlyFS},
	BroadWords: true,
	Subject: func(line string) string {
		// A bind refused on an unprivileged port: the port, not a path
		// ("listen EACCES: permission denied tcp://172.20.11.4:8000").
		if l := applog.Extract(line).Listen; len(l) > 0 && slices.Contains(applog.Signals(line), applog.SigBindDenied) {
			return "port " + l[0]
		}
		return lastPathMatch(line)
	},
})

// The opposite of a denied file: a key or cookie others may read, which
// its program refuses. Erlang's auth.erl "Cookie file %s must be accessible
// by owner only", PostgreSQL's be-secure-openssl.c "private key file \"%s\"
// has group or world access", OpenSSH's "Permissions 0644 for '%s' are too
// open". Secret and ConfigMap volumes project files with mode 0644 unless
// defaultMode (or items[].mode) says otherwise.
var _ = register(Def{
	Class: FileMode,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(must be accessible by owner only|has group or world access|Permissions 0?[0-7]{3} for '[^']+' are too open)`),
		Explains: "a secret file (a private key, a cookie) is readable by group or others, and the program refuses to use it",
		Fix:      "Give the file owner-only permissions: set defaultMode: 0400 (or items[].mode) on the Secret/ConfigMap volume that projects it, or copy it with chmod 0600 in an init container when it must be owned by the program's user.", Priority: 79}},
	Subject: lastPath,
})

// Binding a port below 1024 as a non-root user without NET_BIND_SERVICE.
var _ = register(Def{
	Class: PrivilegedPort,
	Patterns: []Pattern{{
		Explains: "the process may not bind its listening port: a port below 1024 needs root or the NET_BIND_SERVICE capability",
		Fix:      "Listen on a port above 1024 (and point containerPort, probes and the Service's targetPort at it), or add the NET_BIND_SERVICE capability to the container's securityContext.", Priority: 78}},
	Signals:    []applog.Signal{applog.SigBindDenied},
	NamesImage: true, // the image decides: the user it runs as, when the spec sets none
	// EACCES on a port from 1024 up is no privileged-port failure: the
	// process may bind it as any user; something else denies it.
	Instead: func(line string) Class {
		if unprivilegedPorts(line) {
			return PermissionDenied
		}
		return ""
	},
	Subject: func(line string) string {
		if l := applog.Extract(line).Listen; len(l) > 0 {
			return "port " + l[0]
		}
		return portSubject(line)
	},
})

var _ = register(Def{
	Class: AddressInUse,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(address already in use|EADDRINUSE|bind: address|port \S+ (was|is) already in use|may already be in use)`),
		Explains: "the process cannot bind its listening port because another process already holds it",
		Fix:      "Make sure only one process (or container sharing the pod network) listens on that port; check hostNetwork and sidecars.", Priority: 75}},
	Rank:    1, // a line of both is a PermissionDenied
	Signals: []applog.Signal{applog.SigAddrInUse},
	Subject: portSubject,
})

// A listen (or bind) the kernel refuses with EAFNOSUPPORT: ClickHouse's
// "Listen [::]:8123 failed: ... Address family for hostname not supported",
// nginx's "socket() [::]:80 failed (97: Address family not supported by
// protocol)", Go's "listen tcp6 [::]:8080: socket: address family not
// supported by protocol". The setting that names the address is traced by
// the pod rules (listen_family.go).
var _ = register(Def{
	Class: AddressFamily,
	// Only a listen, a bind or nginx's socket(): an outgoing connection's
	// EAFNOSUPPORT (Node's "connect EAFNOSUPPORT ::1:6379", Go's "dial
	// tcp …") is a client's problem with an address, not a listen setting.
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)\b(?:listen|bind|socket\(\))[^\n]*?(?:address family (?:for hostname )?not supported|EAFNOSUPPORT)`),
		Explains: "the application listens on an address of a family the pod's network does not have: an IPv6 address such as [::] where the node has IPv6 disabled",
		Fix:      "Listen on an address of the family the cluster has, 0.0.0.0 for IPv4, in the setting that names the IPv6 one (or enable IPv6 on the nodes).", Priority: 77}},
	Subject: func(line string) string {
		if m := ipv6AddrRe.FindString(line); m != "" {
			return m
		}
		return ""
	},
})

// ipv6AddrRe is a bracketed IPv6 address with its port, "[::]:8123".
var ipv6AddrRe = regexp.MustCompile(`\[[0-9a-fA-F:]*:[0-9a-fA-F:]*\](?::\d{1,5})?`)

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

// portSubject is the port a failed bind names.
func portSubject(line string) string {
	// Ruby's and others' crash lines start with a source position
	// ("binder.rb:334:in `initialize'") that reads like host:port.
	line = sourceRefRe.ReplaceAllString(line, " ")
	if m, ok := submatch.Find(portWordRe, line); ok {
		return "port " + m.Get("port")
	}
	// Python's socket addresses print as tuples: gunicorn's "Connection in
	// use: ('0.0.0.0', 8000)".
	if m, ok := submatch.Find(pyAddrRe, line); ok {
		return "port " + m.Get("port") + " on " + m.Get("host")
	}
	if l := applog.Extract(line).Listen; len(l) > 0 {
		return "port " + l[0]
	}
	return EndpointIn(line)
}

var (
	pyAddrRe    = regexp.MustCompile(`\('(?P<host>[^']*)', (?P<port>\d{1,5})\)`)
	portWordRe  = regexp.MustCompile(`(?i)\bport (?P<port>\d{2,5})\b`)
	sourceRefRe = regexp.MustCompile(`\S+\.(?:rb|py|go|js|mjs|ts|java|kt|cs|rs|php|ex|exs|erl):\d+(?::\d+)?`)
)
