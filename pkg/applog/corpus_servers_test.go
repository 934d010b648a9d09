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
