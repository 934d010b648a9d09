package applog

import "testing"

// Dependencies, start scripts and structured last words: the wordings the
// real-corpus misses turned up, each with its library's variants.
var depCases = []corpusCase{
	{
		name: "pgjdbc-connection-refused-host-port", eco: "java",
		source: "pgjdbc/pgjdbc ConnectionFactoryImpl (GT.tr(\"Connection to {0} refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\", hostSpec)) under HikariCP's pool initialisation",
		log: `
2024-06-10 12:00:04.512 ERROR 1 --- [           main] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Exception during pool initialization.

org.postgresql.util.PSQLException: Connection to billing-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.
\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:342)
Caused by: java.net.ConnectException: Connection refused
\tat java.base/sun.nio.ch.Net.connect0(Native Method)
`,
		want: "Connection refused", signal: SigRefused, trace: TraceJava, ent: ents{endpoint: "billing-db:5432", host: "billing-db"},
	},
	{
		name: "pgjdbc-connection-refused-old-wording", eco: "java",
		source: "pgjdbc/pgjdbc before 42.2 (\"Connection refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\", no host:port)",
		log: `
org.postgresql.util.PSQLException: Connection refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.
\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:207)
`,
		want: "Connection refused. Check that the hostname", signal: SigRefused, trace: TraceJava,
	},
	{
		name: "kafka-networkclient-node-address", eco: "kafka", running: true,
		source: "apache/kafka clients NetworkClient (\"Connection to node {} ({}) could not be established. Broker may not be available.\"); https://github.com/wurstmeister/kafka-docker/issues/294",
		log: `
2024-05-02 08:14:00.702  WARN 1 --- [ad | producer-1] org.apache.kafka.clients.NetworkClient   : [Producer clientId=producer-1] Connection to node -1 (kafka.messaging.svc.cluster.local/10.96.18.40:9092) could not be established. Broker may not be available.
2024-05-02 08:14:01.702  WARN 1 --- [ad | producer-1] org.apache.kafka.clients.NetworkClient   : [Producer clientId=producer-1] Connection to node -1 (kafka.messaging.svc.cluster.local/10.96.18.40:9092) could not be established. Broker may not be available.
2024-05-02 08:14:02.702  WARN 1 --- [ad | producer-1] org.apache.kafka.clients.NetworkClient   : [Producer clientId=producer-1] Connection to node -1 (kafka.messaging.svc.cluster.local/10.96.18.40:9092) could not be established. Broker may not be available.
`,
		want: "could not be established", signal: SigRefused, ent: ents{endpoint: "10.96.18.40:9092", host: "kafka.messaging.svc.cluster.local"},
	},
	{
		name: "kafka-adminclient-node-no-address", eco: "kafka", running: true,
		source: "https://github.com/rmoff/rmoff-blog content/post/kafka-adminclient-connection-to-node-1-could-not-be-established-broker-may-not-be-available.md (Kafka before 2.0 names no address)",
		log: `
[2018-01-03 11:26:00,101] WARN [AdminClient clientId=adminclient-3] Connection to node -1 could not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient)
[2018-01-03 11:26:01,101] WARN [AdminClient clientId=adminclient-3] Connection to node -1 could not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient)
[2018-01-03 11:26:02,101] WARN [AdminClient clientId=adminclient-3] Connection to node -1 could not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient)
`,
		want: "Connection to node -1 could not be established", signal: SigRefused,
	},
	{
		name: "kafka-python-no-brokers", eco: "python",
		source: "dpkp/kafka-python kafka/client_async.py (raise Errors.NoBrokersAvailable())",
		log: `
Traceback (most recent call last):
  File "/app/consumer.py", line 12, in <module>
    consumer = KafkaConsumer("events", bootstrap_servers=os.environ["KAFKA_BOOTSTRAP"])
  File "/usr/local/lib/python3.11/site-packages/kafka/client_async.py", line 900, in check_version
    raise Errors.NoBrokersAvailable()
kafka.errors.NoBrokersAvailable: NoBrokersAvailable
`,
		want: "NoBrokersAvailable", signal: SigRefused, trace: TracePython,
	},
	{
		name: "quickwit-env-backticks", eco: "rust",
		source: "https://github.com/quickwit-oss/helm-charts/pull/72 (quickwit-config's template rendering: \"environment variable `{}` is not set and no default value is provided\")",
		log: `
failed to render config file template: environment variable ` + "`AWS_ACCESS_KEY_ID`" + ` is not set and no default value is provided
`,
		want: "AWS_ACCESS_KEY_ID", signal: SigMissingEnv, ent: ents{env: "AWS_ACCESS_KEY_ID"},
	},
	{
		name: "env-single-quoted", eco: "node",
		source: "envalid/dotenv-style wording with the name in single quotes (\"Environment variable 'DATABASE_URL' is not set\"), as printed by many Node and Python services",
		log: `
Error: Environment variable 'DATABASE_URL' is not set
`,
		want: "DATABASE_URL", signal: SigMissingEnv, ent: ents{env: "DATABASE_URL"},
	},
	{
		name: "logrus-json-fatal-no-error-word", eco: "go",
		source: "https://github.com/cruise-automation/k-rail/issues/31 (logrus JSONFormatter, fatal level)",
		log: `
{"level":"fatal","msg":"invalid log level set: \u003cnil\u003e","time":"2019-11-13T03:45:45Z"}
`,
		format: FormatJSON, want: "invalid log level set",
	},
	{
		name: "zap-fatal-dial-timeout-after-warn", eco: "go",
		source: "go.uber.org/zap NewProductionEncoderConfig keys (level, ts, caller, msg, error, stacktrace); Go net OpError \"dial tcp 10.96.112.4:6379: i/o timeout\"",
		log: `
{"level":"info","ts":1714637640.101,"caller":"cmd/main.go:38","msg":"starting sessions service","version":"1.12.0"}
{"level":"warn","ts":1714637640.102,"caller":"config/config.go:77","msg":"SESSION_TTL not set, using default","default":"24h"}
{"level":"fatal","ts":1714637670.104,"caller":"cmd/main.go:51","msg":"failed to connect to redis","error":"dial tcp 10.96.112.4:6379: i/o timeout","stacktrace":"main.main\n\t/src/cmd/main.go:51\nruntime.main\n\t/usr/local/go/src/runtime/proc.go:271"}
`,
		format: FormatJSON, want: "dial tcp 10.96.112.4:6379: i/o timeout", ent: ents{endpoint: "10.96.112.4:6379"},
		// zap's caller field ("cmd/main.go:51") is no endpoint: only the
		// first is checked here, by TestStructuredEntities.
	},
	{
		name: "bunyan-listen-eacces-high-port", eco: "node",
		source: "https://github.com/thenets/docker-parsoid/issues/15 (service-runner bunyan JSON, level 60)",
		log: `
{"name":"parsoid","hostname":"parsoid-547874b8cf-97t54","pid":1,"level":30,"msg":"master(1) initializing 1 workers","time":"2020-07-18T04:50:02.610Z","v":0}
{"name":"parsoid","hostname":"parsoid-547874b8cf-97t54","pid":9,"level":60,"code":"EACCES","errno":"EACCES","syscall":"listen","address":"tcp://172.20.11.4:8000","port":-1,"levelPath":"fatal/service-runner/unhandled","msg":"listen EACCES: permission denied tcp://172.20.11.4:8000","time":"2020-07-18T04:50:02.710Z","v":0}
`,
		format: FormatJSON, want: "listen EACCES", ent: ents{listen: "8000"},
	},
	{
		name: "dash-script-command-not-found", eco: "shell",
		source: "dash (src/error.c and exec.c): inside a script the error is prefixed with the script name and line number, \"%s: %d: %s: not found\", as docker-entrypoint.sh scripts print it",
		log: `
/docker-entrypoint.sh: 5: exec: gunicorn: not found
`,
		want: "gunicorn: not found", signal: SigCommandNotFound, ent: ents{command: "gunicorn"},
	},
	{
		name: "bash-script-command-not-found", eco: "shell",
		source: "bash's execute_cmd.c wording inside a script (\"%s: line %d: %s: command not found\")",
		log: `
/myapp/start: line 10: rails: command not found
`,
		want: "rails: command not found", signal: SigCommandNotFound, ent: ents{command: "rails"},
	},
	{
		name: "traceback-after-gunicorn-info", eco: "python",
		source: "gunicorn's glogging startup record (\"[%(asctime)s] [%(process)d] [%(levelname)s] Starting gunicorn %s\") followed by Django's uncaught psycopg2 error in libpq's pre-14 wording (fe-connect.c \"Is the server running on host \\\"%s\\\" (%s) and accepting TCP/IP connections on port %s?\")",
		log: `
[2024-03-02 10:11:12 +0000] [1] [INFO] Starting gunicorn 21.2.0
Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/django/db/backends/base/base.py", line 289, in ensure_connection
    self.connect()
psycopg2.OperationalError: could not connect to server: Connection refused
\tIs the server running on host "postgres" (10.96.40.12) and accepting
\tTCP/IP connections on port 5432?
`,
		want: "could not connect to server: Connection refused", signal: SigRefused, trace: TracePython, ent: ents{endpoint: "postgres:5432"},
	},
}

// Resolver failures that name the host, in the wording of the clients that
// print them.
var resolveCases = []corpusCase{
	{
		name: "php-getaddrinfo-for-host-failed", eco: "php",
		source: "php-src main/network.c php_network_getaddresses (\"php_network_getaddresses: getaddrinfo for %s failed: %s\") as Laravel's PDO prints it",
		log: `
SQLSTATE[HY000] [2002] php_network_getaddresses: getaddrinfo for mysql failed: Name or service not known (SQL: select * from information_schema.tables where table_schema = app and table_name = migrations and table_type = 'BASE TABLE')
`,
		want: "getaddrinfo for mysql failed", signal: SigDNS, ent: ents{unresolved: "mysql"},
	},
	{
		name: "mysql-unknown-server-host", eco: "mysql",
		source: "MySQL client error CR_UNKNOWN_HOST 2005 (libmysql/errmsg.cc \"Unknown MySQL server host '%-.100s' (%d)\")",
		log: `
ERROR 2005 (HY000): Unknown MySQL server host 'mysql-primary' (-2)
`,
		want: "Unknown MySQL server host", signal: SigDNS, ent: ents{unresolved: "mysql-primary"},
	},
	{
		name: "haproxy-could-not-resolve-address", eco: "haproxy",
		source: "HAProxy's configuration check (src/cfgparse.c and tools.c: \"could not resolve address '%s'\")",
		log: `
[ALERT]    (1) : config : parsing [/usr/local/etc/haproxy/haproxy.cfg:31] : 'server web1' : could not resolve address 'web-backend'.
[ALERT]    (1) : config : Failed to initialize server(s) addr.
`,
		want: "could not resolve address 'web-backend'", signal: SigDNS, ent: ents{unresolved: "web-backend"},
	},
}

// TestStructuredEntities: a structured record's entities come from its
// message and error, not from its other fields (zap's caller "cmd/main.go:51"
// would read as host main.go, port 51).
func TestStructuredEntities(t *testing.T) {
	ds := Decide(`{"level":"fatal","ts":1714637670.104,"caller":"cmd/main.go:51","msg":"failed to connect to redis","error":"dial tcp 10.96.112.4:6379: i/o timeout"}`, Options{})
	if len(ds) == 0 {
		t.Fatal("no decisive line")
	}
	if got := ds[0].Endpoints; len(got) != 1 || got[0] != "10.96.112.4:6379" {
		t.Errorf("endpoints = %q, want only 10.96.112.4:6379", got)
	}
}
