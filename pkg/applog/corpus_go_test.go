package applog

// Go services: zap (JSON and console), logrus, go-kit logfmt, klog, the
// runtime's panic.
var goCases = []corpusCase{
	{
		name: "zap-console-reconciler-error-field", eco: "go", running: true,
		source: "https://github.com/kubernetes-sigs/controller-runtime/issues/2313",
		log: `
1.6836474195594983e+09  ERROR   Reconciler error        {"controller": "repository", "controllerGroup": "settings.github.com", "controllerKind": "Repository", "repository": {"name":"test-repo-delete","namespace":"default"}, "namespace": "default", "name": "test-repo-delete", "reconcileID": "f1038b55-0332-442f-885f-62acb053e3ae", "error": "failed to get repo: GET https://api.github.com/repos/delete: 401 Bad credentials []"}
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).processNextWorkItem
        /home/hunter/hunter-os/github-operator/vendor/sigs.k8s.io/controller-runtime/pkg/internal/controller/controller.go:273
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).Start.func2.2
        /home/hunter/hunter-os/github-operator/vendor/sigs.k8s.io/controller-runtime/pkg/internal/controller/controller.go:234
`,
		want: "401 Bad credentials", signal: SigUnauthorized, ent: ents{status: 401, host: "api.github.com"},
	},
	{
		name: "zap-json-auth-failure-beats-later-conflict", eco: "go", running: true, format: FormatJSON,
		source: "https://github.com/fluxcd/source-controller/pull/89",
		log: `
{"level":"error","ts":"2020-07-15T11:19:45.031+0300","logger":"controller-runtime.controller","msg":"Reconciler error","controller":"gitrepository","request":"default/podinfo","error":"git clone error: ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported methods remain"}
{"level":"error","ts":"2020-07-15T11:19:56.142+0300","logger":"controllers.GitRepository","msg":"unable to update status","controller":"gitrepository","request":"default/podinfo","error":"Operation cannot be fulfilled on gitrepositories.source.fluxcd.io \"podinfo\": the object has been modified; please apply your changes to the latest version and try again"}
{"level":"info","ts":"2020-07-15T11:21:18.954+0300","logger":"controllers.GitRepository","msg":"Reconciliation finished in 1.250148853s, next run in 1m0s","controller":"gitrepository","request":"default/podinfo"}
`,
		want: "unable to authenticate", signal: SigUnauthorized,
	},
	{
		name: "zap-json-info-only-control", eco: "go", running: true, format: FormatJSON,
		source: "https://github.com/fluxcd/source-controller/pull/89",
		log: `
{"level":"info","ts":"2020-07-15T11:21:18.954+0300","logger":"controllers.GitRepository","msg":"Reconciliation finished in 1.250148853s, next run in 1m0s","controller":"gitrepository","request":"default/podinfo"}
`,
		want: "",
	},
	{
		name: "klog-forbidden-at-cluster-scope", eco: "go", running: true, format: FormatKlog,
		source: "https://github.com/giantswarm/prometheus/issues/142",
		log: `
E0815 13:42:36.847815 1 reflector.go:199] vendor/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.Service: services is forbidden: User "system:serviceaccount:monitoring:kube-state-metrics" cannot list resource "services" in API group "" at the cluster scope
E0815 13:42:36.547433 1 reflector.go:199] vendor/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.ResourceQuota: resourcequotas is forbidden: User "system:serviceaccount:monitoring:kube-state-metrics" cannot list resource "resourcequotas" in API group "" at the cluster scope
E0815 13:42:36.509023 1 reflector.go:199] vendor/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.ReplicationController: replicationcontrollers is forbidden: User "system:serviceaccount:monitoring:kube-state-metrics" cannot list resource "replicationcontrollers" in API group "" at the cluster scope
`,
		stamped: true, want: "is forbidden", signal: SigForbidden, ent: ents{forbidden: "list replicationcontrollers monitoring/kube-state-metrics"},
	},
	{
		name: "klog-old-forbidden-wording", eco: "go", running: true,
		source: "https://github.com/vmware-archive/kubewatch/issues/95",
		log: `
ERROR: logging before flag.Parse: E0418 04:56:17.489683       1 reflector.go:201] github.com/skippbox/kubewatch/pkg/controller/controller.go:147: Failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:default:default" cannot list pods at the cluster scope
`,
		want: "pods is forbidden", signal: SigForbidden, ent: ents{forbidden: "list pods default/default"},
	},
	{
		name: "gokit-logfmt-forbidden-in-namespace", eco: "go", running: true, format: FormatLogfmt,
		source: "https://github.com/rancher/rancher/issues/20963",
		log: `
level=error ts=2019-09-17T10:52:34.848535733Z caller=klog.go:94 component=k8s_client_runtime func=ErrorDepth msg="/app/discovery/kubernetes/kubernetes.go:301: Failed to list *v1.Service: services is forbidden: User \"system:serviceaccount:cattle-prometheus-p-2nc9l:project-monitoring\" cannot list resource \"services\" in API group \"\" in the namespace \"default\""
level=error ts=2019-09-17T10:52:35.782692275Z caller=klog.go:94 component=k8s_client_runtime func=ErrorDepth msg="/app/discovery/kubernetes/kubernetes.go:302: Failed to list *v1.Pod: pods is forbidden: User \"system:serviceaccount:cattle-prometheus-p-2nc9l:project-monitoring\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""
`,
		want: "pods is forbidden", signal: SigForbidden, ent: ents{forbidden: "list pods cattle-prometheus-p-2nc9l/project-monitoring"},
	},
	{
		name: "logrus-text-forbidden-then-generic-exit-line", eco: "go", format: FormatLogfmt,
		source: "https://github.com/knative/infra/issues/222",
		log: `
time="2023-09-24T09:41:34Z" level=error msg="client list: listing pods in : pods is forbidden: User \"system:serviceaccount:test-pods:nightly\" cannot list resource \"pods\" in API group \"\" at the cluster scope" cmp=lister
time="2023-09-24T09:41:34Z" level=error msg="lister error: client list: listing pods in : pods is forbidden: User \"system:serviceaccount:test-pods:nightly\" cannot list resource \"pods\" in API group \"\" at the cluster scope" cmp=controller
kail: error: Unable to initialize data source
`,
		want: "pods is forbidden", signal: SigForbidden, ent: ents{forbidden: "list pods test-pods/nightly"},
	},
	{
		name: "logrus-dns-server-misbehaving", eco: "go", running: true, format: FormatLogfmt,
		source: "https://github.com/prometheus-community/postgres_exporter/issues/430",
		log: `
time="2020-09-10T18:22:12Z" level=error msg="Error opening connection to database (postgresql://postgres:PASSWORD_REMOVED@uaa-postgres:5432/postgres?sslmode=disable): dial tcp: lookup uaa-postgres on 127.0.0.53:53: server misbehaving" source="postgres_exporter.go:1474"
`,
		want: "lookup uaa-postgres", signal: SigDNS, ent: ents{unresolved: "uaa-postgres", url: "postgresql://postgres:PASSWORD_REMOVED@uaa-postgres:5432/postgres?sslmode=disable"},
	},
	{
		name: "panic-after-json-info", eco: "go",
		source: "https://github.com/kube-logging/logging-operator/issues/881",
		log: `
{"level":"info","ts":1637060223.3517358,"logger":"controller-runtime.metrics","msg":"metrics server is starting to listen","addr":":8080"}
panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x28 pc=0x1625411]

goroutine 1 [running]:
github.com/banzaicloud/logging-operator/pkg/k8sutil.(*Cached).RESTMapping(0xc0001c21e0, 0x0, 0x0, 0x168561b, 0x4, 0xc00037eb00, 0x1, 0x1, 0xc0001eb260, 0x1bb7820, ...)
        /workspace/pkg/k8sutil/cache.go:112 +0x31
`,
		want: "panic: runtime error: invalid memory address or nil pointer dereference", trace: TraceGoPanic,
	},
	{
		name: "panic-after-klog-info", eco: "go",
		source: "https://github.com/libopenstorage/stork/issues/45",
		log: `
I0317 22:00:39.137524       1 snapshot-controller.go:169] Starting snapshot controller
I0317 22:00:39.137558       1 controller_utils.go:1041] Waiting for caches to sync for snapshot-controller controller
panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x8 pc=0x108178b]
goroutine 29 [running]:
github.com/libopenstorage/stork/drivers/volume/portworx.(*portworx).InspectVolume(0xc4203393a0, 0xc4202c84e0, 0x28, 0x1d, 0xc420404f01, 0x0)
\t/home/travis/gopath/src/github.com/libopenstorage/stork/drivers/volume/portworx/portworx.go:100 +0x22b
`,
		stamped: true, format: FormatKlog, want: "panic: runtime error", trace: TraceGoPanic,
	},
	{
		name: "klog-recovered-panic-names-dns", eco: "go",
		source: "https://github.com/cloud-ark/kubeplus/issues/107",
		log: `
Now setting up the database
Setting up database
Commands:
E1031 16:29:31.750684       1 runtime.go:66] Observed a panic: &net.OpError{Op:"dial", Net:"tcp", Source:net.Addr(nil), Addr:net.Addr(nil), Err:(*net.DNSError)(0xc4204e8ac0)} (dial tcp: lookup port=0: no such host)
/Users/devdatta/go/src/github.com/cloud-ark/kubeplus/postgres-crd-v2/vendor/k8s.io/apimachinery/pkg/util/runtime/runtime.go:72
/Users/devdatta/go/src/github.com/cloud-ark/kubeplus/postgres-crd-v2/controller.go:700
`,
		want: "no such host", signal: SigDNS,
	},
	{
		name: "x509-expired-erro-bracket", eco: "go",
		source: "https://github.com/chaitin/xpoc/issues/14",
		log: `
[ERRO] 2023-06-21 17:28:13 pull: Get "https://registry.xray.cool/api/v1/pocs?limit=100&offset=0&query=": x509: certificate has expired or is not yet valid: current time 2023-06-21T17:28:13+08:00 is after 2021-09-30T14:01:15Z [pull.go:32]
`,
		want: "x509: certificate has expired", signal: SigTLS, ent: ents{certNotAfter: "2021-09-30T14:01:15Z", host: "registry.xray.cool"},
	},
	{
		name: "x509-expired-in-router-line", eco: "go", running: true,
		source: "https://github.com/MHSanaei/3x-ui/issues/3015",
		log: `
router: (exchange4: x509: certificate has expired or is not yet valid: current time 2025-05-17T12:47:42+03:00 is after 2023-06-27T10:06:56Z | exchange6: x509: certificate has expired or is not yet valid: current time 2025-05-17T12:47:42+03:00 is after 2023-06-27T10:06:56Z)
`,
		want: "certificate has expired", signal: SigTLS, ent: ents{certNotAfter: "2023-06-27T10:06:56Z"},
	},
	{
		name: "logfmt-info-plugin-params-then-recovered-panic", eco: "go",
		source: "https://github.com/fluent/fluent-bit/issues/4492",
		log: `
level=info caller=out_loki.go:113 ts=2021-12-21T09:18:51.293142224Z id=1 [flb-go]="Starting fluent-bit-go-loki" version="(version=, branch=, revision=)"
level=info caller=out_loki.go:115 ts=2021-12-21T09:18:51.294007807Z id=1 [flb-go]="provided parameter" URL=http://loki.garden.svc:3100/loki/api/v1/push
level=info caller=out_loki.go:117 ts=2021-12-21T09:18:51.294042324Z id=1 [flb-go]="provided parameter" BatchWait=1m0s
E1221 09:18:51.293278       1 runtime.go:78] Observed a panic: "invalid memory address or nil pointer dereference" (runtime error: invalid memory address or nil pointer dereference)
goroutine 58 [running]:
k8s.io/apimachinery/pkg/util/runtime.logPanic(0x7fa5344b2020, 0x7fa535320590)
        /go/src/github.com/gardener/logging/vendor/k8s.io/apimachinery/pkg/util/runtime/runtime.go:74 +0xa6
`,
		format: FormatLogfmt, want: "Observed a panic",
	},
}

// Go's flag package prints the offending flag, then its usage.
var flagCases = []corpusCase{
	{
		name: "unknown-flag-then-usage", eco: "go",
		source: "https://github.com/openshift/machine-api-operator/issues/107",
		log: `
flag provided but not defined: -log-level
Usage of /machine-controller-manager:
  -alsologtostderr
    	log to standard error as well as files
  -kubeconfig string
    	Paths to a kubeconfig. Only required if out-of-cluster.
  -log_backtrace_at value
    	when logging hits line file:N, emit a stack trace
  -log_dir string
    	If non-empty, write log files in this directory
`,
		want: "flag provided but not defined: -log-level", signal: SigConfig,
	},
	{
		name: "unknown-flag-logtostderr", eco: "go",
		source: "https://github.com/wso2/cellery-controller/issues/93",
		log: `
flag provided but not defined: -logtostderr
Usage of /tmp/___go_build_main_go:
  -kubeconfig string
    	Path to a kubeconfig. Only required if out-of-cluster.
  -master string
    	The address of the Kubernetes API server. Overrides any value in kubeconfig. Only required if out-of-cluster.
`,
		want: "flag provided but not defined: -logtostderr", signal: SigConfig,
	},
	{
		// The fatal record says only that the sidecar stopped waiting; the
		// warning it repeated until then says what it waited for.
		name: "gave-up-waiting-after-retried-warning", eco: "go", format: FormatLogfmt,
		source: "https://github.com/thanos-io/thanos/issues/7923 with the warning of https://github.com/prometheus-operator/prometheus-operator/issues/7078",
		log: `
ts=2024-11-18T11:52:06.43907785Z caller=sidecar.go:426 level=info msg="starting sidecar"
ts=2024-11-18T11:52:06.444Z caller=sidecar.go:239 level=warn msg="failed to fetch initial external labels. Is Prometheus running? Retrying" err="parse Prometheus config: global:\n  scrape_interval: 30s\n  scrape_protocols:\n  - PrometheusText1.0.0\n: scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config"
ts=2024-11-18T11:52:36.444Z caller=sidecar.go:239 level=warn msg="failed to fetch initial external labels. Is Prometheus running? Retrying" err="parse Prometheus config: global:\n  scrape_interval: 30s\n  scrape_protocols:\n  - PrometheusText1.0.0\n: scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config"
ts=2024-11-18T11:53:06.444Z caller=sidecar.go:239 level=warn msg="failed to fetch initial external labels. Is Prometheus running? Retrying" err="parse Prometheus config: global:\n  scrape_interval: 30s\n  scrape_protocols:\n  - PrometheusText1.0.0\n: scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config"
ts=2024-11-18T12:02:06.440176004Z caller=main.go:174 level=error err="not uploading as no external labels are configured yet - is Prometheus healthy/reachable?\nmain.runSidecar.func12.1\n\t/app/cmd/thanos/sidecar.go:397\naborting as no external labels found after waiting 10m0s\nmain.runSidecar.func12\n\t/app/cmd/thanos/sidecar.go:401\nsidecar command failed\nmain.main\n\t/app/cmd/thanos/main.go:171"
`,
		want: "unknown scrape protocol PrometheusText1.0.0", signal: SigConfig,
	},
	{
		// Grafana's provisioning refuses a file it reads: "config is
		// invalid" says so without any of the usual keywords.
		name: "grafana-provisioning-config-is-invalid", eco: "go", stamped: false,
		source: "https://github.com/awslabs/crossplane-on-eks/issues/165",
		log: `
logger=settings t=2024-02-01T14:26:18.902171342Z level=info msg="Starting Grafana" version=10.2.3 branch=HEAD
logger=provisioning t=2024-02-01T14:26:19.066649715Z level=error msg="Failed to provision data sources" error="Datasource provisioning error: datasource.yaml config is invalid. Only one datasource per organization can be marked as default"
Error: ✗ Datasource provisioning error: datasource.yaml config is invalid. Only one datasource per organization can be marked as default
`,
		want: "marked as default", signal: SigConfig,
	},
}

// CoreDNS that cannot reach the API server: klog errors between its own
// "[INFO] plugin/ready" lines.
var apiTimeoutCases = []corpusCase{
	{
		name: "coredns-api-server-timeout", eco: "go", running: true, stamped: true,
		source: "https://github.com/kubernetes/minikube/issues/6160",
		log: `
E1226 08:54:19.152480       1 reflector.go:125] pkg/mod/k8s.io/client-go@v0.0.0-20190620085101-78d2af792bab/tools/cache/reflector.go:98: Failed to list *v1.Namespace: Get https://10.96.0.1:443/api/v1/namespaces?limit=500&resourceVersion=0: dial tcp 10.96.0.1:443: i/o timeout
E1226 08:54:19.152966       1 reflector.go:125] pkg/mod/k8s.io/client-go@v0.0.0-20190620085101-78d2af792bab/tools/cache/reflector.go:98: Failed to list *v1.Service: Get https://10.96.0.1:443/api/v1/services?limit=500&resourceVersion=0: dial tcp 10.96.0.1:443: i/o timeout
[INFO] plugin/ready: Still waiting on: "kubernetes"
[INFO] plugin/ready: Still waiting on: "kubernetes"
`,
		want: "dial tcp 10.96.0.1:443: i/o timeout", signal: SigTimeout, ent: ents{endpoint: "10.96.0.1:443"},
	},
}
