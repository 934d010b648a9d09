package applog

// nginx, PostgreSQL and Redis: servers whose own wording is the log.
var nginxCases = []corpusCase{
	{
		name: "upstream-host-not-found", eco: "nginx",
		source: "https://github.com/kubernetes/website/issues/45965",
		log: `
2024/04/22 11:20:02 [emerg] 1#1: host not found in upstream "hello" in /etc/nginx/conf.d/frontend.conf:2
nginx: [emerg] host not found in upstream "hello" in /etc/nginx/conf.d/frontend.conf:2
`,
		stamped: true, want: `host not found in upstream "hello"`, signal: SigDNS, ent: ents{unresolved: "hello", path: "/etc/nginx/conf.d/frontend.conf"},
	},
	{
		name: "resolver-not-found-after-entrypoint-notice", eco: "nginx",
		source: "https://github.com/grafana/mimir/issues/1669",
		log: `
/docker-entrypoint.sh: No files found in /docker-entrypoint.d/, skipping configuration
2022/04/10 07:38:01 [emerg] 1#1: host not found in resolver "kube-dns.kube-system.svc.cluster.local" in /etc/nginx/nginx.conf:25
nginx: [emerg] host not found in resolver "kube-dns.kube-system.svc.cluster.local" in /etc/nginx/nginx.conf:25
`,
		want: `host not found in resolver "kube-dns.kube-system.svc.cluster.local"`, signal: SigDNS, ent: ents{unresolved: "kube-dns.kube-system.svc.cluster.local"},
	},
	{
		name: "upstream-netbox", eco: "nginx",
		source: "https://github.com/vishnoisuresh/netbox-kubernetes/issues/2",
		log: `
2018/02/26 20:08:22 [emerg] 1#1: host not found in upstream "netbox" in /etc/netbox-nginx/nginx.conf:21
nginx: [emerg] host not found in upstream "netbox" in /etc/netbox-nginx/nginx.conf:21
`,
		want: `upstream "netbox"`, signal: SigDNS, ent: ents{unresolved: "netbox"},
	},
	{
		name: "upstream-kibana", eco: "nginx",
		source: "https://github.com/wazuh/wazuh-kubernetes/issues/99",
		log: `
[emerg] 1#1: host not found in upstream "kibana" in /etc/nginx/conf.d/default.conf:15
nginx: [emerg] host not found in upstream "kibana" in /etc/nginx/conf.d/default.conf:15
`,
		want: `upstream "kibana"`, signal: SigDNS, ent: ents{unresolved: "kibana", path: "/etc/nginx/conf.d/default.conf"},
	},
	{
		name: "upstream-fqdn", eco: "nginx",
		source: "https://github.com/choffmeister/kubernetes-certbot/issues/2",
		log: `
nginx: [emerg] host not found in upstream "kubernetes-certbot.staging.svc.cluster.local" in /etc/nginx/conf.d/default.conf:21
`,
		want: "host not found in upstream", ent: ents{unresolved: "kubernetes-certbot.staging.svc.cluster.local"},
	},
	{
		name: "upstream-loginservice", eco: "nginx",
		source: "https://github.com/Dynatrace/easytrade/issues/5",
		log: `
2023/04/04 17:21:20 [emerg] 1#1: host not found in upstream "loginservice" in /etc/nginx/nginx.conf:17
nginx: [emerg] host not found in upstream "loginservice" in /etc/nginx/nginx.conf:17
`,
		want: `upstream "loginservice"`, ent: ents{unresolved: "loginservice"},
	},
	{
		name: "privileged-port-after-harmless-warn", eco: "nginx",
		source: "https://github.com/kubecost/kubecost/issues/413",
		log: `
2020-04-23T04:28:21.870779908Z 2020/04/23 04:28:21 [warn] 1#1: the "user" directive makes sense only if the master process runs with super-user privileges, ignored in /etc/nginx/nginx.conf:2
2020-04-23T04:28:21.870836741Z nginx: [warn] the "user" directive makes sense only if the master process runs with super-user privileges, ignored in /etc/nginx/nginx.conf:2
2020-04-23T04:28:21.879562031Z 2020/04/23 04:28:21 [emerg] 1#1: bind() to 0.0.0.0:80 failed (13: Permission denied)
2020-04-23T04:28:21.879589001Z nginx: [emerg] bind() to 0.0.0.0:80 failed (13: Permission denied)
`,
		want: "bind() to 0.0.0.0:80 failed (13: Permission denied)", signal: SigBindDenied, ent: ents{listen: "80"},
	},
	{
		name: "privileged-port-after-entrypoint-readonly-info", eco: "nginx",
		source: "https://github.com/mermaid-js/mermaid-live-editor/issues/1230",
		log: `
/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration
/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/
/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh
10-listen-on-ipv6-by-default.sh: info: can not modify /etc/nginx/conf.d/default.conf (read-only file system?)
/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh
/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh
/docker-entrypoint.sh: Configuration complete; ready for start up
2023/05/24 08:45:31 [emerg] 1#1: bind() to 0.0.0.0:80 failed (13: Permission denied)
nginx: [emerg] bind() to 0.0.0.0:80 failed (13: Permission denied)
`,
		stamped: true, want: "bind() to 0.0.0.0:80 failed (13: Permission denied)", signal: SigBindDenied, ent: ents{listen: "80"},
	},
	{
		name: "bind-address-in-use", eco: "nginx",
		source: "https://github.com/beanieboi/heroku-nginx-puma-statsd/issues/1",
		log: `
[emerg] bind() to 0.0.0.0:29629 failed (98: Address already in use)
`,
		want: "bind() to 0.0.0.0:29629 failed", signal: SigAddrInUse, ent: ents{listen: "29629"},
	},
}

var postgresCases = []corpusCase{
	{
		name: "data-dir-wrong-ownership-after-missing-conf-log", eco: "postgresql",
		source: "https://github.com/kubernetes/kubernetes/issues/104291",
		log: `
2021-08-11 06:06:15.749 GMT [8] LOG:  skipping missing configuration file "/var/lib/postgresql/data/postgresql.auto.conf"
2021-08-11 06:06:15.750 UTC [8] FATAL:  data directory "/var/lib/postgresql/data" has wrong ownership
2021-08-11 06:06:15.750 UTC [8] HINT:  The server must be started by the user that owns the data directory.
`,
		stamped: true, want: "has wrong ownership", signal: SigPermission, ent: ents{path: "/var/lib/postgresql/data"},
	},
	{
		name: "initdb-wrong-ownership-then-cleanup", eco: "postgresql",
		source: "https://github.com/docker-library/postgres/issues/558",
		log: `
running bootstrap script ... 2019-03-12 15:05:29.271 UTC [77] FATAL:  data directory "/var/lib/postgresql/data" has wrong ownership
2019-03-12 15:05:29.271 UTC [77] HINT:  The server must be started by the user that owns the data directory.
child process exited with exit code 1
initdb: removing contents of data directory "/var/lib/postgresql/data"
`,
		want: "has wrong ownership", signal: SigPermission,
	},
	{
		name: "crunchy-wrapper-loop-with-fatal", eco: "postgresql", running: true,
		source: "https://github.com/CrunchyData/crunchy-containers/issues/161",
		log: `
+ pg_ctl -D /pgdata/peeking-mole-crunchy-master start
server starting
waiting for pg to start up...
+ pg_isready --port= --host=peeking-mole-crunchy-master --username=master --timeout=2
peeking-mole-crunchy-master: - no response
2017-05-29 09:03:33 EDT [57]: [1-1] user=,db=,app=,client=FATAL:  data directory "/pgdata/peeking-mole-crunchy-master" has wrong ownership
2017-05-29 09:03:33 EDT [57]: [2-1] user=,db=,app=,client=HINT:  The server must be started by the user that owns the data directory.
+ '[' 2 -eq 0 ']'
+ sleep 2
+ true
+ pg_isready --port= --host=peeking-mole-crunchy-master --username=master --timeout=2
peeking-mole-crunchy-master: - no response
+ '[' 2 -eq 0 ']'
+ sleep 2
`,
		want: "has wrong ownership", ent: ents{path: "/pgdata/peeking-mole-crunchy-master"},
	},
	{
		name: "data-dir-group-access", eco: "postgresql",
		source: "https://github.com/kartoza/docker-postgis/issues/68",
		log: `
FATAL:  data directory "/var/lib/postgresql/9.5/main" has group or world access
DETAIL:  Permissions should be u=rwx (0700).
`,
		want: "has group or world access", signal: SigPermission, ent: ents{path: "/var/lib/postgresql/9.5/main"},
	},
	{
		name: "libpq-refused-with-host-and-port", eco: "postgresql",
		source: "https://github.com/tines/rails-pg-adapter/pull/15",
		log: `
connection to server at "10.1.209.231", port 5432 failed: Connection refused
\tIs the server running on that host and accepting TCP/IP connections?
`,
		want: "Connection refused", signal: SigRefused, ent: ents{endpoint: "10.1.209.231:5432"},
	},
	{
		name: "bitnami-wrong-ownership-inside-init", eco: "postgresql",
		source: "https://github.com/kubernetes-retired/minibroker/issues/26",
		log: `
Error executing 'postInstallation': 2019-04-22 15:39:31.391 UTC [90] FATAL:  data directory "/opt/bitnami/postgresql/data" has wrong ownership
2019-04-22 15:39:31.391 UTC [90] HINT:  The server must be started by the user that owns the data directory.
`,
		want: "has wrong ownership", ent: ents{path: "/opt/bitnami/postgresql/data"},
	},
}

var redisCases = []corpusCase{
	{
		name: "config-error-logfile-missing", eco: "redis",
		source: "https://github.com/MichaIng/DietPi/issues/3272",
		log: `
*** FATAL CONFIG FILE ERROR ***
Reading the configuration file, at line 171
>>> 'logfile /var/log/redis/redis-server.log'
Can't open the log file: No such file or directory
`,
		stamped: true, want: "Can't open the log file: No such file or directory", signal: SigMissingFile, ent: ents{path: "/var/log/redis/redis-server.log"},
	},
	{
		name: "config-error-logfile-permission", eco: "redis",
		source: "https://github.com/geerlingguy/ansible-role-redis/pull/62",
		log: `
*** FATAL CONFIG FILE ERROR ***
Reading the configuration file, at line 12
>>> 'logfile /var/log/redis/redis-server.log'
Can't open the log file: Permission denied
`,
		want: "Permission denied", signal: SigPermission, ent: ents{path: "/var/log/redis/redis-server.log"},
	},
	{
		name: "listening-socket-cannot-assign", eco: "redis",
		source: "https://github.com/redis/redis/pull/5597",
		log: `
Could not create server TCP listening listening socket ::1:6379: bind: Cannot assign requested address
`,
		want: "Cannot assign requested address", signal: SigAddrInUse, ent: ents{listen: "6379"},
	},
	{
		name: "unix-socket-bind-denied", eco: "redis",
		source: "https://github.com/redis/redis/issues/2449",
		log: `
# Opening socket: bind: Permission denied
`,
		want: "bind: Permission denied", signal: SigBindDenied,
	},
	{
		name: "overcommit-warning-healthy-control", eco: "redis", running: true,
		source: "https://github.com/sameersbn/docker-gitlab/issues/320",
		log: `
[9] 14 May 13:19:52.866 # Server started, Redis version 2.8.4
[9] 14 May 13:19:52.866 # WARNING overcommit_memory is set to 0! Background save may fail under low memory condition. To fix this issue add 'vm.overcommit_memory = 1' to /etc/sysctl.conf and then reboot or run the command 'sysctl vm.overcommit_memory=1' for this to take effect.
[9] 14 May 13:19:52.866 * The server is now ready to accept connections on port 6379
[9] 14 May 13:19:52.866 * The server is now ready to accept connections at /var/run/redis/redis.sock
`,
		want: "",
	},
	{
		name: "memory-overcommit-warning-alone", eco: "redis", running: true,
		source: "https://github.com/redis/docker-library-redis/issues/346",
		log: `
# WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition. Being disabled, it can can also cause failures without low memory condition, see https://github.com/jemalloc/jemalloc/issues/1328. To fix this issue add 'vm.overcommit_memory = 1' to /etc/sysctl.conf and then reboot or run the command 'sysctl vm.overcommit_memory=1' for this to take effect.
`,
		want: "",
	},
}

// More PostgreSQL-backed failures: the SQL error as the client logs it and
// as the server logs it.
var sqlCases = []corpusCase{
	{
		name: "zap-fatal-missing-relation-with-go-stacktrace-field", eco: "go", format: FormatJSON,
		source: "https://github.com/kubestellar/ui/issues/1673",
		log: `
Registering Prometheus metrics..(((((((((((((((((((((((()))))))))))))))))))))))).
{"level":"info","ts":1753521085.4240723,"caller":"app/main.go:41","msg":"Configuration loaded","port":"4000"}
{"level":"fatal","ts":1753521085.2508235,"caller":"app/main.go:61","msg":"Failed to initialize admin user","error":"failed to check existing users: pq: relation \"users\" does not exist","stacktrace":"main.main\n\t/app/main.go:61\nruntime.main\n\t/usr/local/go/src/runtime/proc.go:283"}
`,
		stamped: true, want: `relation "users" does not exist`, signal: SigSQL, ent: ents{sql: "relation users"},
	},
	{
		name: "server-side-missing-relation-repeated", eco: "postgresql", running: true,
		source: "https://github.com/stackernews/stacker.news/issues/894",
		log: `
2024-03-08 13:48:25.469 UTC [1] LOG:  listening on IPv4 address "0.0.0.0", port 5432
2024-03-08 13:48:25.469 UTC [1] LOG:  listening on IPv6 address "::", port 5432
2024-03-08 13:48:25.486 UTC [1] LOG:  database system is ready to accept connections
2024-03-08 13:48:35.490 UTC [47] ERROR:  relation "users" does not exist at character 15
2024-03-08 13:48:35.490 UTC [47] STATEMENT:  SELECT 1 FROM users LIMIT 1
2024-03-08 13:48:45.612 UTC [62] ERROR:  relation "users" does not exist at character 15
2024-03-08 13:48:45.612 UTC [62] STATEMENT:  SELECT 1 FROM users LIMIT 1
2024-03-08 13:48:55.713 UTC [78] ERROR:  relation "users" does not exist at character 15
2024-03-08 13:48:55.713 UTC [78] STATEMENT:  SELECT 1 FROM users LIMIT 1
`,
		want: `relation "users" does not exist`, signal: SigSQL, ent: ents{sql: "relation users"},
	},
	{
		name: "sequelize-unhandled-rejection", eco: "node",
		source: "https://github.com/hackmdio/codimd/issues/366",
		log: `
== 20161009040430-support-delete-note: migrated (0.034s)
== 20161201050312-support-email-signin: migrating =======
Unhandled rejection SequelizeDatabaseError: relation "public.Users" does not exist
    at Query.formatError (/hackmd/node_modules/sequelize/lib/dialects/postgres/query.js:357:14)
`,
		want: `relation "public.Users" does not exist`, signal: SigSQL, ent: ents{sql: "relation public.Users"},
	},
}

// TLS failures as servers and agents log them.
var tlsCases = []corpusCase{
	{
		name: "nats-handshake-names-certificate-subject", eco: "go", running: true,
		source: "https://github.com/nats-io/nats-server/pull/6883",
		log:    `[ERR] 127.0.0.1:50610 - gid:1 - TLS gateway handshake error: tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs (CN=localhost,OU=nats.io,O=Synadia,ST=California,C=US SHA-256: cb11b587f11697bec4b369f7761283f8b536337c538b5a43c07105a906f9eb12)`,
		want:   "x509: cannot validate certificate", signal: SigTLS, ent: ents{certSubject: "localhost"},
	},
	{
		name: "fluent-bit-verify-failed", eco: "tls", running: true,
		source: "https://github.com/fluent/fluent-bit/pull/9527",
		log:    `[2024/10/28 22:35:46] [error] [tls] certificate verification failed, reason: unable to get local issuer certificate (X509 code: 20)`,
		want:   "unable to get local issuer certificate", signal: SigTLS,
	},
	{
		name: "fluent-bit-unexpected-eof-verify-failed", eco: "tls", running: true,
		source: "https://github.com/fluent/fluent-bit/pull/9527",
		log:    `[2024/09/16 10:00:38] [error] [tls] error: unexpected EOF with reason: certificate verify failed`,
		want:   "certificate verify failed", signal: SigTLS,
	},
	{
		name: "client-handshake-errors-logged-at-info-control", eco: "go", running: true, format: FormatKlog,
		source: "https://github.com/kubeedge/kubeedge/issues/5899",
		log: `
2024-09-29T10:49:59.307288259+08:00 I0929 10:49:59.307204       1 log.go:198] http: TLS handshake error from 10.206.121.44:58812: tls: failed to verify client certificate: x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "KubeEdge")
2024-09-29T10:50:01.307583875+08:00 I0929 10:50:01.307454       1 log.go:198] http: TLS handshake error from 10.206.121.44:58814: tls: failed to verify client certificate: x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "KubeEdge")
`,
		want: "",
	},
}
