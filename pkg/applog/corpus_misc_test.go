package applog

// Ruby (Rails/puma, fluentd), .NET (Kestrel, Serilog), shells and dynamic
// loaders, Rust, and Kafka's C client.
var rubyCases = []corpusCase{
	{
		name: "rails-server-eaddrinuse", eco: "ruby",
		source: "https://github.com/consuldemocracy/consuldemocracy/issues/1900",
		log: `
bind': Address already in use - bind(2) for 127.0.0.1:3000 (Errno::EADDRINUSE)
`,
		want: "Address already in use", signal: SigAddrInUse, ent: ents{listen: "3000"},
	},
	{
		name: "puma-address-in-use-port", eco: "ruby",
		source: "https://github.com/puma/puma/issues/516",
		log: `
Address in use - bind(2) for "0.0.0.0" port 3030 (Errno::EADDRINUSE)
`,
		want: "Address in use", signal: SigAddrInUse, ent: ents{listen: "3030"},
	},
	{
		name: "puma-eaddrnotavail-ruby-exception-line", eco: "ruby",
		source: "https://github.com/puma/puma/issues/1221",
		log: `
puma/binder.rb:269:in ` + "`initialize'" + `: Can't assign requested address - bind(2) for "185.27.174.169" port 3000 (Errno::EADDRNOTAVAIL)
`,
		want: "Can't assign requested address", signal: SigAddrInUse, trace: TraceRuby, ent: ents{listen: "3000"},
	},
	{
		name: "fluentd-config-error-rbac", eco: "ruby",
		source: "https://github.com/kubernetes/kubernetes/issues/79250",
		log: `
2019-06-21 02:19:20 +0000 [error]: config error file="/etc/fluent/fluent.conf" error_class=Fluent::ConfigError error="Exception encountered fetching metadata from Kubernetes API endpoint: pods is forbidden: User \"system:serviceaccount:kube-system:fluentd-es\" cannot list pods at the cluster scope ({\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods is forbidden: User \\\"system:serviceaccount:kube-system:fluentd-es\\\" cannot list pods at the cluster scope\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},\"code\":403}\n)"
`,
		want: "pods is forbidden", signal: SigForbidden, ent: ents{forbidden: "list pods kube-system/fluentd-es"},
	},
	{
		name: "fluentd-deprecation-warnings-control", eco: "ruby", running: true,
		source: "https://github.com/fluent-plugins-nursery/fluent-plugin-kubernetes_metadata_filter/issues/137",
		log: `
2018-05-18 10:03:05 +0000 [info]: parsing config file is succeeded path="/fluentd/etc/fluent.conf"
2018-05-18 10:03:05 +0000 [warn]: 'type' is deprecated parameter name. use '@type' instead.
2018-05-18 10:03:05 +0000 [warn]: 'type' is deprecated parameter name. use '@type' instead.
2018-05-18 10:03:05 +0000 [warn]: 'type' is deprecated parameter name. use '@type' instead.
2018-05-18 10:03:05 +0000 [info]: using configuration file: <ROOT>
2018-05-18 10:03:05 +0000 [info]: starting fluentd-1.1.3 pid=6 ruby="2.3.3"
`,
		want: "",
	},
}

var dotnetCases = []corpusCase{
	{
		name: "kestrel-eacces-inline-inner-exceptions", eco: "dotnet",
		source: "https://github.com/TahirNaushad/Fiver.Security.AuthServer/issues/4",
		log: `
Microsoft.AspNetCore.Server.Kestrel[0]
      Unable to start Kestrel.
System.IO.IOException: Failed to bind to address http://localhost:5001. ---> System.AggregateException: One or more errors occurred. (Error -4092 EACCES permission denied) (Error -4092 EACCES permission denied) ---> Microsoft.AspNetCore.Server.Kestrel.Transport.Libuv.Internal.Networking.UvException: Error -4092 EACCES permission denied
   at Microsoft.AspNetCore.Server.Kestrel.Transport.Libuv.Internal.Networking.LibuvFunctions.ThrowError(Int32 statusCode)
   at Microsoft.AspNetCore.Server.Kestrel.Transport.Libuv.Internal.Networking.UvTcpHandle.Bind(IPEndPoint endPoint)
`,
		want: "UvException: Error -4092 EACCES permission denied", trace: TraceDotNet, ent: ents{listen: "5001"},
	},
	{
		name: "kestrel-crit-after-bind-warnings", eco: "dotnet",
		source: "https://github.com/dotnet/core/issues/6574",
		log: `
warn: Microsoft.AspNetCore.Server.Kestrel[0]
      Unable to bind to http://localhost:5000 on the IPv4 loopback interface: 'An attempt was made to access a socket in a way forbidden by its access permissions.'.
warn: Microsoft.AspNetCore.Server.Kestrel[0]
      Unable to bind to http://localhost:5000 on the IPv6 loopback interface: 'An attempt was made to access a socket in a way forbidden by its access permissions.'.
crit: Microsoft.AspNetCore.Server.Kestrel[0]
      Unable to start Kestrel.
      System.IO.IOException: Failed to bind to address http://localhost:5000.
       ---> System.AggregateException: One or more errors occurred. (An attempt was made to access a socket in a way forbidden by its access permissions.) (An attempt was made to access a socket in a way forbidden by its access permissions.)
       ---> System.Net.Sockets.SocketException (10013): An attempt was made to access a socket in a way forbidden by its access permissions.
         at System.Net.Sockets.Socket.UpdateStatusAfterSocketErrorAndThrowException(SocketError error, String callerName)
         at System.Net.Sockets.Socket.DoBind(EndPoint endPointSnapshot, SocketAddress socketAddress)
`,
		stamped: true, want: "SocketException (10013)", signal: SigBindDenied, trace: TraceDotNet, ent: ents{listen: "5000"},
	},
	{
		name: "kestrel-crit-then-unhandled-exception", eco: "dotnet",
		source: "https://github.com/fcatae/Arda/issues/102",
		log: `
crit: Microsoft.AspNetCore.Server.Kestrel[0]
      Unable to start Kestrel.
System.IO.IOException: Failed to bind to address http://localhost:26141. ---> System.AggregateException: One or more errors occurred. (Error -4092 EACCES permission denied) (Error -4090 EADDRNOTAVAIL address not available) ---> Microsoft.AspNetCore.Server.Kestrel.Internal.Networking.UvException: Error -4092 EACCES permission denied
   at Microsoft.AspNetCore.Server.Kestrel.Internal.Networking.Libuv.tcp_bind(UvTcpHandle handle, SockAddr& addr, Int32 flags)
   --- End of inner exception stack trace ---
   --- End of inner exception stack trace ---
   at Microsoft.AspNetCore.Server.Kestrel.KestrelServer.Start[TContext](IHttpApplication` + "`" + `1 application)

Unhandled Exception: System.IO.IOException: Failed to bind to address http://localhost:26141. ---> System.AggregateException: One or more errors occurred. (Error -4092 EACCES permission denied) (Error -4090 EADDRNOTAVAIL address not available) ---> Microsoft.AspNetCore.Server.Kestrel.Internal.Networking.UvException: Error -4092 EACCES permission denied
`,
		want: "EACCES permission denied", trace: TraceDotNet, ent: ents{listen: "26141"},
	},
	{
		name: "serilog-text-critical-address-in-use", eco: "dotnet",
		source: "https://github.com/dotnet/aspnetcore/issues/2272",
		log: `
2017-11-06 23:27:28.337 +00:00 [Critical] Microsoft.AspNetCore.Server.Kestrel: Unable to start Kestrel.
System.IO.IOException: Failed to bind to address http://127.0.0.1:3119: address already in use. ---> Microsoft.AspNetCore.Server.Kestrel.Transport.Abstractions.Internal.AddressInUseException: Error -4091 EADDRINUSE address already in use ---> Microsoft.AspNetCore.Server.Kestrel.Transport.Libuv.Internal.Networking.UvException: Error -4091 EADDRINUSE address already in use
   at Microsoft.AspNetCore.Server.Kestrel.Transport.Libuv.Internal.Networking.LibuvFunctions.ThrowError(Int32 statusCode)
`,
		want: "EADDRINUSE address already in use", signal: SigAddrInUse, ent: ents{listen: "3119"},
	},
	{
		name: "serilog-compact-error-value-in-info-field", eco: "dotnet", running: true, format: FormatJSON,
		source: "https://github.com/serilog/serilog-sinks-file/issues/99",
		log: `
{"@t":"2019-03-28T15:17:14.5836847Z","@mt":"Checks for '{HealthCheckName}' completed with errors.","@l":"Warning","HealthCheckName":"Notification Email Settings","SourceContext":"Umbraco.Web.HealthCheck.HealthCheckResults","ProcessId":32012,"ProcessName":"w3wp","ThreadId":32,"AppDomainId":3,"AppDomainAppId":"LMW3SVC1282215385ROOT","MachineName":"PrWeSWEs2v3SR","Log4NetLevel":"WARN "}
{"@t":"2019-03-28T15:17:14.5836847Z","@mt":"Result for {HealthCheckName}: {HealthCheckResult}, Message: '{HealthCheckMessage}'","HealthCheckName":"Notification Email Settings","HealthCheckResult":"Error","HealthCheckMessage":"Notification email is still set to the default value of <strong>your@email.here</strong>.","SourceContext":"Umbraco.Web.HealthCheck.HealthCheckResults","ProcessId":32012,"ProcessName":"w3wp","ThreadId":32,"AppDomainId":3,"AppDomainAppId":"LMW3SVC1282215385ROOT","MachineName":"PrWeSWEs2v3SR","Log4NetLevel":"INFO "}
{"@t":"2019-03-28T15:17:14.5836847Z","@mt":"Checks for '{HealthCheckName}' all completed successfully.","HealthCheckName":"Try Skip IIS Custom Errors","SourceContext":"Umbraco.Web.HealthCheck.HealthCheckResults","ProcessId":32012,"ProcessName":"w3wp","ThreadId":32,"AppDomainId":3,"AppDomainAppId":"LMW3SVC1282215385ROOT","MachineName":"PrWeSWEs2v3SR","Log4NetLevel":"INFO "}
`,
		want: "",
	},
}

var shellCases = []corpusCase{
	{
		name: "entrypoint-exec-format-error", eco: "shell",
		source: "https://github.com/langfuse/langfuse/issues/2556",
		log:    `exec /usr/local/bin/docker-entrypoint.sh: exec format error`,
		want:   "exec format error", signal: SigExecFormat, ent: ents{path: "/usr/local/bin/docker-entrypoint.sh"},
	},
	{
		name: "runc-exec-format-error", eco: "shell",
		source: "https://github.com/k3s-io/k3s/issues/2419",
		log:    `standard_init_linux.go:211: exec user process caused "exec format error"`,
		want:   "exec format error", signal: SigExecFormat,
	},
	{
		name: "repeated-exec-format-error", eco: "shell", stamped: true,
		source: "https://github.com/docker/compose/issues/10213",
		log: `
exec /opt/bitnami/scripts/mongodb/entrypoint.sh: exec format error
exec /opt/bitnami/scripts/mongodb/entrypoint.sh: exec format error
exec /opt/bitnami/scripts/mongodb/entrypoint.sh: exec format error
`,
		want: "exec format error", signal: SigExecFormat, ent: ents{path: "/opt/bitnami/scripts/mongodb/entrypoint.sh"},
	},
	{
		name: "sh-binary-not-found-musl", eco: "shell",
		source: "https://github.com/moby/moby/issues/14972",
		log:    `/bin/sh: /bin/pfsd: not found`,
		want:   "/bin/pfsd: not found", signal: SigCommandNotFound, ent: ents{command: "/bin/pfsd"},
	},
	{
		name: "dash-command-not-found", eco: "shell",
		source: "https://github.com/nigelpoulton/TheK8sBook/issues/30",
		log:    `sh: 1: apk: not found`,
		want:   "apk: not found", signal: SigCommandNotFound, ent: ents{command: "apk"},
	},
	{
		name: "oci-executable-not-in-path", eco: "shell",
		source: "https://github.com/nigelpoulton/TheK8sBook/issues/30",
		log:    `error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "fc7ef1a745ffd71b0d28376f80ab706bf896fb8e13c501e66a2889286eda97f9": OCI runtime exec failed: exec failed: unable to start container process: exec: "ps": executable file not found in $PATH: unknown`,
		want:   `exec: "ps": executable file not found`, signal: SigCommandNotFound, ent: ents{command: "ps"},
	},
	{
		name: "exec-stat-no-such-file", eco: "shell",
		source: "https://github.com/att-comdev/openstack-helm/issues/121",
		log:    `exec: "/bin/bash": stat /bin/bash: no such file or directory`,
		want:   "/bin/bash", signal: SigCommandNotFound, ent: ents{command: "/bin/bash"},
	},
	{
		name: "missing-shared-library", eco: "shell",
		source: "https://github.com/newsdev/docker-varnish/issues/4",
		log:    `varnishlog: error while loading shared libraries: libvarnishapi.so.1: cannot open shared object file: No such file or directory`,
		want:   "error while loading shared libraries", signal: SigLoader, ent: ents{library: "libvarnishapi.so.1"},
	},
	{
		name: "glibc-binary-on-musl", eco: "shell",
		source: "https://github.com/MatthiasLohr/docker-f5fpc/issues/26",
		log:    `Error loading shared library ld-linux-x86-64.so.2: No such file or directory (needed by /usr/local/bin/f5fpc)`,
		want:   "Error loading shared library", signal: SigLoader, ent: ents{library: "ld-linux-x86-64.so.2", path: "/usr/local/bin/f5fpc"},
	},
	{
		name: "musl-relocation-then-s6-shutdown", eco: "shell",
		source: "https://github.com/linuxserver/docker-duckdns/issues/41",
		log: `
Error relocating /var/run/s6/etc/cont-init.d/01-envfile: rl_explicit_arg: symbol not found
Error relocating /var/run/s6/etc/cont-init.d/01-envfile: rl_num_chars_to_read: symbol not found
Error relocating /var/run/s6/etc/cont-init.d/01-envfile: rl_complete: symbol not found
[cont-init.d] 01-envfile: exited 127.
[cont-finish.d] executing container finish scripts...
[cont-finish.d] done.
[s6-finish] waiting for services.
[s6-finish] sending all processes the TERM signal.
[s6-finish] sending all processes the KILL signal and exiting.
`,
		want: "Error relocating", signal: SigLoader,
	},
	{
		name: "go-binary-needs-libc-on-distroless", eco: "shell",
		source: "https://github.com/jetstack/dependency-track-exporter/issues/70",
		log:    `exec /dependency-track-exporter: no such file or directory`,
		want:   "exec /dependency-track-exporter", signal: SigCommandNotFound, ent: ents{command: "/dependency-track-exporter"},
	},
	{
		name: "runc-no-such-file", eco: "shell",
		source: "https://github.com/open-policy-agent/gatekeeper/issues/1732",
		log:    `standard_init_linux.go:219: exec user process caused: no such file or directory`,
		want:   "exec user process caused", signal: SigCommandNotFound,
	},
	{
		name: "busybox-cannot-open-script", eco: "shell",
		source: "https://github.com/dockersamples/compose-dev-env/pull/4",
		log:    `sh: can't open '/run.sh': No such file or directory`,
		want:   "can't open '/run.sh'", signal: SigMissingFile, ent: ents{path: "/run.sh"},
	},
	{
		name: "su-exec-missing-binary", eco: "shell",
		source: "https://github.com/blacktop/docker-logstash-alpine/issues/4",
		log:    `su-exec: tini: No such file or directory`,
		want:   "tini: No such file or directory", signal: SigMissingFile,
	},
	{
		name: "entrypoint-unexpected-eof", eco: "shell",
		source: "https://github.com/lemonldap-ng-controller/lemonldap-ng-controller/pull/8",
		log: `
/docker-entrypoint.sh: line 9: unexpected EOF while looking for matching ` + "`''" + `
/docker-entrypoint.sh: line 33: syntax error: unexpected end of file
`,
		want: "syntax error: unexpected end of file", signal: SigShellSyntax,
	},
	{
		name: "entrypoint-unterminated-quote", eco: "shell",
		source: "https://github.com/belsander/docker-cronicle/issues/4",
		log:    `/entrypoint.sh: line 29: syntax error: unterminated quoted string`,
		want:   "unterminated quoted string", signal: SigShellSyntax, ent: ents{path: "/entrypoint.sh"},
	},
	{
		name: "crlf-entrypoint", eco: "shell",
		source: "https://github.com/GameServerManagers/LinuxGSM-Docker/issues/70",
		log: `
entrypoint.sh: line 2: $'\r': command not found
entrypoint.sh: line 3: syntax error near unexpected token ` + "`$'{\\r''" + `
`,
		want: "syntax error near unexpected token", signal: SigShellSyntax,
	},
	{
		name: "dash-syntax-error", eco: "shell",
		source: "https://github.com/adorsys/keycloak-config-cli/pull/140",
		log:    `/bin/sh: 1: /bin/sh: Syntax error: ")" unexpected`,
		want:   `Syntax error: ")" unexpected`, signal: SigShellSyntax,
	},
	{
		name: "busybox-syntax-error-after-crlf-noise", eco: "shell",
		source: "https://github.com/orcfoss/Rboxlo/issues/66",
		log: `
/usr/local/bin/entrypoint.sh: line 7: nginx
/usr/local/bin/entrypoint.sh: line 40: syntax error: unexpected "done" (expecting "then")
`,
		want: `syntax error: unexpected "done"`, signal: SigShellSyntax,
	},
}

var rustCases = []corpusCase{
	{
		name: "unwrap-panic-after-warn", eco: "rust",
		source: "https://github.com/logdna/logdna-agent-v2/issues/75",
		log: `
[2021-01-20T06:45:25Z WARN  k8s::middleware::metadata] Watch Stream Error: error returned by apiserver during watch: too old resource version: 226233010 (226248908): Expired
thread '<unnamed>' panicked at 'called ` + "`Result::unwrap()` on an `Err`" + ` value: ()', common/k8s/src/middleware/metadata.rs:171:18
note: run with ` + "`RUST_BACKTRACE=1`" + ` environment variable to display a backtrace
`,
		stamped: true, want: "panicked at 'called `Result::unwrap()`", trace: TraceRust,
	},
	{
		name: "unwrap-utf8-panic", eco: "rust",
		source: "https://github.com/ceph/ceph-rust/issues/68",
		log: `
thread 'main' panicked at 'called ` + "`Result::unwrap()` on an `Err`" + ` value: Utf8Error { valid_up_to: 10, error_len: Some(1) }', /home/centos/.cargo/registry/src/github.com-1ecc6299db9ec823/ceph-3.0.0/src/ceph.rs:1988:46
note: run with ` + "`RUST_BACKTRACE=1`" + ` environment variable to display a backtrace
`,
		want: "Utf8Error", trace: TraceRust,
	},
	{
		name: "new-format-panic-message-on-next-line", eco: "rust",
		source: "https://github.com/frederik-uni/manga-image-translator-rust/issues/16",
		log: `
thread 'main' panicked at /home/runner/.cargo/git/checkouts/aio-translator-a95a20ba2970ce49/56b9911/crates/scrape/papago/src/lib.rs:156:10:
called ` + "`Option::unwrap()` on a `None`" + ` value
stack backtrace:
   0:     0x55a9bcff66c2 - <std::sys::backtrace::BacktraceLock::print::DisplayBacktrace as core::fmt::Display>::fmt::hdcfcb6d4c8489523
   1:     0x55a9bd025c13 - core::fmt::write::h8a494366950f23bb
`,
		want: "called `Option::unwrap()` on a `None` value", trace: TraceRust,
	},
	{
		name: "panic-with-thread-id", eco: "rust",
		source: "https://github.com/emersonford/tracing-indicatif/issues/16",
		log: `
thread '<unnamed>' (3926913) panicked at /home/niedzwiedz/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/tracing-indicatif-0.3.12/src/lib.rs:705:58:
called ` + "`Result::unwrap()` on an `Err`" + ` value: PoisonError { .. }
`,
		want: "PoisonError", trace: TraceRust,
	},
	{
		name: "env-logger-error-while-running", eco: "rust", running: true,
		source: "https://github.com/RouHim/this-week-in-past/issues/143",
		log: `
[2024-04-11T14:56:14Z INFO  this_week_in_past] 👋 Welcome to this-week-in-past version 1.23.1
[2024-04-11T14:56:14Z INFO  this_week_in_past] 📅 System time: 2024-04-11 14:56:14
[2024-04-11T14:56:14Z ERROR r2d2] database is locked
[2024-04-11T14:56:14Z INFO  this_week_in_past] 📅 Database time: 2024-04-11 14:56:14
[2024-04-11T14:56:14Z INFO  this_week_in_past] 🚀 Launching webserver on http://0.0.0.0:8080 🚀
`,
		want: "database is locked",
	},
}

var kafkaCases = []corpusCase{
	{
		name: "librdkafka-resolve-try-again", eco: "kafka", running: true,
		source: "https://github.com/anam-hossain/laravel-kafka-sub-example/issues/12",
		log: `
%3|1618498121.702|FAIL|rdkafka#consumer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Failed to resolve 'kafka:9092': Try again (after 5004ms in state CONNECT)
%3|1618498121.702|ERROR|rdkafka#consumer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Failed to resolve 'kafka:9092': Try again (after 5004ms in state CONNECT)
%3|1618498121.702|ERROR|rdkafka#consumer-1| [thrd:kafka:9092/bootstrap]: 1/1 brokers are down
`,
		stamped: true, want: "Failed to resolve 'kafka:9092'", signal: SigDNS, ent: ents{unresolved: "kafka", endpoint: "kafka:9092"},
	},
	{
		name: "kafkacat-name-or-service-not-known", eco: "kafka",
		source: "https://github.com/viabtc/viabtc_exchange_server/issues/51",
		log: `
%3|1515056843.985|FAIL|rdkafka#consumer-0| mybroker:9092/bootstrap: Failed to resolve 'mybroker:9092': Name or service not known
%3|1515056843.985|ERROR|rdkafka#consumer-0| mybroker:9092/bootstrap: Failed to resolve 'mybroker:9092': Name or service not known
%3|1515056843.986|ERROR|rdkafka#consumer-0| 1/1 brokers are down
`,
		want: "Failed to resolve 'mybroker:9092'", signal: SigDNS, ent: ents{unresolved: "mybroker"},
	},
	{
		name: "kcat-resolve-then-generic-metadata-error", eco: "kafka",
		source: "https://github.com/edenhill/kcat/issues/284",
		log: `
%3|1606162721.123|FAIL|rdkafka#producer-1| [thrd:ecsc00a060af.epam.com:9092/bootstrap]: ecsc00a060af.epam.com:9092/bootstrap: Failed to resolve 'ecsc00a060af.epam.com:9092': Name does not resolve (after 34ms in state CONNECT)
%3|1606162723.093|FAIL|rdkafka#producer-1| [thrd:ecsc00a060af.epam.com:9092/bootstrap]: ecsc00a060af.epam.com:9092/bootstrap: Failed to resolve 'ecsc00a060af.epam.com:9092': Name does not resolve (after 4ms in state CONNECT, 1 identical error(s) suppressed)
% ERROR: Failed to acquire metadata: Local: Broker transport failure
`,
		want: "Failed to resolve 'ecsc00a060af.epam.com:9092'", signal: SigDNS, ent: ents{unresolved: "ecsc00a060af.epam.com"},
	},
	{
		name: "fluent-bit-kafka-output-dns", eco: "kafka", running: true,
		source: "https://github.com/fluent/fluent-bit-docker-image/issues/30",
		log: `
[2020/02/25 10:24:36] [ info] [storage] initializing...
[2020/02/25 10:24:36] [ info] [engine] started (pid=1)
[2020/02/25 10:24:36] [ info] [out_kafka] brokers='10.37.XXX.XX:9092,10.37.XXX.YY:9092' topics='cpu_check'
[2020/02/25 10:24:56] [error] [out_kafka] fluent-bit#producer-1: [thrd:clrv0000160257.ic.ing.net:9092/0]: clrv0000XXX.net:9092/0: Failed to resolve 'clrv0000XXX.net:9092': Temporary failure in name resolution (after 3461538871ms in state INIT)
[2020/02/25 10:24:56] [error] [out_kafka] fluent-bit#producer-1: [thrd:clrv0000160263.ic.ing.net:9092/1]: clrv0000YYY.net:9092/1: Failed to resolve 'clrv0000YYY.net:9092': Temporary failure in name resolution (after 3461538871ms in state INIT)
`,
		want: "Temporary failure in name resolution", signal: SigDNS,
	},
}

// Retry loops, running servers and clients of the Kubernetes API.
var moreCases = []corpusCase{
	{
		name: "retry-loop-then-giving-up-line", eco: "go",
		source: "https://github.com/NTHU-LSALAB/KubeShare/issues/9",
		log: `
2020-06-22 09:15:16.220809 Gemini E/ attempt 1: Connection refused
2020-06-22 09:15:26.221053 Gemini E/ attempt 2: Connection refused
2020-06-22 09:15:36.221295 Gemini E/ attempt 3: Connection refused
2020-06-22 09:15:46.221547 Gemini E/ attempt 4: Connection refused
2020-06-22 09:15:56.221820 Gemini E/ attempt 5: Connection refused
2020-06-22 09:16:06.221937 Gemini E/ Connection error: Connection refused
`,
		want: "Connection error: Connection refused", signal: SigRefused,
	},
	{
		name: "serilog-console-err-while-serving", eco: "dotnet", running: true,
		source: "https://github.com/dotnet/runtime/issues/34021",
		log: `
Content root path: /app
Now listening on: http://[::]:80
Application started. Press Ctrl+C to shut down.
[15:22:27 ERR] Unexpected error occurred
System.InvalidProgramException: Common Language Runtime detected an invalid program.
   at Microsoft.AspNetCore.Mvc.Internal.ResourceInvoker.ResultNext[TFilter,TFilterAsync](State& next, Scope& scope, Object& state, Boolean& isCompleted)
   at Microsoft.AspNetCore.Mvc.Internal.ResourceInvoker.InvokeResultFilters()
fail: Microsoft.AspNetCore.Server.Kestrel[13]
      Connection id "0HLUG0NTPANGU", Request id "0HLUG0NTPANGU:00000001": An unhandled exception was thrown by the application.
System.InvalidProgramException: Common Language Runtime detected an invalid program.
   at Microsoft.AspNetCore.Mvc.Internal.ResourceInvoker.ResultNext[TFilter,TFilterAsync](State& next, Scope& scope, Object& state, Boolean& isCompleted)
`,
		want: "InvalidProgramException: Common Language Runtime detected an invalid program", trace: TraceDotNet,
	},
	{
		name: "kubernetes-client-forbidden-in-response-body", eco: "dotnet",
		source: "https://github.com/microsoft/ApplicationInsights-Kubernetes/issues/378",
		log:    `Operation returned an invalid status code 'Forbidden', response body {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes is forbidden: User \"system:serviceaccount:xxx\" cannot list resource \"nodes\" in API group \"\"`,
		want:   "nodes is forbidden", signal: SigForbidden, ent: ents{forbidden: "list nodes xxx"},
	},
	{
		name: "python-chained-connection-refused", eco: "python",
		source: "https://github.com/dask/dask-kubernetes/issues/205",
		log: `
Traceback (most recent call last):
  File "/root/miniconda3/lib/python3.7/site-packages/urllib3/util/connection.py", line 70, in create_connection
    sock.connect(sa)
ConnectionRefusedError: [Errno 111] Connection refused

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/root/miniconda3/lib/python3.7/site-packages/urllib3/connection.py", line 168, in _new_conn
    self, "Failed to establish a new connection: %s" % e)
urllib3.exceptions.NewConnectionError: <urllib3.connection.VerifiedHTTPSConnection object at 0x7fa52a9ccfd0>: Failed to establish a new connection: [Errno 111] Connection refused
`,
		want: "Failed to establish a new connection: [Errno 111] Connection refused", signal: SigRefused, trace: TracePython,
	},
}
