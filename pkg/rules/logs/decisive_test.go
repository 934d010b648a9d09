package logs

import (
	"strings"
	"testing"
)

// TestFindDecisiveThroughLogComponent: the decisive line is read by
// pkg/applog (formats, crash reports, levels), then classified here. The
// lines are excerpts of real logs; pkg/applog's corpus records them all.
func TestFindDecisiveThroughLogComponent(t *testing.T) {
	tests := []struct {
		name, log     string
		class         Class
		line, subject string
	}{
		// Both Caused by lines are the same class; the one naming its endpoint
		// (localhost:5432) wins over the innermost, which names none.
		{"java refused connection names its endpoint from the Caused by chain (github.com/axelor/open-platform-demo/issues/9)",
			"Caused by: org.postgresql.util.PSQLException: Connection to localhost:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n" +
				"        at org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:265)\n" +
				"Caused by: java.net.ConnectException: Connection refused: connect\n" +
				"        at java.net.DualStackPlainSocketImpl.waitForConnect(Native Method)\n",
			"ConnectionRefused", "Caused by: org.postgresql.util.PSQLException: Connection to localhost:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.", ""},
		{"spring failure analysis (github.com/digitalinnovationone/dio-springboot/issues/18)",
			"***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\nWeb server failed to start. Port 8080 was already in use.\n\nAction:\n\nIdentify and stop the process that's listening on port 8080 or configure this application to listen on another port.\n",
			"AddressInUse", "Web server failed to start. Port 8080 was already in use.", ""},
		{"INFO record whose field says Error is no cause (github.com/serilog/serilog-sinks-file/issues/99)",
			`{"@t":"2019-03-28T15:17:14.5836847Z","@mt":"Result for {HealthCheckName}: {HealthCheckResult}, Message: '{HealthCheckMessage}'","HealthCheckName":"Notification Email Settings","HealthCheckResult":"Error","HealthCheckMessage":"Notification email is still set to the default value"}` + "\n",
			"", "", ""},
		{"klog RBAC denial (github.com/giantswarm/prometheus/issues/142)",
			`2026-11-26T09:34:01.1Z E0815 13:42:36.847815 1 reflector.go:199] vendor/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.Service: services is forbidden: User "system:serviceaccount:monitoring:kube-state-metrics" cannot list resource "services" in API group "" at the cluster scope` + "\n",
			"Forbidden", "", "serviceaccount monitoring/kube-state-metrics cannot list services"},
		{"shell syntax error (github.com/belsander/docker-cronicle/issues/4)",
			"/entrypoint.sh: line 29: syntax error: unterminated quoted string\n",
			"ShellSyntax", "/entrypoint.sh: line 29: syntax error: unterminated quoted string", "/entrypoint.sh"},
		{"missing shared library (github.com/newsdev/docker-varnish/issues/4)",
			"varnishlog: error while loading shared libraries: libvarnishapi.so.1: cannot open shared object file: No such file or directory\n",
			"MissingLibrary", "", "library libvarnishapi.so.1"},
		{"expired certificate (github.com/chaitin/xpoc/issues/14)",
			`[ERRO] 2023-06-21 17:28:13 pull: Get "https://registry.xray.cool/api/v1/pocs?limit=100&offset=0&query=": x509: certificate has expired or is not yet valid: current time 2023-06-21T17:28:13+08:00 is after 2021-09-30T14:01:15Z [pull.go:32]` + "\n",
			"TLS", "", "certificate expired 2021-09-30 14:01 UTC"},
		{"node uncaught exception (github.com/nodejs/help/issues/1930)",
			"events.js:174\n      throw er; // Unhandled 'error' event\n      ^\n\nError: listen EADDRINUSE: address already in use :::8080\n    at Server.setupListenHandle [as _listen2] (net.js:1270:14)\n",
			"AddressInUse", "Error: listen EADDRINUSE: address already in use :::8080", ""},
		{"node module not found (github.com/nodejs/docker-node/issues/1917)",
			"module.js:550\n    throw err;\n    ^\n\nError: Cannot find module 'express'\n    at Function.Module._resolveFilename (module.js:548:15)\n",
			"MissingModule", "Error: Cannot find module 'express'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if tt.class == "" {
				if d != nil {
					t.Fatalf("got %s %q, want nothing", d.Pattern.Class, d.Line)
				}
				return
			}
			if d == nil || d.Pattern.Class != tt.class {
				t.Fatalf("got %+v, want class %s", d, tt.class)
			}
			if tt.line != "" && d.Line != tt.line {
				t.Errorf("line %q, want %q", d.Line, tt.line)
			}
			if got := SubjectOf(d.Pattern.Class, d.Line); tt.subject != "" && got != tt.subject {
				t.Errorf("subject %q, want %q", got, tt.subject)
			}
		})
	}
}

// TestShellExecNotFound: dash's wording for a missing exec target, which
// the pattern's own expression does not know (a public troubleshooting
// page records this line with systemd's status=127).
func TestShellExecNotFound(t *testing.T) {
	d := FindDecisive("/bin/sh: 1: exec: java: not found\n")
	if d == nil || d.Pattern.Class != "CommandNotFound" {
		t.Fatalf("got %+v", d)
	}
	if got := SubjectOf(d.Pattern.Class, d.Line); got != "command java" {
		t.Errorf("subject %q", got)
	}
}

// TestInvalidArgsAndUnexpandedVariables: Go's flag package's wording
// (github.com/openshift/machine-api-operator/issues/107), and the literal
// a pod prints when its args reference a variable its env lacks
// (github.com/kubernetes/kubernetes/issues/57726).
func TestInvalidArgsAndUnexpandedVariables(t *testing.T) {
	d := FindDecisive("flag provided but not defined: -log-level\nUsage of /machine-controller-manager:\n  -alsologtostderr\n    \tlog to standard error as well as files\n")
	if d == nil || d.Pattern.Class != "InvalidConfig" || d.Line != "flag provided but not defined: -log-level" {
		t.Errorf("flag: got %+v", d)
	}
	d = FindDecisive("$(HOSTNAME)\n")
	if d == nil || d.Pattern.Class != "MissingEnv" {
		t.Fatalf("literal: got %+v", d)
	}
	if got := SubjectOf(d.Pattern.Class, d.Line); got != "environment variable HOSTNAME" {
		t.Errorf("literal: subject %q", got)
	}
}

// TestPrivilegedPortNamesThePort: nginx as a non-root user on port 80
// (github.com/hjacobs/kube-resource-report/issues/146).
func TestPrivilegedPortNamesThePort(t *testing.T) {
	d := FindDecisive("2020/04/15 02:38:08 [emerg] 1#1: bind() to 0.0.0.0:80 failed (13: Permission denied)\nnginx: [emerg] bind() to 0.0.0.0:80 failed (13: Permission denied)\n")
	if d == nil || d.Pattern.Class != "PrivilegedPort" {
		t.Fatalf("got %+v", d)
	}
	if got := SubjectOf(d.Pattern.Class, d.Line); got != "port 80" {
		t.Errorf("subject %q", got)
	}
}

func TestDecisiveLinesFromRealLogs(t *testing.T) {
	tests := []struct {
		name, log string
		class     Class
		subject   string
	}{
		{"envconfig plain, Go log prefix",
			"2026-11-26T07:15:14.827752749Z starting orders v2.3.1\n2026-11-26T07:15:14.827760917Z 2026/11/26 07:15:14 config: required key DATABASE_URL missing value\n",
			"MissingEnv", "environment variable DATABASE_URL"},
		{"envconfig inside a JSON line",
			`2026-11-26T07:15:14.8Z {"level":"info","ts":1764140000.5,"msg":"starting orders","version":"2.3.1"}` + "\n" +
				`2026-11-26T07:15:14.9Z {"level":"fatal","ts":1764140000.6,"caller":"orders/main.go:42","msg":"load config","error":"required key DATABASE_URL missing value"}` + "\n",
			"MissingEnv", "environment variable DATABASE_URL"},
		// OpenSearch 2.12's demo installer
		// (https://github.com/opensearch-project/helm-charts/issues/519):
		// the banner before it only asks, the last line says nothing was
		// found.
		{"no value found, the variable to provide it",
			"2026-11-26T07:15:14.8Z If a password is not provided, the setup will quit. \n2026-11-26T07:15:14.9Z No custom admin password found. Please provide a password via the environment variable OPENSEARCH_INITIAL_ADMIN_PASSWORD.\n",
			"MissingEnv", "environment variable OPENSEARCH_INITIAL_ADMIN_PASSWORD"},
		{"go-envconfig wording", "2026-11-26T07:15:14.9Z load config: DATABASE_URL: missing required value\n", "MissingEnv", "environment variable DATABASE_URL"},
		{"logfmt, whose time= is no endpoint",
			`2026-11-26T07:15:14.9Z time=2026-11-26T07:00:01Z level=error msg="connect to queue" err="dial tcp 10.0.0.42:5672: connect: connection refused"` + "\n",
			"ConnectionRefused", "10.0.0.42:5672"},
		{"PostgreSQL's data directory owner",
			`2026-11-26T07:15:14.9Z FATAL:  data directory "/var/lib/postgresql/data" has wrong ownership` + "\n",
			"PermissionDenied", "/var/lib/postgresql/data"},
		{"migration error of an init container",
			"2026-11-26T07:15:14.8Z applying migration 0042_add_orders_index\n2026-11-26T07:15:14.9Z ERROR: migration 0042_add_orders_index failed: pq: relation \"orders\" does not exist\n",
			"Migration", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil || d.Pattern.Class != tt.class {
				t.Fatalf("decisive %+v, want class %s", d, tt.class)
			}
			if got := SubjectOf(d.Pattern.Class, d.Line); got != tt.subject {
				t.Errorf("subject %q, want %q", got, tt.subject)
			}
		})
	}
}

func TestFindDecisiveRuntimeLines(t *testing.T) {
	tests := []struct {
		log     string
		class   Class
		subject string
	}{
		{"exec /app/server: no such file or directory\n", "CommandNotFound", "command /app/server"},
		{`exec: "node": executable file not found in $PATH` + "\n", "CommandNotFound", "command node"},
		{"sh: 1: migrate: not found\n", "CommandNotFound", "command migrate"},
		{"bash: line 1: gunicorn: command not found\n", "CommandNotFound", "command gunicorn"},
		{"exec /docker-entrypoint.sh: exec format error\n", "ExecFormat", "/docker-entrypoint.sh"},
		{"Segmentation fault (core dumped)\n", "Segfault", ""},
	}
	for _, tt := range tests {
		d := FindDecisive(tt.log)
		if d == nil || d.Pattern.Class != tt.class {
			t.Errorf("%q: got %+v, want %s", tt.log, d, tt.class)
			continue
		}
		if got := SubjectOf(d.Pattern.Class, d.Line); got != tt.subject {
			t.Errorf("%q: subject %q, want %q", tt.log, got, tt.subject)
		}
	}
	// A Go panic keeps its panic line, not the SIGSEGV line under it.
	d := FindDecisive("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a]\n\ngoroutine 1 [running]:\nmain.main()\n")
	if d == nil || d.Pattern.Class != "Panic" || !strings.HasPrefix(d.Line, "panic: ") {
		t.Errorf("go panic: got %+v", d)
	}
}

// TestDecisiveRepeatedDetail: a line that only repeats the detail of an
// earlier one (Envoy prints the bootstrap error, then its detail alone)
// yields to the earlier, which names the file.
// https://github.com/kubernetes-sigs/kubespray/pull/9613
func TestDecisiveRepeatedDetail(t *testing.T) {
	detail := "Protobuf message (type envoy.config.bootstrap.v3.Bootstrap reason INVALID_ARGUMENT:(static_resources.clusters[1]) hosts: Cannot find field.) has unknown fields"
	log := "[2023-03-06 08:16:26.648][1][critical][main] [source/server/server.cc:117] error initializing configuration '/etc/envoy.yaml': " + detail + "\n" +
		"[2023-03-06 08:16:26.648][1][info][main] [source/server/server.cc:939] exiting\n" + detail + "\n"
	d := FindDecisive(log)
	if d == nil || !strings.Contains(d.Line, "'/etc/envoy.yaml'") {
		t.Fatalf("decisive %+v, want the line naming /etc/envoy.yaml", d)
	}
}
