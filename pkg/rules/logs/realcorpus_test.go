package logs

import (
	"strings"
	"testing"
)

// TestFindDecisiveRealCorpus reads logs real programs printed (source) and
// checks the class and what the decisive line names: the subject the
// crash-loop finding prints, or a substring of the line itself.
func TestFindDecisiveRealCorpus(t *testing.T) {
	tests := []struct {
		name, source, log string
		class             Class
		names             string // the decisive line or its subject must name it
	}{
		{"postgres-password-unset", "docker-library/postgres docker-entrypoint.sh docker_verify_minimum_env",
			"Error: Database is uninitialized and superuser password is not specified.\n" +
				"       You must specify POSTGRES_PASSWORD to a non-empty value for the\n" +
				"       superuser. For example, \"-e POSTGRES_PASSWORD=password\" on \"docker run\".\n\n" +
				"       You may also use \"POSTGRES_HOST_AUTH_METHOD=trust\" to allow all\n" +
				"       connections without a password. This is *not* recommended.\n\n" +
				"       See PostgreSQL documentation about \"trust\":\n" +
				"       https://www.postgresql.org/docs/current/auth-trust.html\n",
			"MissingEnv", "POSTGRES_PASSWORD"},
		{"mysql-root-password-unset", "docker-library/mysql docker-entrypoint.sh docker_verify_minimum_env",
			"2023-05-24 06:33:28+00:00 [Note] [Entrypoint]: Entrypoint script for MySQL Server 8.0.33-1.el8 started.\n" +
				"2023-05-24 06:33:30+00:00 [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified\n" +
				"    You need to specify one of the following as an environment variable:\n" +
				"    - MYSQL_ROOT_PASSWORD\n    - MYSQL_ALLOW_EMPTY_PASSWORD\n    - MYSQL_RANDOM_ROOT_PASSWORD\n",
			"MissingEnv", "MYSQL_ROOT_PASSWORD"},
		{"redis-fatal-config-directive", "redis/redis src/config.c loadServerConfigFromString",
			"\n\n*** FATAL CONFIG FILE ERROR (Redis 7.2.4) ***\nReading the configuration file, at line 3\n>>> 'requirepass'\nwrong number of arguments\n",
			"InvalidConfig", "requirepass"},
		{"nginx-emerg-after-entrypoint-info", "nginx src/core/ngx_cycle.c mkdir() failed; nginx docker-entrypoint.d 10-listen-on-ipv6-by-default.sh 'info:'",
			"/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh\n" +
				"10-listen-on-ipv6-by-default.sh: info: /etc/nginx/conf.d/default.conf is not a file or does not exist\n" +
				"/docker-entrypoint.sh: Configuration complete; ready for start up\n" +
				"2023/06/12 10:16:53 [warn] 1#1: the \"user\" directive makes sense only if the master process runs with super-user privileges, ignored in /etc/nginx/nginx.conf:3\n" +
				"nginx: [warn] the \"user\" directive makes sense only if the master process runs with super-user privileges, ignored in /etc/nginx/nginx.conf:3\n" +
				"2023/06/12 10:16:53 [emerg] 1#1: mkdir() \"/var/cache/nginx/client_temp\" failed (13: Permission denied)\n" +
				"nginx: [emerg] mkdir() \"/var/cache/nginx/client_temp\" failed (13: Permission denied)\n",
			"PermissionDenied", "/var/cache/nginx/client_temp"},
		{"kafka-dns-then-config-exception", "apache/kafka clients ClientUtils.parseAndValidateAddresses",
			"[2019-05-30 10:12:01,178] WARN Removing server kafka-headless:29092 from bootstrap.servers as DNS resolution failed for kafka-headless (org.apache.kafka.clients.ClientUtils)\n" +
				"Exception in thread \"main\" org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls given in bootstrap.servers\n" +
				"\tat org.apache.kafka.clients.ClientUtils.parseAndValidateAddresses(ClientUtils.java:66)\n" +
				"\tat com.linkedin.kafka.cruisecontrol.KafkaCruiseControlMain.main(KafkaCruiseControlMain.java:71)\n",
			"DNS", "kafka-headless"},
		{"flyway-pgjdbc-refused", "flyway DriverDataSource; pgjdbc ConnectionFactoryImpl 'Connection to {0} refused'",
			"Flyway Community Edition 10.10.0 by Redgate\n\n" +
				"ERROR: Unable to obtain connection from database (jdbc:postgresql://orders-db:5432/orders) for user 'orders': Connection to orders-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n" +
				"-------------------------------------------------------------------------------------------------------------------------------------------------------------------------------\n" +
				"SQL State  : 08001\nError Code : 0\n" +
				"Message    : Connection to orders-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n\n" +
				"Caused by: org.postgresql.util.PSQLException: Connection to orders-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n" +
				"Caused by: java.net.ConnectException: Connection refused\n",
			"ConnectionRefused", "orders-db:5432"},
		{"node-database-url-after-deprecation", "langfuse packages/shared env check; Node lib/buffer.js DEP0005",
			"(node:1) [DEP0005] DeprecationWarning: Buffer() is deprecated due to security and usability issues. Please use the Buffer.alloc(), Buffer.allocUnsafe(), or Buffer.from() methods instead.\n" +
				"(Use `node --trace-deprecation ...` to show where the warning was created)\n" +
				"Error: Required database environment variables are not set. Provide a postgres url for DATABASE_URL.\n",
			"MissingEnv", "DATABASE_URL"},
		{"structlog-json-sqlalchemy-db-missing", "structlog JSONRenderer; PostgreSQL postinit.c 'database \"%s\" does not exist'",
			`{"event": "starting catalog-api", "level": "info", "timestamp": "2024-05-14T08:02:11.102Z", "version": "2.7.1"}` + "\n" +
				`{"event": "database connection failed", "level": "critical", "timestamp": "2024-05-14T08:02:11.488Z", "exception": "Traceback (most recent call last):\n  File \"/app/catalog/db.py\", line 31, in connect\n    engine.connect()\nsqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at \"catalog-db\" (10.96.33.8), port 5432 failed: FATAL:  database \"catalog\" does not exist\n"}` + "\n",
			"SQL", `database "catalog" does not exist`},
		{"serilog-clef-npgsql-refused", "Serilog.Formatting.Compact @x; Npgsql 'Failed to connect to {0}'",
			`{"@t":"2024-02-20T14:03:11.0412950Z","@mt":"Starting web host","Application":"Basket.API"}` + "\n" +
				`{"@t":"2024-02-20T14:03:13.5530127Z","@mt":"Host terminated unexpectedly","@l":"Fatal","@x":"Npgsql.NpgsqlException (0x80004005): Failed to connect to 10.96.0.55:5432\n ---> System.Net.Sockets.SocketException (111): Connection refused\n   at Npgsql.Internal.NpgsqlConnector.Connect(NpgsqlTimeout timeout)\n   --- End of inner exception stack trace ---\n   at Npgsql.Internal.NpgsqlConnector.Open(NpgsqlTimeout timeout, Boolean async, CancellationToken cancellationToken)","Application":"Basket.API"}` + "\n",
			"ConnectionRefused", "10.96.0.55:5432"},
		{"prisma-p1001", "prisma/prisma-engines user-facing-errors P1001",
			"Prisma schema loaded from prisma/schema.prisma\n" +
				"Datasource \"db\": PostgreSQL database \"shop\", schema \"public\" at \"shop-postgres:5432\"\n\n" +
				"Error: P1001: Can't reach database server at `shop-postgres:5432`\n\n" +
				"Please make sure your database server is running at `shop-postgres:5432`.\n",
			"ConnectionRefused", "shop-postgres:5432"},
		{"prisma-p1001-quoted-apart", "prisma/prisma-engines P1001 as Prisma 2/3 printed it (host and port quoted apart)",
			"Error: P1001: Can't reach database server at `shop-postgres`:`5432`\n\nPlease make sure your database server is running at `shop-postgres`:`5432`.\n",
			"ConnectionRefused", "shop-postgres"},
		{"bitnami-env-empty", "bitnami/containers mariadb libmariadb.sh mysql_validate ('The %s environment variable is empty or not set.')",
			"mariadb 10:12:00.00 INFO  ==> Validating settings in MYSQL_*/MARIADB_* env vars\n" +
				"mariadb 10:12:00.01 ERROR ==> The MARIADB_ROOT_PASSWORD environment variable is empty or not set. Set the environment variable ALLOW_EMPTY_PASSWORD=yes to allow the container to be started with blank passwords. This is recommended only for development.\n",
			"MissingEnv", "MARIADB_ROOT_PASSWORD"},
		{"kestrel-loopback-address-in-use", "dotnet/aspnetcore Kestrel AddressBinder, a loopback URL",
			"Unhandled exception. System.IO.IOException: Failed to bind to address http://127.0.0.1:5000: address already in use.\n" +
				" ---> Microsoft.AspNetCore.Connections.AddressInUseException: Address already in use\n" +
				" ---> System.Net.Sockets.SocketException (98): Address already in use\n" +
				"   at System.Net.Sockets.Socket.DoBind(EndPoint endPointSnapshot, SocketAddress socketAddress)\n",
			"AddressInUse", "5000"},
		{"uvicorn-bind-80-denied", "encode/uvicorn server.py startup ('[Errno 13] error while attempting to bind on address %r: %s')",
			"INFO:     Started server process [1]\nINFO:     Waiting for application startup.\nINFO:     Application startup complete.\n" +
				"ERROR:    [Errno 13] error while attempting to bind on address ('0.0.0.0', 80): permission denied\nINFO:     Waiting for application shutdown.\n",
			"PrivilegedPort", "80"},
		{"pgx-database-missing", "jackc/pgx pgconn connect error ('failed to connect to `%s`: %s') around PostgreSQL's postinit.c 'database \"%s\" does not exist'",
			"2024/05/14 08:02:11 failed to connect to `host=shop-db user=shop database=shop`: server error (FATAL: database \"shop\" does not exist (SQLSTATE 3D000))\n",
			"SQL", `database "shop" does not exist`},
		{"gunicorn-connection-in-use", "benoitc/gunicorn gunicorn/sock.py create_sockets",
			"[2020-12-31 08:34:00 +0100] [132] [INFO] Starting gunicorn 20.0.4\n" +
				"[2020-12-31 08:34:00 +0100] [132] [ERROR] Connection in use: ('0.0.0.0', 8000)\n[2020-12-31 08:34:00 +0100] [132] [ERROR] Retrying in 1 second.\n" +
				"[2020-12-31 08:34:01 +0100] [132] [ERROR] Connection in use: ('0.0.0.0', 8000)\n[2020-12-31 08:34:01 +0100] [132] [ERROR] Retrying in 1 second.\n" +
				"[2020-12-31 08:34:05 +0100] [132] [ERROR] Can't connect to ('0.0.0.0', 8000)\n",
			"AddressInUse", "8000"},
		{"kestrel-address-in-use", "dotnet/aspnetcore Kestrel AddressBinder 'Failed to bind to address {0}: address already in use.'",
			"info: Microsoft.Hosting.Lifetime[0]\n      Application is shutting down...\n" +
				"Unhandled exception. System.IO.IOException: Failed to bind to address http://[::]:8080: address already in use.\n" +
				" ---> Microsoft.AspNetCore.Connections.AddressInUseException: Address already in use\n" +
				" ---> System.Net.Sockets.SocketException (98): Address already in use\n" +
				"   at System.Net.Sockets.Socket.UpdateStatusAfterSocketErrorAndThrowException(SocketError error, String callerName)\n" +
				"   at Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.SocketConnectionListener.Bind()\n",
			"AddressInUse", "8080"},
		{"erlang-epmd-nxdomain", "rabbitmq-server CLI epmd error; Erlang inet:format_error(nxdomain) 'non-existing domain'",
			"rabbitmq 08:12:31.34 INFO  ==> Starting RabbitMQ in background...\n" +
				"ERROR: epmd error for host rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local: nxdomain (non-existing domain)\n",
			"DNS", "rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local"},
		{"mysql-datadir-not-empty", "mysql-server MY-010457 / MY-013236",
			"2024-01-10T10:11:11.402817Z 0 [System] [MY-013169] [Server] /usr/sbin/mysqld (mysqld 8.0.36) initializing of server in progress as process 80\n" +
				"2024-01-10T10:11:11.404501Z 0 [ERROR] [MY-010457] [Server] --initialize specified but the data directory has files in it. Aborting.\n" +
				"2024-01-10T10:11:11.404506Z 0 [ERROR] [MY-013236] [Server] The designated data directory /var/lib/mysql/ is unusable. You can remove all files that the server added to it.\n" +
				"2024-01-10T10:11:11.404578Z 0 [ERROR] [MY-010119] [Server] Aborting\n" +
				"2024-01-10T10:11:11.404786Z 0 [System] [MY-010910] [Server] /usr/sbin/mysqld: Shutdown complete (mysqld 8.0.36)  MySQL Community Server - GPL.\n",
			"DataDirNotEmpty", "/var/lib/mysql"},
		{"postgres-initdb-not-empty", "postgres src/bin/initdb/initdb.c create_data_directory 'directory \"%s\" exists but is not empty'",
			"initdb: error: directory \"/var/lib/postgresql/data\" exists but is not empty\n" +
				"It contains a lost+found directory, perhaps due to it being a mount point.\n" +
				"Using a mount point directly as the data directory is not recommended.\nCreate a subdirectory under the mount point.\n",
			"DataDirNotEmpty", "/var/lib/postgresql/data"},
		{"spring-server-port-env", "spring-boot BindFailureAnalyzer 'Failed to bind properties under '%s' to %s' with Origin",
			"2024-04-09 07:12:04.877 ERROR 1 --- [           main] o.s.b.d.LoggingFailureAnalysisReporter   : \n\n" +
				"***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\n" +
				"Failed to bind properties under 'server.port' to java.lang.Integer:\n\n" +
				"    Property: server.port\n    Value: \"tcp://10.96.140.21:8080\"\n    Origin: System Environment Property \"SERVER_PORT\"\n" +
				"    Reason: failed to convert java.lang.String to java.lang.Integer (caused by java.lang.NumberFormatException: For input string: \"tcp://10.96.140.21:8080\")\n\n" +
				"Action:\n\nUpdate your application's configuration\n",
			"InvalidConfig", "SERVER_PORT"},
		{"tracing-json-addr-in-use", "tokio-rs/tracing tracing-subscriber fmt::format::Json; std::io::Error AddrInUse",
			`{"timestamp":"2024-06-11T08:00:01.004512Z","level":"INFO","fields":{"message":"starting ingest","version":"0.9.1"},"target":"ingest"}` + "\n" +
				`{"timestamp":"2024-06-11T08:00:01.005877Z","level":"ERROR","fields":{"message":"failed to bind listener","addr":"0.0.0.0:8080","error":"Address already in use (os error 98)"},"target":"ingest::server"}` + "\n" +
				"Error: Address already in use (os error 98)\n",
			"AddressInUse", "8080"},
		// MongoDB's structured log: severity "s", the error under "attr".
		{"mongodb-fcv-too-old", "https://github.com/mongodb/mongodb-kubernetes-operator/issues/1478",
			`{"t":{"$date":"2024-03-26T09:14:03.912+00:00"},"s":"F",  "c":"CONTROL",  "id":20573,   "ctx":"initandlisten","msg":"Wrong mongod version","attr":{"error":"UPGRADE PROBLEM: Found an invalid featureCompatibilityVersion document (ERROR: Location4926900: Invalid featureCompatibilityVersion document in admin.system.version: { _id: \"featureCompatibilityVersion\", version: \"4.4\" }."}}` + "\n" +
				`{"t":{"$date":"2024-03-26T09:14:03.950+00:00"},"s":"I",  "c":"CONTROL",  "id":23138,   "ctx":"initandlisten","msg":"Shutting down","attr":{"exitCode":62}}` + "\n",
			"VersionMismatch", "featureCompatibilityVersion 4.4"},
		{"mongodb-listener-status-object", "https://github.com/barrowclift/hacker-news-cleanser/issues/2",
			`{"t":{"$date":"2021-02-03T13:17:50.652-05:00"},"s":"E",  "c":"STORAGE",  "id":20568,   "ctx":"initandlisten","msg":"Error setting up listener","attr":{"error":{"code":9001,"codeName":"SocketException","errmsg":"Address already in use"}}}` + "\n" +
				`{"t":{"$date":"2021-02-03T13:17:50.653-05:00"},"s":"I",  "c":"CONTROL",  "id":20565,   "ctx":"initandlisten","msg":"Now exiting"}` + "\n",
			"AddressInUse", "Address already in use"},
		// The hint after the error is not the line (applog hint.go).
		{"keycloak-production-no-tls", "https://github.com/keycloak/keycloak/issues/12803",
			"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) ERROR: Failed to start server in (production) mode\n" +
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) ERROR: Key material not provided to setup HTTPS. Please configure your keys/certificates or start the server in development mode.\n" +
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) For more details run the same command passing the '--verbose' option. Also you can use '--help' to see the details about the usage of the particular command.\n",
			"NoServerCertificate", "Key material not provided to setup HTTPS"},
	}
	// What the finding's title names in parentheses (SubjectOf).
	subjects := map[string]string{
		"redis-fatal-config-directive":         "config directive 'requirepass' at line 3",
		"erlang-epmd-nxdomain":                 "rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local",
		"gunicorn-connection-in-use":           "port 8000 on 0.0.0.0",
		"kestrel-address-in-use":               "port 8080",
		"tracing-json-addr-in-use":             "port 8080",
		"serilog-clef-npgsql-refused":          "10.96.0.55:5432",
		"flyway-pgjdbc-refused":                "orders-db:5432",
		"prisma-p1001":                         "shop-postgres:5432",
		"prisma-p1001-quoted-apart":            "shop-postgres:5432",
		"bitnami-env-empty":                    "environment variable MARIADB_ROOT_PASSWORD",
		"kestrel-loopback-address-in-use":      "port 5000",
		"uvicorn-bind-80-denied":               "port 80 on 0.0.0.0",
		"kafka-dns-then-config-exception":      "kafka-headless:29092",
		"spring-server-port-env":               "environment variable SERVER_PORT=tcp://10.96.140.21:8080, the Service link Kubernetes sets for a Service named server; enableServiceLinks: false in the pod spec, or another Service name, avoids it",
		"postgres-password-unset":              "environment variable POSTGRES_PASSWORD",
		"mysql-root-password-unset":            "environment variable MYSQL_ROOT_PASSWORD",
		"node-database-url-after-deprecation":  "environment variable DATABASE_URL",
		"nginx-emerg-after-entrypoint-info":    "/var/cache/nginx/client_temp",
		"structlog-json-sqlalchemy-db-missing": "database catalog",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil {
				t.Fatalf("no decisive line, want %s naming %q", tt.class, tt.names)
			}
			subj := SubjectOf(d.Pattern.Class, d.Line)
			if (tt.class != "" && d.Pattern.Class != tt.class) || !strings.Contains(d.Line+" "+subj, tt.names) {
				t.Errorf("got %s %q (subject %q), want %s naming %q", d.Pattern.Class, d.Line, subj, tt.class, tt.names)
			}
			if want, ok := subjects[tt.name]; ok && subj != want {
				t.Errorf("subject %q, want %q (line %q)", subj, want, d.Line)
			}
		})
	}
}

// A source location in a crash report is where the program failed, not the
// file it looked for: Rust's unwrap of io::ErrorKind::NotFound names
// src/main.rs:10:5, which is no subject ("" rather than "/main.rs").
func TestSubjectSkipsSourceLocations(t *testing.T) {
	for line, want := range map[string]string{
		"thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound, message: \"No such file or directory\" }', src/main.rs:10:5": "",
		"Error: ENOENT: no such file or directory, open '/config/app.json'":                                                                                                 "/config/app.json",
		"/docker-entrypoint.sh: line 12: /app/run.sh: No such file or directory":                                                                                            "/app/run.sh",
	} {
		if got := SubjectOf("MissingFile", line); got != want {
			t.Errorf("SubjectOf(MissingFile, %q) = %q, want %q", line, got, want)
		}
	}
}

// The subjects of wordings whose first words mislead: the runtime's "exec
// failed:" before the quoted command (kubelet exec probe, runc), and a
// script with Windows line endings (bash's "bad interpreter" names the
// interpreter with ^M, the script is what to fix).
func TestSubjectsOfRuntimeWording(t *testing.T) {
	for _, tt := range []struct {
		class      Class
		line, want string
	}{
		{"CommandNotFound", `OCI runtime exec failed: exec failed: unable to start container process: exec: "curl": executable file not found in $PATH: unknown`, "command curl"},
		{"CommandNotFound", `exec: "gunicorn": executable file not found in $PATH`, "command gunicorn"},
		{"ScriptLineEndings", "bash: /app/entrypoint.sh: /bin/bash^M: bad interpreter: No such file or directory", "script /app/entrypoint.sh"},
	} {
		if got := SubjectOf(tt.class, tt.line); got != tt.want {
			t.Errorf("SubjectOf(%s, %q) = %q, want %q", tt.class, tt.line, got, tt.want)
		}
	}
	d := FindDecisive("bash: /app/entrypoint.sh: /bin/bash^M: bad interpreter: No such file or directory\n")
	if d == nil || d.Pattern.Class != "ScriptLineEndings" {
		t.Errorf("a CRLF shebang: %+v, want class ScriptLineEndings", d)
	}
}
