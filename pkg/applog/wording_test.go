package applog

import (
	"slices"
	"strings"
	"testing"
)

// Lines as the programs print them (source), and the signal each states.
func TestSignalsOfRealWording(t *testing.T) {
	tests := []struct {
		source, line string
		want         Signal
	}{
		{"docker-library/postgres docker-entrypoint.sh docker_verify_minimum_env", "Error: Database is uninitialized and superuser password is not specified. You must specify POSTGRES_PASSWORD to a non-empty value for the superuser.", SigMissingEnv},
		{"docker-library/mysql 8 docker-entrypoint.sh", "[ERROR] [Entrypoint]: Database is uninitialized and password option is not specified You need to specify one of the following as an environment variable: - MYSQL_ROOT_PASSWORD - MYSQL_ALLOW_EMPTY_PASSWORD", SigMissingEnv},
		{"docker-library/mysql 5.7 docker-entrypoint.sh", "error: database is uninitialized and password option is not specified You need to specify one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD and MYSQL_RANDOM_ROOT_PASSWORD", SigMissingEnv},
		{"MariaDB/mariadb-docker docker-entrypoint.sh", "[ERROR] [Entrypoint]: Database is uninitialized and password option is not specified You need to specify one of MARIADB_ROOT_PASSWORD, MARIADB_ROOT_PASSWORD_HASH, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD and MARIADB_RANDOM_ROOT_PASSWORD", SigMissingEnv},
		{"langfuse/langfuse-k8s#243", "Error: Required database environment variables are not set. Provide a postgres url for DATABASE_URL.", SigMissingEnv},
		{"apache/kafka ClientUtils (2.x)", "WARN Removing server kafka-headless:29092 from bootstrap.servers as DNS resolution failed for kafka-headless (org.apache.kafka.clients.ClientUtils)", SigDNS},
		{"apache/kafka ClientUtils (3.x)", "WARN Couldn't resolve server kafka:9092 from bootstrap.servers as DNS resolution failed for kafka (org.apache.kafka.clients.ClientUtils)", SigDNS},
		{"rabbitmq-server epmd error; Erlang inet:format_error(nxdomain)", "ERROR: epmd error for host rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local: nxdomain (non-existing domain)", SigDNS},
		{"benoitc/gunicorn gunicorn/sock.py", "[2020-12-31 08:34:00 +0100] [132] [ERROR] Connection in use: ('0.0.0.0', 8000)", SigAddrInUse},
		{"tomkerkhove/promitor#1561 (.NET SocketError 13)", "System.Net.Sockets.SocketException (13): Permission denied", SigBindDenied},
		{"prisma/prisma-engines user-facing-errors P1001", "Error: P1001: Can't reach database server at `shop-postgres:5432`", SigRefused},
		{"redis/redis src/config.c (older)", "Bad directive or wrong number of arguments", SigConfig},
		{"spring-projects/spring-boot BindFailureAnalyzer", "Failed to bind properties under 'server.port' to java.lang.Integer:", SigConfig},
		// nginx's mkdir()/open() denials are file permissions, not a bind.
		{"nginx src/core/ngx_file.c via sclorg/nginx-container#208", `nginx: [emerg] mkdir() "/var/cache/nginx/client_temp" failed (13: Permission denied)`, SigPermission},
		{"nginx src/core/ngx_connection.c", "nginx: [emerg] bind() to 0.0.0.0:80 failed (13: Permission denied)", SigBindDenied},
		{"django/django conf/__init__.py (Settings.__init__)", "django.core.exceptions.ImproperlyConfigured: The SECRET_KEY setting must not be empty.", SigConfig},
		{"django/django db/backends/dummy/base.py", "django.core.exceptions.ImproperlyConfigured: settings.DATABASES is improperly configured. Please supply the ENGINE value.", SigConfig},
		{"apache/kafka ConfigDef (ConfigException)", "org.apache.kafka.common.config.ConfigException: Missing required configuration \"bootstrap.servers\" which has no default value.", SigConfig},
		{"apache/kafka KafkaRaftServer / meta.properties check", "java.lang.RuntimeException: Invalid cluster.id in: /bitnami/kafka/data/meta.properties. Expected 4L6g3nShT-eMCtK--X86sw, but read ZtZmkXu0SF2RnJtSnP6Gdg", SigConfig},
		{"dotnet/runtime ArgumentNullException via EF Core UseNpgsql", "System.ArgumentNullException: Value cannot be null. (Parameter 'connectionString')", SigConfig},
		{"redis/redis-py exceptions.AuthenticationError (Redis 6 ACL reply)", "redis.exceptions.AuthenticationError: invalid username-password pair or user is disabled.", SigUnauthorized},
		{"kobotoolbox/kobo-docker#31 (celery/py-amqp client)", "[2020-03-01 10:00:00,000: ERROR/MainProcess] consumer: Cannot connect to amqp://guest:**@rabbit:5672//: Couldn't log in: a socket error occurred.", SigUnauthorized},
		{"kobotoolbox/kobo-docker#31 (rabbitmq-server)", "PLAIN login refused: user 'guest' can only connect via localhost", SigUnauthorized},
		{"rabbitmq-server rabbit_reader (client's view via pika)", "pika.exceptions.ProbableAuthenticationError: ConnectionClosedByBroker: (403) 'ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN. For details see the broker logfile.'", SigUnauthorized},
		{"kubernetes/client-go rest 401", "error: You must be logged in to the server (the server has asked for the client to provide credentials)", SigUnauthorized},
		{"lib/pq conn.go ssl", `{"level":"error","msg":"unable to connect to database","error":"pq: SSL is not enabled on the server"}`, SigTLS},
		{"npm/cli run-script (npm 6)", "npm ERR! missing script: start", SigConfig},
		{"CPython int() on a Service link's REDIS_PORT", "ValueError: invalid literal for int() with base 10: 'tcp://10.96.0.12:6379'", SigConfig},
		{"OpenJDK launcher (java -jar)", "Unable to access jarfile /app/app.jar", SigMissingFile},
		{"axios createError", "Error: Request failed with status code 503", SigHTTPStatus},
		{"psf/requests Response.raise_for_status", "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.example.com/v1/token", SigHTTPStatus},
		{"knadh/koanf-style required-key validation", `config error: missing required field "database.host"`, SigConfig},
		{"grafana/grafana packaging/docker/run.sh", "GF_PATHS_DATA='/var/lib/grafana' is not writable.", SigPermission},
		{"apache/kafka ClientUtils.parseAndValidateAddresses", "Exception in thread \"main\" org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls given in bootstrap.servers", SigDNS},
	}
	for _, tt := range tests {
		got := Signals(tt.line)
		if len(got) == 0 || got[0] != tt.want {
			t.Errorf("%s: %q: signals %v, want %s first", tt.source, tt.line, got, tt.want)
		}
	}
}

func TestParseRealWording(t *testing.T) {
	// redis/redis src/config.c: the block names the directive and line.
	l := Parse("\n\n*** FATAL CONFIG FILE ERROR (Redis 7.2.4) ***\nReading the configuration file, at line 3\n>>> 'requirepass'\nwrong number of arguments\n")
	if len(l.Events) != 1 || l.Events[0].Text() != "wrong number of arguments (config directive 'requirepass' at line 3)" {
		t.Errorf("redis block: %s", dump(l))
	}
	// nginx's docker-entrypoint.d scripts: "<script>: info: …" is info.
	l = Parse("10-listen-on-ipv6-by-default.sh: info: /etc/nginx/conf.d/default.conf is not a file or does not exist\n")
	if l.Events[0].Level != LevelInfo {
		t.Errorf("entrypoint info line: level %s", l.Events[0].Level)
	}
	// The JVM's uncaught-exception report is a record of its own, not the
	// trace of the WARN line above it.
	l = Parse("[2019-05-30 10:12:01,178] WARN Removing server kafka-headless:29092 from bootstrap.servers as DNS resolution failed for kafka-headless (org.apache.kafka.clients.ClientUtils)\n" +
		"Exception in thread \"main\" org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls given in bootstrap.servers\n" +
		"\tat org.apache.kafka.clients.ClientUtils.parseAndValidateAddresses(ClientUtils.java:66)\n")
	if len(l.Events) != 2 || l.Events[0].Level != LevelWarn || l.Events[1].Trace != TraceJava {
		t.Errorf("kafka: %s", dump(l))
	}
	// tracing-subscriber's JSON nests message and fields; the address a
	// failed bind names joins the message.
	l = Parse(`{"timestamp":"2024-06-11T08:00:01.005877Z","level":"ERROR","fields":{"message":"failed to bind listener","addr":"0.0.0.0:8080","error":"Address already in use (os error 98)"},"target":"ingest::server"}` + "\n")
	if got := l.Events[0].Text(); l.Events[0].Level != LevelError || !strings.Contains(got, "addr=0.0.0.0:8080") || !strings.Contains(got, "Address already in use") {
		t.Errorf("tracing JSON: %s", dump(l))
	}
	if ds := l.Decisive(Options{}); len(ds) == 0 || !slices.Contains(ds[0].Listen, "8080") && !slices.Contains(ds[0].Endpoints, "0.0.0.0:8080") {
		t.Errorf("tracing JSON: decisive %+v", ds)
	}
}

// An ArgumentNullException about an ordinary parameter is a bug in the
// code, not a missing setting (System.Linq's "(Parameter 'source')").
func TestNullArgumentIsConfigOnlyForSettings(t *testing.T) {
	if got := Signals("System.ArgumentNullException: Value cannot be null. (Parameter 'source')"); slices.Contains(got, SigConfig) {
		t.Errorf("signals %v: a null 'source' argument is not a configuration error", got)
	}
}

// The user a refused login names, on the server's side and the client's.
func TestRefusedLoginUsers(t *testing.T) {
	tests := []struct{ source, text, want string }{
		{"kobotoolbox/kobo-docker#31 (rabbitmq-server)", "PLAIN login refused: user 'guest' can only connect via localhost", "guest"},
		{"deepset-ai/haystack#6649 (postgres)", `FATAL:  password authentication failed for user "somesafeuser"`, "somesafeuser"},
		{"mysql-server sql_authentication", "Access denied for user 'root'@'10.244.1.7' (using password: YES)", "root"},
		{"mongodb AuthenticationSession", `{"c":"ACCESS","msg":"Authentication failed","attr":{"mechanism":"SCRAM-SHA-256","principalName":"app","error":"UserNotFound: Could not find user \"app\" for db \"admin\""}}`, "app"},
	}
	for _, tt := range tests {
		if got := Extract(tt.text).Users; !slices.Contains(got, tt.want) {
			t.Errorf("%s: Users = %v, want %s", tt.source, got, tt.want)
		}
	}
	if got := Extract("user 'guest' logged in").Users; len(got) != 0 {
		t.Errorf("a line that refuses nothing names no user: %v", got)
	}
}
