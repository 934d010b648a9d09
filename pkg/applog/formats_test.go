package applog

import (
	"strings"
	"testing"
	"time"
)

// TestRecordFormats reads single records as the loggers' own documentation
// prints them.
func TestRecordFormats(t *testing.T) {
	for _, tc := range []struct {
		name, source, line string
		format             Format
		level              Level
		text               string // substring of Event.Text()
	}{
		{"slog-text", "https://pkg.go.dev/git.fractalqb.de/fractalqb/sloglm",
			`time=2023-05-06T13:24:00.476+02:00 level=INFO msg="added ` + "`count` x `item` to shopping cart by `user`" + `" count=7 item=Hat user="John Doe"`,
			FormatLogfmt, LevelInfo, "added `count` x `item`"},
		{"cdr-slog-json", "https://pkg.go.dev/cdr.dev/slog/sloggers/slogjson",
			`{ "ts": "2019-09-10T20:19:07.159852-05:00", "level": "INFO", "logger_names": ["comp", "subcomp"], "msg": "hi", "caller": "slog/examples_test.go:62", "func": "cdr.dev/slog/sloggers/slogtest_test.TestExampleTest", "trace": "<traceid>", "span": "<spanid>", "fields": { "my_field": "field value" } }`,
			FormatJSON, LevelInfo, "hi"},
		{"bunyan-numeric-info", "https://segmentfault.com/a/1190000002673512",
			`{"name":"myapp","hostname":"banana.local","pid":40161,"level":30,"msg":"hi","time":"2013-01-04T18:46:23.851Z","v":0}`,
			FormatJSON, LevelInfo, "hi"},
		{"pino-numeric-error", "https://github.com/pinojs/pino/issues/203",
			`{"pid":14846,"hostname":"MLL1P05607","level":50,"time":1489001780459,"msg":"500 - boom","type":"Error"}`,
			FormatJSON, LevelError, "500 - boom"},
		{"ecs-dotted-level", "https://elastic.co/docs/reference/ecs/logging/intro",
			`{"@timestamp":"2019-08-06T12:09:12.375Z", "log.level": "INFO", "message":"Tomcat started on port(s): 8080 (http) with context path ''", "service.name":"spring-petclinic","process.thread.name":"restartedMain","log.logger":"org.springframework.boot.web.embedded.tomcat.TomcatWebServer"}`,
			FormatJSON, LevelInfo, "Tomcat started on port(s): 8080"},
		{"ecs-ruby-status-200", "https://elastic.co/docs/reference/elasticsearch/clients/ruby/ecs",
			`{"@timestamp":"2022-07-12T05:31:18.590Z","log.level":"INFO","message":"GET http://localhost:9200/ [status:200, request:0.009s, query:n/a]","ecs.version":"1.4.0"}`,
			FormatJSON, LevelInfo, "GET http://localhost:9200/"},
		{"severity-field-info", "https://github.com/lukasniemeier-zalando/log4j2-json-layout",
			`{"time":"2018-03-21T17:50:20.868Z","severity":"INFO","logger":"MyLogger","message":"Hello World","thread":"main"}`,
			FormatJSON, LevelInfo, "Hello World"},
		{"severity-field-warn-with-thrown-class", "https://github.com/lukasniemeier-zalando/log4j2-json-layout",
			`{"time":"2018-03-21T18:00:46.175Z","severity":"WARN","logger":"MyLogger","message":"Huch","thrown":{"class":"java.lang.IllegalStateException","stack":"..."},"thread":"main"}`,
			FormatJSON, LevelWarn, "Huch: java.lang.IllegalStateException"},
		{"log4j2-jsonlayout-thrown-cause", "https://mail-archive.com/log4j-dev@logging.apache.org/msg21921.html (compact form of the JsonLayout example)",
			`{"timeMillis":1,"thread":"MyThreadName","level":"DEBUG","loggerName":"a.B","message":"Msg","thrown":{"cause":{"name":"java.lang.NullPointerException","message":"testNPEx","localizedMessage":"testNPEx"}}}`,
			FormatJSON, LevelDebug, "java.lang.NullPointerException: testNPEx"},
		{"serilog-compact-warning", "https://github.com/serilog/serilog-sinks-file/issues/99",
			`{"@t":"2019-03-28T15:17:14.5836847Z","@mt":"Checks for '{HealthCheckName}' completed with errors.","@l":"Warning","HealthCheckName":"Notification Email Settings"}`,
			FormatJSON, LevelWarn, "completed with errors"},
		{"serilog-compact-information-has-no-level", "https://github.com/serilog/serilog-sinks-file/issues/99",
			`{"@t":"2019-03-28T15:17:14.5836847Z","@mt":"Checks for '{HealthCheckName}' all completed successfully.","HealthCheckName":"Try Skip IIS Custom Errors"}`,
			FormatJSON, LevelInfo, "all completed successfully"},
		{"klog-info", "https://github.com/libopenstorage/stork/issues/45",
			`I0317 22:00:39.137524       1 snapshot-controller.go:169] Starting snapshot controller`,
			FormatKlog, LevelInfo, "Starting snapshot controller"},
		{"klog-error-structured", "https://github.com/kubernetes-sigs/cluster-api/issues/3821",
			`I1019 16:44:41.357752    3468 generic_predicates.go:167]  "msg"="Resource is not paused, will attempt to map resource" ""="bmo" "namespace"="default" "predicate"="updateEvent"`,
			FormatKlog, LevelInfo, "Resource is not paused"},
		{"gunicorn-bracket-level", "https://github.com/benoitc/gunicorn/issues/2103",
			`[2019-12-29 02:17:45 +0000] [12933] [ERROR] Exception in worker process`,
			FormatPlain, LevelError, "Exception in worker process"},
		{"spring-boot-console", "https://github.com/kubernetes/kubernetes/issues/63396",
			`2018-05-03 10:24:03.545  INFO 1 --- [           main] com.youben.Application                   : Starting Application on data-transfer-web-8596955dc9-mdcdw with PID 1 (/app.war started by root in /)`,
			FormatPlain, LevelInfo, "Starting Application"},
		{"postgres-log-is-info", "https://github.com/kubernetes/kubernetes/issues/104291",
			`2021-08-11 06:06:15.749 GMT [8] LOG:  skipping missing configuration file "/var/lib/postgresql/data/postgresql.auto.conf"`,
			FormatPlain, LevelInfo, "skipping missing configuration file"},
		{"redis-warning-marker", "https://github.com/sameersbn/docker-gitlab/issues/320",
			`[9] 14 May 13:19:52.866 # Server started, Redis version 2.8.4`,
			FormatPlain, LevelWarn, "Server started"},
		{"fluent-bit-spaced-bracket", "https://github.com/fluent/fluent-bit-docker-image/issues/30",
			`[2020/02/25 10:24:36] [ info] [storage] initializing...`,
			FormatPlain, LevelInfo, "initializing"},
		{"rust-env-logger", "https://github.com/logdna/logdna-agent-v2/issues/75",
			`[2021-01-20T06:45:25Z WARN  k8s::middleware::metadata] Watch Stream Error: error returned by apiserver during watch: too old resource version: 226233010 (226248908): Expired`,
			FormatPlain, LevelWarn, "Watch Stream Error"},
		{"librdkafka-syslog-level", "https://github.com/viabtc/viabtc_exchange_server/issues/51",
			`%3|1515056843.985|FAIL|rdkafka#consumer-0| mybroker:9092/bootstrap: Failed to resolve 'mybroker:9092': Name or service not known`,
			FormatPlain, LevelError, "Failed to resolve"},
		{"zap-console-json-tail", "https://github.com/elastic/cloud-on-k8s/issues/3289",
			`2020-06-18T10:04:48.756+0200    ERROR   controller-runtime.controller   Reconciler error        {"service.version": "1.2.0-be401266", "controller": "enterprisesearch-controller", "request": "e2e-mercury/test-ent-config-ref-jbgc", "error": "Operation cannot be fulfilled on enterprisesearches.enterprisesearch.k8s.elastic.co \"test-ent-config-ref-jbgc\": the object has been modified; please apply your changes to the latest version and try again"}`,
			FormatPlain, LevelError, "Reconciler error: Operation cannot be fulfilled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Parse(tc.line)
			if len(l.Events) != 1 {
				t.Fatalf("got %d events, want 1:\n%s", len(l.Events), dump(l))
			}
			e := l.Events[0]
			if e.Format != tc.format || e.Level != tc.level {
				t.Errorf("format/level = %s/%s, want %s/%s", e.Format, e.Level, tc.format, tc.level)
			}
			if !strings.Contains(e.Text(), tc.text) {
				t.Errorf("text = %q, want it to contain %q", e.Text(), tc.text)
			}
		})
	}
}

func TestSplitTimestamp(t *testing.T) {
	at, rest := SplitTimestamp("2026-11-26T09:34:01.123456789Z E1126 09:34:01.123456   12 file.go:42] msg")
	if want := time.Date(2026, 11, 26, 9, 34, 1, 123456789, time.UTC); !at.Equal(want) || rest != "E1126 09:34:01.123456   12 file.go:42] msg" {
		t.Errorf("got %v %q", at, rest)
	}
	// A line that starts with a date but no kubelet prefix is left alone.
	if at, rest := SplitTimestamp("2018-05-03 10:24:03.545  INFO 1 --- [main]"); !at.IsZero() || !strings.HasPrefix(rest, "2018-05-03") {
		t.Errorf("got %v %q", at, rest)
	}
}

// TestTimestampedPerContainerFormat checks that the kubelet's prefix does not
// hide the format, and that the dominant format is reported when lines mix
// (a JSON logger and a Go panic in plain text).
func TestTimestampedPerContainerFormat(t *testing.T) {
	log := stamp(strings.Join([]string{
		`{"level":"info","ts":1637060223.3517358,"logger":"controller-runtime.metrics","msg":"metrics server is starting to listen","addr":":8080"}`,
		`{"level":"info","ts":1637060223.3517358,"logger":"setup","msg":"starting manager"}`,
		`panic: runtime error: invalid memory address or nil pointer dereference`,
		`[signal SIGSEGV: segmentation violation code=0x1 addr=0x28 pc=0x1625411]`,
	}, "\n"))
	l := Parse(log)
	if l.Format != FormatJSON {
		t.Errorf("format = %s, want json", l.Format)
	}
	if len(l.Events) != 3 || l.Events[2].Trace != TraceGoPanic || l.Events[0].Time.IsZero() {
		t.Fatalf("events:\n%s", dump(l))
	}
}

// TestExtract checks entity extraction on wordings the corpus does not
// reach through a decisive line.
func TestExtract(t *testing.T) {
	e := Extract(`{"@timestamp":"2019-08-06T12:09:12.375Z", "log.level": "INFO", "message":"Tomcat started on port(s): 8080 (http) with context path ''"}`)
	if !has(e.Listen, "8080") {
		t.Errorf("listen = %v", e.Listen)
	}
	// A pod whose args hold "$(HOSTNAME)" while HOSTNAME is not in its env
	// prints the literal (https://github.com/kubernetes/kubernetes/issues/57726).
	e = Extract(`$(HOSTNAME)`)
	if !has(e.EnvVars, "HOSTNAME") {
		t.Errorf("env = %v", e.EnvVars)
	}
	// Go's x509 wording for a name mismatch
	// (https://github.com/kubeedge/kubeedge/issues/5899).
	e = Extract(`Error from server: Get "https://jenkins-slave-44:10351/containerLogs/test/nginx-7cc4557998-kpbtx/container-bbmd5s": x509: certificate is not valid for any names, but wanted to match jenkins-slave-44`)
	if len(e.Certs) != 1 || e.Certs[0].Wanted != "jenkins-slave-44" {
		t.Errorf("certs = %+v", e.Certs)
	}
	// https://github.com/kubernetes/kubernetes/issues/23618
	e = Extract(`Error from server: Get https://juliette:10250/containerLogs/default/chatroom/chatroom: dial tcp: lookup juliette on 10.255.255.1:53: no such host`)
	if !has(e.Unresolved, "juliette") || !has(e.URLs, "https://juliette:10250/containerLogs/default/chatroom/chatroom") {
		t.Errorf("got %+v", e)
	}
}
