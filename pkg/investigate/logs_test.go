package investigate

import (
	"strings"
	"testing"

	logrules "github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// TestFindDecisiveThroughLogComponent: the decisive line is read by
// pkg/applog (formats, crash reports, levels), then classified here. The
// lines are excerpts of real logs; pkg/applog's corpus records them all.
func TestFindDecisiveThroughLogComponent(t *testing.T) {
	tests := []struct {
		name, log, class, line, subject string
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
			d := logrules.FindDecisive(tt.log)
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
			if got := logrules.SubjectOf(d.Pattern.Class, d.Line); tt.subject != "" && got != tt.subject {
				t.Errorf("subject %q, want %q", got, tt.subject)
			}
		})
	}
}

// TestShellExecNotFound: dash's wording for a missing exec target, which
// the pattern's own expression does not know (issue 16 quotes it; a public
// troubleshooting page records this line with systemd's status=127 —
// search index id 61630350006 of the project's code corpus).
func TestShellExecNotFound(t *testing.T) {
	d := logrules.FindDecisive("/bin/sh: 1: exec: java: not found\n")
	if d == nil || d.Pattern.Class != "CommandNotFound" {
		t.Fatalf("got %+v", d)
	}
	if got := logrules.SubjectOf(d.Pattern.Class, d.Line); got != "command java" {
		t.Errorf("subject %q", got)
	}
}

// TestInvalidArgsAndUnexpandedVariables: Go's flag package's wording
// (github.com/openshift/machine-api-operator/issues/107), and the literal
// a pod prints when its args reference a variable its env lacks
// (github.com/kubernetes/kubernetes/issues/57726).
func TestInvalidArgsAndUnexpandedVariables(t *testing.T) {
	d := logrules.FindDecisive("flag provided but not defined: -log-level\nUsage of /machine-controller-manager:\n  -alsologtostderr\n    \tlog to standard error as well as files\n")
	if d == nil || d.Pattern.Class != "InvalidConfig" || d.Line != "flag provided but not defined: -log-level" {
		t.Errorf("flag: got %+v", d)
	}
	d = logrules.FindDecisive("$(HOSTNAME)\n")
	if d == nil || d.Pattern.Class != "MissingEnv" {
		t.Fatalf("literal: got %+v", d)
	}
	if got := logrules.SubjectOf(d.Pattern.Class, d.Line); got != "environment variable HOSTNAME" {
		t.Errorf("literal: subject %q", got)
	}
}

// TestStructuredLogDrivesRootCause: a crash whose reason is only in a
// logrus-text record's msg field (github.com/knative/infra/issues/222)
// is reported with that reason, not as a generic exit code 1.
func TestStructuredLogDrivesRootCause(t *testing.T) {
	log := `2026-11-26T09:34:01.1Z time="2023-09-24T09:41:34Z" level=error msg="client list: listing pods in : pods is forbidden: User \"system:serviceaccount:test-pods:nightly\" cannot list resource \"pods\" in API group \"\" at the cluster scope" cmp=lister` + "\n" +
		`2026-11-26T09:34:01.2Z kail: error: Unable to initialize data source` + "\n"
	r := Investigate(podBundle(pod("api", crashing(1, "Error")), withLogs(true, log)), Options{Now: now})
	if r.RootCause.Category != "CrashLoop/Exit1/Forbidden" {
		t.Fatalf("category %q (%s)", r.RootCause.Category, r.RootCause.Statement)
	}
	if !strings.Contains(r.RootCause.Statement, "serviceaccount test-pods/nightly cannot list pods") {
		t.Errorf("statement %q", r.RootCause.Statement)
	}
}

// TestExitZeroReadsLastWords: a container that exits 0 and is restarted
// is reported with what it printed last; here the literal a pod prints
// when its args reference an undefined variable
// (github.com/kubernetes/kubernetes/issues/57726).
func TestExitZeroReadsLastWords(t *testing.T) {
	r := Investigate(podBundle(pod("api", crashing(0, "Completed")), withLogs(true, "2026-11-26T09:34:01.1Z $(HOSTNAME)\n")), Options{Now: now})
	if r.RootCause.Category != "CrashLoop/Exit0" {
		t.Fatalf("category %q (%s)", r.RootCause.Category, r.RootCause.Statement)
	}
	found := false
	for _, e := range r.Evidence {
		found = found || strings.Contains(e.Fact, `"$(HOSTNAME)"`)
	}
	if !found {
		t.Errorf("no evidence of the last words: %+v", r.Evidence)
	}
}

// TestGenericExitReadsLastWords: an exit 1 whose log holds no error-like
// line still reports what the application said last
// (github.com/jhipster/generator-jhipster/issues/7334).
func TestGenericExitReadsLastWords(t *testing.T) {
	log := "waiting for kafka to be ready\nwaiting for kafka to be ready\nwaiting for kafka to be ready\n"
	r := Investigate(podBundle(pod("api", crashing(1, "Error")), withLogs(true, log)), Options{Now: now})
	if !strings.Contains(r.RootCause.Statement+r.Summary, `"waiting for kafka to be ready"`) {
		t.Errorf("statement %q, summary %q", r.RootCause.Statement, r.Summary)
	}
}

// TestPrivilegedPortNamesThePort: nginx as a non-root user on port 80
// (github.com/hjacobs/kube-resource-report/issues/146).
func TestPrivilegedPortNamesThePort(t *testing.T) {
	d := logrules.FindDecisive("2020/04/15 02:38:08 [emerg] 1#1: bind() to 0.0.0.0:80 failed (13: Permission denied)\nnginx: [emerg] bind() to 0.0.0.0:80 failed (13: Permission denied)\n")
	if d == nil || d.Pattern.Class != "PrivilegedPort" {
		t.Fatalf("got %+v", d)
	}
	if got := logrules.SubjectOf(d.Pattern.Class, d.Line); got != "port 80" {
		t.Errorf("subject %q", got)
	}
}
