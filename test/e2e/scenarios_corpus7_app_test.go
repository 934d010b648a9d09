package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A seventh batch of application-side scenarios from real material (issue
// threads): a pod's own log, or a dependency's, says why it does not start.
// Registered only with KUBECTL_TRIAGE_CORPUS7 set: each was run once
// against a fixed build and the comment above it says how that went.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_CORPUS7") != "" {
		register(c7app...)
	}
}

// c7appCrash is the status of a pod whose container crash-loops with exit
// code, restarted restarts times, running image.
func c7appCrash(container, image string, code int32, restarts int32) corev1.PodStatus {
	st := crashStatus(container, code, "Error", restarts)
	st.ContainerStatuses[0].Image = image
	st.ContainerStatuses[0].ImageID = image + "@sha256:7c"
	st.PodIP, st.PodIPs = "10.244.0.71", []corev1.PodIP{{IP: "10.244.0.71"}}
	return st
}

// c7appSts creates StatefulSet name (replicas wanted, governed by headless
// Service svc, or name when svc is "") whose template's first container
// is container running image, with its status as the controller leaves it
// when ordinal 0 is not Ready, and that pod with status. mutate edits the
// template.
func c7appSts(t *testing.T, c *testcluster.Cluster, ns, name, svc, container, image string, replicas int32, policy appsv1.PodManagementPolicyType, status corev1.PodStatus, mutate func(*corev1.PodSpec)) (*appsv1.StatefulSet, *corev1.Pod) {
	t.Helper()
	labels := map[string]string{"app.kubernetes.io/name": name}
	if svc == "" {
		svc = name
	}
	c4bService(t, c, ns, svc, labels, []corev1.ServicePort{c4bPort("tcp", 80, intstr.FromInt32(80))}, func(s *corev1.Service) {
		s.Spec.ClusterIP = corev1.ClusterIPNone
		s.Spec.PublishNotReadyAddresses = true
	})
	sts := c4bStatefulSet(t, c, ns, name, svc, labels, image, replicas, policy, func(s *corev1.PodSpec) {
		s.Containers[0].Name = container
		if mutate != nil {
			mutate(s)
		}
	})
	sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
		CurrentRevision: name + "-7b9d5c6f8d", UpdateRevision: name + "-7b9d5c6f8d", CollisionCount: ptr(int32(0))}
	c.SetObjectStatus(t, sts)
	return sts, c4bStatefulPod(t, c, sts, 0, status)
}

// c7appBackOff records the kubelet's BackOff event for container.
func c7appBackOff(t *testing.T, c *testcluster.Cluster, p *corev1.Pod, container string, count int32) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: count, First: time.Now().Add(-40 * time.Minute), FieldPath: "spec.containers{" + container + "}",
		Message: fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", container, p.Name, p.Namespace, p.UID)})
}

// c7appClaimMount mounts the bound claim at path in the first container.
func c7appClaimMount(claim, path string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "data", VolumeSource: c4aClaimSource(claim)})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: path})
	}
}

var c7app = []scenario{
	{
		// First round: hit.
		//
		// A Celery Flower Deployment and its Service are both named
		// "flower": the kubelet injects FLOWER_PORT=tcp://<cluster IP>:8080
		// into the pod, and Flower reads every FLOWER_* variable as an
		// option, so it parses the URL as the port number and exits.
		name:   "real-flower-port-injected-by-service-flower",
		source: "https://github.com/ascoderu/lokole/pull/191 (the flower pod crashes: apply_env_options, value = option.type(value), ValueError: invalid literal for int() with base 10: 'tcp://10.0.75.166:8080'; k8s auto-injects FLOWER_PORT=tcp://10.0.75.166:8080 which flower reads); https://github.com/mher/flower/issues/738 (naming the Kubernetes deployment/service \"flower\" sets FLOWER_PORT, which clashes with Flower's FLOWER_x_y_z environment options)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			svc := c4bService(t, c, ns, "flower", map[string]string{"app": "flower"}, []corev1.ServicePort{c4bPort("http", 8080, intstr.FromInt32(8080))})
			ip := svc.Spec.ClusterIP
			log := c5Lines(
				"Traceback (most recent call last):",
				`  File "/usr/local/bin/flower", line 10, in <module>`,
				"    sys.exit(main())",
				`  File "/usr/local/lib/python3.6/site-packages/flower/__main__.py", line 11, in main`,
				"    flower.execute_from_commandline()",
				`  File "/usr/local/lib/python3.6/site-packages/celery/bin/base.py", line 298, in execute_from_commandline`,
				"    return self.handle_argv(self.prog_name, argv[1:])",
				`  File "/usr/local/lib/python3.6/site-packages/flower/command.py", line 56, in handle_argv`,
				"    return self.run_from_argv(prog_name, argv)",
				`  File "/usr/local/lib/python3.6/site-packages/flower/command.py", line 33, in run_from_argv`,
				"    self.apply_env_options()",
				`  File "/usr/local/lib/python3.6/site-packages/flower/command.py", line 71, in apply_env_options`,
				"    value = option.type(value)",
				"ValueError: invalid literal for int() with base 10: 'tcp://"+ip+":8080'",
			)
			pods := c2CrashDeployment(t, c, ns, "flower", "ascoderu/opwenserver_app:0.3.2", 8080, 1, log, func(s *corev1.PodSpec) {
				s.Containers[0].Command = []string{"flower"}
				s.Containers[0].Args = []string{"--broker=amqp://guest:guest@rabbitmq:5672//", "--port=8080"}
			})
			c4bSlice(t, c, ns, "flower", c4bSlicePort("http", 8080), pods...)
			return []string{"pod/" + pods[0].Name}
		},
		category: "CrashLoop",
		culprit:  []string{"FLOWER_PORT", "enableServiceLinks"},
	},
	{
		// First round: MISS. Today: CrashLoop/Exit62 (0.60) "container mongod
		// crash-loops with exit code 62", no log line quoted at all.
		// Missing: reading MongoDB's structured JSON log (a record with
		// "s":"F", fatal, whose msg and attr.error say why) as the fatal
		// line, and knowing mongod's exit code 62 (need upgrade: data files
		// or featureCompatibilityVersion too old for this binary).
		//
		// mongod 6.0 started on data files whose featureCompatibilityVersion
		// is still 4.4 (the 5.0 step never set it): it refuses to start.
		name:   "real-mongodb-6-data-fcv-still-4-4",
		source: "https://github.com/mongodb/mongodb-kubernetes-operator/issues/1478 (upgrading 5.0.26 to 6.0.14 on Kubernetes: \"Wrong mongod version\",\"attr\":{\"error\":\"UPGRADE PROBLEM: Found an invalid featureCompatibilityVersion document (ERROR: Location4926900: Invalid featureCompatibilityVersion document in admin.system.version: { _id: \\\"featureCompatibilityVersion\\\", version: \\\"4.4\\\" }...; the FCV stored in the database was not updated); the same F/CONTROL id 20573 line in CrashLoopBackOff pods in https://github.com/ibm-mas/ansible-devops/issues/1507",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/mongo:6.0.14"
			c4aClaim(t, c, ns, "data-volume-mongodb-0", "gp2", "ebs.csi.aws.com", "10Gi")
			_, p := c7appSts(t, c, ns, "mongodb", "", "mongod", image, 1, appsv1.OrderedReadyPodManagement, c7appCrash("mongod", image, 62, 9), func(s *corev1.PodSpec) {
				c7appClaimMount("data-volume-mongodb-0", "/data")(s)
				s.Containers[0].Args = []string{"--bind_ip_all", "--replSet", "mongodb", "--dbpath", "/data"}
			})
			c.SetLogs(ns, p.Name, "mongod", true, c5Lines(
				`{"t":{"$date":"2024-03-26T09:14:02.118+00:00"},"s":"I",  "c":"CONTROL",  "id":4615611, "ctx":"initandlisten","msg":"MongoDB starting","attr":{"pid":1,"port":27017,"dbPath":"/data","architecture":"64-bit","host":"mongodb-0"}}`,
				`{"t":{"$date":"2024-03-26T09:14:02.118+00:00"},"s":"I",  "c":"CONTROL",  "id":23403,   "ctx":"initandlisten","msg":"Build Info","attr":{"buildInfo":{"version":"6.0.14","gitVersion":"25225db95574916fecab3af75b184409f8713aef"}}}`,
				`{"t":{"$date":"2024-03-26T09:14:03.912+00:00"},"s":"F",  "c":"CONTROL",  "id":20573,   "ctx":"initandlisten","msg":"Wrong mongod version","attr":{"error":"UPGRADE PROBLEM: Found an invalid featureCompatibilityVersion document (ERROR: Location4926900: Invalid featureCompatibilityVersion document in admin.system.version: { _id: \"featureCompatibilityVersion\", version: \"4.4\" }. See https://docs.mongodb.com/master/release-notes/5.0-compatibility/#feature-compatibility. :: caused by :: Invalid feature compatibility version value, expected '5.0' or '5.3' or '6.0. See https://docs.mongodb.com/master/release-notes/5.0-compatibility/#feature-compatibility.). If the current featureCompatibilityVersion is below 5.0, see the documentation on upgrading at https://docs.mongodb.com/master/release-notes/5.0/#upgrade-procedures."}}`,
				`{"t":{"$date":"2024-03-26T09:14:03.912+00:00"},"s":"I",  "c":"REPL",     "id":4784900, "ctx":"initandlisten","msg":"Stepping down the ReplicationCoordinator for shutdown","attr":{"waitTimeMillis":15000}}`,
				`{"t":{"$date":"2024-03-26T09:14:03.950+00:00"},"s":"I",  "c":"CONTROL",  "id":20565,   "ctx":"initandlisten","msg":"Now exiting"}`,
				`{"t":{"$date":"2024-03-26T09:14:03.950+00:00"},"s":"I",  "c":"CONTROL",  "id":23138,   "ctx":"initandlisten","msg":"Shutting down","attr":{"exitCode":62}}`,
			))
			c.SetLogs(ns, p.Name, "mongod", false, "")
			c7appBackOff(t, c, p, "mongod", 44)
			return []string{"pod/mongodb-0"}
		},
		category: "CrashLoop",
		culprit:  []string{"featureCompatibilityVersion", "4.4"},
	},
	{
		// First round: MISS. Today: CrashLoop/Exit1/FatalError (0.90), the
		// final "not uploading as no external labels are configured yet ...
		// aborting as no external labels found after waiting 10m0s" error
		// quoted. Missing: when the fatal line is a timeout waiting for a
		// condition, look back at the warning repeated until then, which
		// says why the condition never held (unknown scrape protocol
		// PrometheusText1.0.0), and compare the sidecar's image version with
		// the neighbouring container's (Thanos v0.36.1, Prometheus v3.0.0).
		//
		// Prometheus 3.0 beside a Thanos 0.36.1 sidecar: the sidecar cannot
		// parse the new default scrape protocol in Prometheus' config, so it
		// never loads the external labels, gives up after 10m and exits;
		// the Prometheus container itself is fine.
		name:   "real-thanos-sidecar-0-36-prometheus-3-scrape-protocol",
		source: "https://github.com/thanos-io/thanos/issues/7923 (Prometheus 3.0.0 with Thanos 0.36.1: level=error err=\"not uploading as no external labels are configured yet - is Prometheus healthy/reachable?...aborting as no external labels found after waiting 10m0s...sidecar command failed\"); the warning that explains it as in https://github.com/prometheus-operator/prometheus-operator/issues/7078 (caller=sidecar.go:239 level=warn msg=\"failed to fetch initial external labels. Is Prometheus running? Retrying\" err=\"parse Prometheus config: ... scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config\"); fixed by https://github.com/thanos-io/thanos/pull/7893",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			promImage, thanosImage := "quay.io/prometheus/prometheus:v3.0.0", "quay.io/thanos/thanos:v0.36.1"
			st := wlReadyStatus("prometheus", promImage, 3*time.Hour)
			st.Conditions = notReadyConditions()
			side := c7appCrash("thanos-sidecar", thanosImage, 1, 17).ContainerStatuses[0]
			side.LastTerminationState.Terminated.StartedAt, side.LastTerminationState.Terminated.FinishedAt = minutesAgo(13), minutesAgo(3)
			st.ContainerStatuses = append(st.ContainerStatuses, side)
			_, p := c7appSts(t, c, ns, "prometheus-k8s", "", "prometheus", promImage, 1, appsv1.ParallelPodManagement, st, func(s *corev1.PodSpec) {
				s.Containers[0].Args = []string{"--config.file=/etc/prometheus/config_out/prometheus.env.yaml", "--storage.tsdb.path=/prometheus", "--web.enable-lifecycle"}
				s.Containers = append(s.Containers, corev1.Container{Name: "thanos-sidecar", Image: thanosImage,
					Args: []string{"sidecar", "--prometheus.url=http://localhost:9090/", "--grpc-address=:10901", "--http-address=:10902", "--tsdb.path=/prometheus", "--objstore.config-file=/etc/thanos/objstore.yaml"}})
			})
			c.SetLogs(ns, p.Name, "prometheus", false, c5Lines(
				`time=2024-11-18T09:02:11.482Z level=INFO source=main.go:1290 msg="Loading configuration file" filename=/etc/prometheus/config_out/prometheus.env.yaml`,
				`time=2024-11-18T09:02:11.490Z level=INFO source=main.go:1053 msg="Server is ready to receive web requests."`,
			))
			cfg := `global:\n  scrape_interval: 30s\n  scrape_timeout: 10s\n  scrape_protocols:\n  - OpenMetricsText1.0.0\n  - OpenMetricsText0.0.1\n  - PrometheusText1.0.0\n  - PrometheusText0.0.4\n  evaluation_interval: 30s\n  external_labels:\n    prometheus: monitoring/k8s\n    prometheus_replica: prometheus-k8s-0\nruntime:\n  gogc: 75\nrule_files:\n- /etc/prometheus/rules/prometheus-k8s-rulefiles-0/*.yaml\n: scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config`
			var prev strings.Builder
			prev.WriteString(c5Lines(
				`ts=2024-11-18T11:52:06.438521924Z caller=options.go:26 level=info protocol=gRPC msg="disabled TLS, key and cert must be set to enable"`,
				`ts=2024-11-18T11:52:06.43907785Z caller=sidecar.go:426 level=info msg="starting sidecar"`,
				`ts=2024-11-18T11:52:06.439288815Z caller=intrumentation.go:75 level=info msg="changing probe status" status=healthy`,
				`ts=2024-11-18T11:52:06.439438114Z caller=http.go:73 level=info service=http/server component=sidecar msg="listening for requests and metrics" address=:10902`,
				`ts=2024-11-18T11:52:06.44209169Z caller=sidecar.go:223 level=info msg="successfully loaded prometheus version"`,
			))
			start := time.Date(2024, 11, 18, 11, 52, 6, 444183780, time.UTC)
			for i := 0; i < 20; i++ {
				fmt.Fprintf(&prev, "ts=%s caller=sidecar.go:239 level=warn msg=\"failed to fetch initial external labels. Is Prometheus running? Retrying\" err=\"parse Prometheus config: %s\"\n",
					start.Add(time.Duration(i)*30*time.Second).Format(time.RFC3339Nano), cfg)
			}
			prev.WriteString(c5Lines(
				`ts=2024-11-18T12:02:06.440176004Z caller=main.go:174 level=error err="not uploading as no external labels are configured yet - is Prometheus healthy/reachable?\nmain.runSidecar.func12.1\n\t/app/cmd/thanos/sidecar.go:397\ngithub.com/thanos-io/thanos/pkg/runutil.RetryWithLog\n\t/app/pkg/runutil/runutil.go:114\ngithub.com/thanos-io/thanos/pkg/runutil.Retry\n\t/app/pkg/runutil/runutil.go:104\nmain.runSidecar.func12\n\t/app/cmd/thanos/sidecar.go:395\ngithub.com/oklog/run.(*Group).Run.func1\n\t/go/pkg/mod/github.com/oklog/run@v1.1.0/group.go:38\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1650\naborting as no external labels found after waiting 10m0s\nmain.runSidecar.func12\n\t/app/cmd/thanos/sidecar.go:401\ngithub.com/oklog/run.(*Group).Run.func1\n\t/go/pkg/mod/github.com/oklog/run@v1.1.0/group.go:38\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1650\nsidecar command failed\nmain.main\n\t/app/cmd/thanos/main.go:171\nruntime.main\n\t/usr/local/go/src/runtime/proc.go:267\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1650"`,
			))
			c.SetLogs(ns, p.Name, "thanos-sidecar", true, prev.String())
			c.SetLogs(ns, p.Name, "thanos-sidecar", false, "")
			c7appBackOff(t, c, p, "thanos-sidecar", 12)
			return []string{"pod/prometheus-k8s-0"}
		},
		category: "CrashLoop",
		culprit:  []string{"PrometheusText1.0.0"},
	},
	{
		// First round: MISS. Today: CrashLoop/Exit1 (0.70), culprit the last
		// ERROR line ("For more details run the same command passing the
		// '--verbose' option ..."). Missing: skipping hint/boilerplate error
		// lines (usage hints, "for more details", "failed to start") and
		// naming the most specific ERROR line of the final burst.
		//
		// Keycloak (Quarkus) started with `start` (production mode) and
		// neither a certificate nor http-enabled: it refuses to start. The
		// first ERROR line only says it failed; the second says why.
		name:   "real-keycloak-start-https-key-material-not-provided",
		source: "https://github.com/keycloak/keycloak/issues/12803 (Keycloak 18.0.0 in production mode: ERROR: Failed to start server in (production) mode / ERROR: Key material not provided to setup HTTPS. Please configure your keys/certificates or start the server in development mode. / For more details run the same command passing the '--verbose' option); on Kubernetes the keycloak pod in CrashLoopBackOff with the same message in https://github.com/keycloak/keycloak-benchmark/issues/231",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "quay.io/keycloak/keycloak:18.0.0"
			_, p := c7appSts(t, c, ns, "keycloak", "", "keycloak", image, 1, appsv1.OrderedReadyPodManagement, c7appCrash("keycloak", image, 1, 8), func(s *corev1.PodSpec) {
				s.Containers[0].Args = []string{"start", "--auto-build"}
				s.Containers[0].Env = []corev1.EnvVar{{Name: "KC_DB", Value: "postgres"}, {Name: "KC_DB_URL", Value: "jdbc:postgresql://postgres/keycloak"},
					{Name: "KC_HOSTNAME", Value: "keycloak.example.com"}, {Name: "KC_PROXY", Value: "edge"}}
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "https", ContainerPort: 8443}, {Name: "http", ContainerPort: 8080}}
			})
			c.SetLogs(ns, p.Name, "keycloak", true, c5Lines(
				"Updating the configuration and installing your custom providers, if any. Please wait.",
				"2022-06-29 04:31:58,011 INFO  [io.quarkus.deployment.QuarkusAugmentor] (main) Quarkus augmentation completed in 7902ms",
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) ERROR: Failed to start server in (production) mode",
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) ERROR: Key material not provided to setup HTTPS. Please configure your keys/certificates or start the server in development mode.",
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) For more details run the same command passing the '--verbose' option. Also you can use '--help' to see the details about the usage of the particular command.",
			))
			c.SetLogs(ns, p.Name, "keycloak", false, "")
			c7appBackOff(t, c, p, "keycloak", 31)
			return []string{"pod/keycloak-0"}
		},
		category: "CrashLoop",
		culprit:  []string{"Key material not provided to setup HTTPS"},
	},
	{
		// First round: MISS. Today: CrashLoop/Exit70 (0.70), the fatal
		// "Listen [::]:8123 failed ... Address family for hostname not
		// supported" line quoted, nothing on where the address comes from.
		// Missing: correlating a listen/bind failure on an address with the
		// mounted ConfigMap key that sets it (listen_host :: in
		// chi-posthog-common-configd), and reading "Address family ... not
		// supported" on [::] as IPv6 unavailable on the node.
		//
		// The ClickHouse operator's ConfigMap makes the server listen on
		// "::" only; the EKS nodes have IPv6 disabled, so the listen fails
		// and the server exits. The fatal line sits among shutdown lines.
		name:   "real-clickhouse-listen-host-ipv6-only-on-ipv4-node",
		source: "https://github.com/PostHog/charts-clickhouse/pull/282 (the clickhouse-operator config map bound only to ::; without IPv6 on an AWS EKS cluster: <Error> Application: DB::Exception: Listen [::]:8123 failed: Poco::Exception. Code: 1000, e.code() = 0, e.displayText() = DNS error: EAI: Address family for hostname not supported (version 21.6.5.37 (official build)); fixed by listening on 0.0.0.0 too with listen_try); the surrounding shutdown lines as in https://github.com/ClickHouse/ClickHouse/issues/38266",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "yandex/clickhouse-server:21.6.5"
			c4aConfigMap(t, c, ns, "chi-posthog-common-configd", map[string]string{
				"01-clickhouse-01-listen.xml": "<yandex>\n    <!-- Listen wildcard address to allow accepting connections from other containers and host network. -->\n    <listen_host>::</listen_host>\n</yandex>\n",
				"01-clickhouse-02-logger.xml": "<yandex>\n    <logger>\n        <console>1</console>\n        <level>debug</level>\n    </logger>\n</yandex>\n",
			})
			_, p := c7appSts(t, c, ns, "chi-posthog-posthog-0-0", "", "clickhouse", image, 1, appsv1.OrderedReadyPodManagement, c7appCrash("clickhouse", image, 70, 11), func(s *corev1.PodSpec) {
				s.Volumes = append(s.Volumes, corev1.Volume{Name: "chi-posthog-common-configd", VolumeSource: c4aConfigMapSource("chi-posthog-common-configd")})
				s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "chi-posthog-common-configd", MountPath: "/etc/clickhouse-server/config.d/"})
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8123}, {Name: "client", ContainerPort: 9000}, {Name: "interserver", ContainerPort: 9009}}
			})
			c.SetLogs(ns, p.Name, "clickhouse", true, c5Lines(
				"2022.01.31 14:36:07.412260 [ 7 ] {} <Information> Application: Loading metadata from /var/lib/clickhouse/",
				"2022.01.31 14:36:07.431145 [ 7 ] {} <Information> DatabaseAtomic (system): Total 2 tables and 0 dictionaries.",
				"2022.01.31 14:36:07.560230 [ 7 ] {} <Trace> BackgroundSchedulePool/BgSchPool: Waiting for threads to finish.",
				"2022.01.31 14:36:07.571249 [ 7 ] {} <Debug> Application: Shut down storages.",
				"2022.01.31 14:36:07.583520 [ 7 ] {} <Debug> Application: Destroyed global context.",
				"2022.01.31 14:36:07.584143 [ 7 ] {} <Error> Application: DB::Exception: Listen [::]:8123 failed: Poco::Exception. Code: 1000, e.code() = 0, e.displayText() = DNS error: EAI: Address family for hostname not supported (version 21.6.5.37 (official build))",
				"2022.01.31 14:36:07.584292 [ 7 ] {} <Information> Application: shutting down",
				"2022.01.31 14:36:07.584303 [ 7 ] {} <Debug> Application: Uninitializing subsystem: Logging Subsystem",
				"2022.01.31 14:36:07.584405 [ 8 ] {} <Trace> BaseDaemon: Received signal -2",
				"2022.01.31 14:36:07.584466 [ 8 ] {} <Information> BaseDaemon: Stop SignalListener thread",
			))
			c.SetLogs(ns, p.Name, "clickhouse", false, "")
			c7appBackOff(t, c, p, "clickhouse", 52)
			return []string{"pod/chi-posthog-posthog-0-0-0"}
		},
		category: "CrashLoop",
		culprit:  []string{"[::]:8123", "listen_host"},
	},
	{
		// First round: hit.
		//
		// Healthy: ClickHouse on a node without IPv6 warns that it cannot
		// listen on [::] for each port, then listens on 0.0.0.0 and serves;
		// the maintainers: a warning, the server continues, no action.
		name:    "real-healthy-clickhouse-ipv6-listen-warnings",
		source:  "https://github.com/SigNoz/signoz/issues/2674 (<Warning> Application: Listen [::]:9009 failed: Poco::Exception. Code: 1000, e.code() = 0, DNS error: EAI: Address family for hostname not supported (version 23.7.3.14 (official build)). If it is an IPv6 or IPv4 address and your host has disabled IPv6 or IPv4, ... followed by <Information> Application: Listening for replica communication (interserver): http://0.0.0.0:9009); https://github.com/ClickHouse/ClickHouse/issues/20965 as quoted in https://github.com/bitnami/containers/pull/13146 (\"The server will print warning and continue to work if it is able to listen at least one of the addresses. No actions required.\")",
		healthy: true,
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "clickhouse/clickhouse-server:23.7.3.14-alpine"
			st := wlReadyStatus("clickhouse", image, 6*24*time.Hour)
			_, p := c7appSts(t, c, ns, "signoz-clickhouse", "", "clickhouse", image, 1, appsv1.OrderedReadyPodManagement, st, func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8123}, {Name: "client", ContainerPort: 9000}, {Name: "interserver", ContainerPort: 9009}}
				s.Containers[0].ReadinessProbe = rcHTTPProbe("/ping", 8123)
			})
			warn := "<Warning> Application: Listen [::]:%d failed: Poco::Exception. Code: 1000, e.code() = 0, DNS error: EAI: Address family for hostname not supported (version 23.7.3.14 (official build)). If it is an IPv6 or IPv4 address and your host has disabled IPv6 or IPv4, then consider to specify not disabled IPv4 or IPv6 address to listen in <listen_host> element of configuration file. Example for disabled IPv6: <listen_host>0.0.0.0</listen_host> . Example for disabled IPv4: <listen_host>::</listen_host>"
			c.SetLogs(ns, p.Name, "clickhouse", false, c5Lines(
				"2023.10.20 07:22:39.628305 [ 1 ] {} <Information> CertificateReloader: One of paths is empty. Cannot apply new configuration for certificates. Fill all paths and try again.",
				"2023.10.20 07:22:39.628860 [ 1 ] {} "+fmt.Sprintf(warn, 9009),
				"2023.10.20 07:22:39.628980 [ 1 ] {} <Information> Application: Listening for replica communication (interserver): http://0.0.0.0:9009",
				"2023.10.20 07:22:39.631504 [ 1 ] {} <Warning> Access(local directory): File /var/lib/clickhouse/access/users.list doesn't exist",
				"2023.10.20 07:22:39.631528 [ 1 ] {} <Warning> Access(local directory): Recovering lists in directory /var/lib/clickhouse/access/",
				"2023.10.20 07:22:39.712236 [ 1 ] {} "+fmt.Sprintf(warn, 8123),
				"2023.10.20 07:22:39.712301 [ 1 ] {} "+fmt.Sprintf(warn, 9000),
				"2023.10.20 07:22:39.712398 [ 1 ] {} <Information> Application: Listening for http://0.0.0.0:8123",
				"2023.10.20 07:22:39.712457 [ 1 ] {} <Information> Application: Listening for native protocol (tcp): 0.0.0.0:9000",
				"2023.10.20 07:22:39.712823 [ 1 ] {} <Information> Application: Ready for connections.",
			))
			return []string{"pod/signoz-clickhouse-0"}
		},
	},
	{
		// First round: hit (category and both facts named), though the
		// report's reading is off: CrashLoop/Exit100/MissingEnv (0.90) "the
		// application requires an environment variable that is unset or
		// empty (environment variable DC)", taking the "$(DC)" recorded in
		// the data on the claim for an unset variable, where the cause is
		// that data's data center differing from CASSANDRA_DC=MYDC.
		//
		// Cassandra's system keyspace on the claim records the data center
		// "$(DC)" from an earlier start; the snitch now says MYDC, and
		// Cassandra refuses to start. The first ERROR line is generic.
		name:   "real-cassandra-snitch-dc-differs-from-data-on-claim",
		source: "https://github.com/docker-library/cassandra/issues/57 (a Cassandra 2.2.8 StatefulSet on Kubernetes with CASSANDRA_ENDPOINT_SNITCH=GossipingPropertyFileSnitch, CASSANDRA_DC=MYDC, CASSANDRA_RACK=Kong-Rack1: Cannot start node if snitch's data center (MYDC) differs from previous data center ($(DC)). Please fix the snitch configuration, decommission and rebootstrap this node or use the flag -Dcassandra.ignore_dc=true.); the stack (SystemKeyspace.checkHealth, CassandraDaemon.setup) as in https://github.com/thinkaurelius/titan/issues/1272",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "cassandra:2.2.8"
			c4aClaim(t, c, ns, "cassandra-data-cassandra-0", "standard", "pd.csi.storage.gke.io", "10Gi")
			_, p := c7appSts(t, c, ns, "cassandra", "", "cassandra", image, 3, appsv1.OrderedReadyPodManagement, c7appCrash("cassandra", image, 100, 7), func(s *corev1.PodSpec) {
				c7appClaimMount("cassandra-data-cassandra-0", "/var/lib/cassandra")(s)
				for _, kv := range [][2]string{{"CASSANDRA_SEEDS", "cassandra-0.cassandra,cassandra-1.cassandra,cassandra-2.cassandra"},
					{"CASSANDRA_ENDPOINT_SNITCH", "GossipingPropertyFileSnitch"}, {"CASSANDRA_CLUSTER_NAME", "Kong"},
					{"CASSANDRA_DC", "MYDC"}, {"CASSANDRA_RACK", "Kong-Rack1"}} {
					s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: kv[0], Value: kv[1]})
				}
			})
			c.SetLogs(ns, p.Name, "cassandra", true, c5Lines(
				"INFO  09:40:11 Loading settings from file:/etc/cassandra/cassandra.yaml",
				"INFO  09:40:12 Node configuration:[authenticator=AllowAllAuthenticator; authorizer=AllowAllAuthorizer; cluster_name=Kong; endpoint_snitch=GossipingPropertyFileSnitch; seed_provider=org.apache.cassandra.locator.SimpleSeedProvider{seeds=cassandra-0.cassandra,cassandra-1.cassandra,cassandra-2.cassandra}]",
				"WARN  09:40:13 Unable to lock JVM memory (ENOMEM). This can result in part of the JVM being swapped out, especially with mmapped I/O enabled. Increase RLIMIT_MEMLOCK or run Cassandra as root.",
				"INFO  09:40:21 Initializing system.local",
				"ERROR 09:40:25 Fatal exception during initialization",
				"org.apache.cassandra.exceptions.ConfigurationException: Cannot start node if snitch's data center (MYDC) differs from previous data center ($(DC)). Please fix the snitch configuration, decommission and rebootstrap this node or use the flag -Dcassandra.ignore_dc=true.",
				"\tat org.apache.cassandra.db.SystemKeyspace.checkHealth(SystemKeyspace.java:734) ~[apache-cassandra-2.2.8.jar:2.2.8]",
				"\tat org.apache.cassandra.service.CassandraDaemon.setup(CassandraDaemon.java:291) [apache-cassandra-2.2.8.jar:2.2.8]",
				"\tat org.apache.cassandra.service.CassandraDaemon.activate(CassandraDaemon.java:551) [apache-cassandra-2.2.8.jar:2.2.8]",
				"\tat org.apache.cassandra.service.CassandraDaemon.main(CassandraDaemon.java:679) [apache-cassandra-2.2.8.jar:2.2.8]",
			))
			c.SetLogs(ns, p.Name, "cassandra", false, "")
			c7appBackOff(t, c, p, "cassandra", 27)
			return []string{"pod/cassandra-0"}
		},
		category: "CrashLoop",
		culprit:  []string{"MYDC", "$(DC)"},
	},
	{
		// First round: MISS. Today: Probe/Readiness/CommandFailed (0.75), the
		// readiness probe's "RabbitMQ on node ... is not running or has not
		// fully booted yet" output. Missing: the StatefulSet correlation it
		// makes for quorum pods (zk), from the pod's side: a not-Ready
		// ordinal 0 whose log waits for a peer ordinal (Waiting for Mnesia
		// tables ... rabbitmq-1) that OrderedReady does not create until
		// ordinal 0 is Ready. (Renamed after the run: its first name,
		// real-rabbitmq-0-waits-for-rabbitmq-1-ordered-ready, put
		// "rabbitmq-1" in the namespace, so that culprit matched trivially.)
		//
		// Running, not Ready: both RabbitMQ pods were deleted; rabbitmq-0
		// came back first and waits for its peer rabbitmq-1 to sync the
		// Mnesia tables, but with OrderedReady the StatefulSet creates
		// rabbitmq-1 only once rabbitmq-0 is Ready.
		name:   "real-rabbitmq-mnesia-peer-never-created-ordered-ready",
		source: "https://github.com/bitnami/charts/issues/8056 (replicaCount=2 on AKS, both pods deleted: rabbitmq-0 is recreated but waits for rabbit@rabbitmq-1.rabbitmq-headless.rabbitmq.svc.cluster.local; rabbitmq-1 is never recreated, the StatefulSet waiting for rabbitmq-0 to be Ready); the log lines as in https://github.com/bitnami/charts/issues/25698 (Waiting for Mnesia tables for 30000 ms, 8 retries left / Error while waiting for Mnesia tables: {timeout_waiting_for_tables, ...}); the probe output as in https://github.com/bitnami/charts/issues/9567; fix podManagementPolicy: Parallel (https://github.com/helm/charts/pull/12879, https://github.com/rabbitmq/cluster-operator/issues/609)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/bitnami/rabbitmq:3.9.8-debian-10-r0"
			host := "rabbitmq-headless." + ns + ".svc.cluster.local"
			c4aClaim(t, c, ns, "data-rabbitmq-0", "default", "disk.csi.azure.com", "8Gi")
			probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/bash", "-ec", "rabbitmq-diagnostics -q check_running && rabbitmq-diagnostics -q check_local_alarms"}}},
				InitialDelaySeconds: 10, PeriodSeconds: 30, TimeoutSeconds: 20, FailureThreshold: 3, SuccessThreshold: 1}
			st := wlReadyStatus("rabbitmq", image, 4*time.Minute)
			st.Conditions = notReadyConditions()
			st.ContainerStatuses[0].Ready = false
			st.ContainerStatuses[0].RestartCount = 2
			st.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: minutesAgo(10), FinishedAt: minutesAgo(4), ContainerID: "containerd://rq1"}}
			_, p := c7appSts(t, c, ns, "rabbitmq", "rabbitmq-headless", "rabbitmq", image, 2, appsv1.OrderedReadyPodManagement, st, func(s *corev1.PodSpec) {
				c7appClaimMount("data-rabbitmq-0", "/bitnami/rabbitmq/mnesia")(s)
				s.Containers[0].ReadinessProbe = probe
				s.Containers[0].Env = []corev1.EnvVar{{Name: "RABBITMQ_NODE_NAME", Value: "rabbit@$(MY_POD_NAME).rabbitmq-headless.$(MY_POD_NAMESPACE).svc.cluster.local"},
					{Name: "RABBITMQ_USE_LONGNAME", Value: "true"}, {Name: "RABBITMQ_FORCE_BOOT", Value: "no"}}
			})
			node := func(i int) string { return fmt.Sprintf("'rabbit@rabbitmq-%d.%s'", i, host) }
			wait := func(ts string, left int) string {
				pad := ts + " [warning] <0.235.0>                                         "
				return c5Lines(
					fmt.Sprintf("%s [info] <0.235.0> Waiting for Mnesia tables for 30000 ms, %d retries left", ts, left),
					ts+" [warning] <0.235.0> Error while waiting for Mnesia tables: {timeout_waiting_for_tables,",
					pad+"["+node(1)+",",
					pad+" "+node(0)+"],",
					pad+"[rabbit_user,rabbit_user_permission,",
					pad+" rabbit_topic_permission,rabbit_vhost,",
					pad+" rabbit_durable_route,",
					pad+" rabbit_durable_exchange,",
					pad+" rabbit_runtime_parameters,",
					pad+" rabbit_durable_queue]}",
				)
			}
			log := c5Lines(
				"rabbitmq 11:02:41.12 INFO  ==> ** Starting RabbitMQ setup **",
				"rabbitmq 11:02:41.30 INFO  ==> ** RabbitMQ setup finished! **",
				"",
				"rabbitmq 11:02:41.33 INFO  ==> ** Starting RabbitMQ **",
				"2021-11-08 11:02:47.522 [info] <0.235.0> Feature flags: feature flag states written to disk: yes",
				"2021-11-08 11:02:47.729 [info] <0.235.0> Running boot step pre_boot defined by app rabbit",
				"2021-11-08 11:02:48.103 [info] <0.235.0> Running boot step database defined by app rabbit",
			) + wait("2021-11-08 11:02:48.301", 9) + wait("2021-11-08 11:03:18.302", 8) + wait("2021-11-08 11:03:48.303", 7) +
				c5Lines("2021-11-08 11:04:18.304 [info] <0.235.0> Waiting for Mnesia tables for 30000 ms, 6 retries left")
			c.SetLogs(ns, p.Name, "rabbitmq", false, log)
			c.SetLogs(ns, p.Name, "rabbitmq", true, log)
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "Unhealthy", Count: 23, First: time.Now().Add(-10 * time.Minute), FieldPath: "spec.containers{rabbitmq}",
				Message: "Readiness probe failed: Error:\nRabbitMQ on node rabbit@rabbitmq-0." + host + " is not running or has not fully booted yet (check with is_booting)"})
			return []string{"pod/rabbitmq-0"}
		},
		category: "StatefulSet",
		culprit:  []string{"rabbitmq-1", "OrderedReady"},
	},
	{
		// First round: hit.
		//
		// loki-distributed's table-manager: the chart runs Loki with a
		// read-only root filesystem and mounts nothing at /var/loki, where
		// the config keeps its index directory: mkdir fails at start.
		name:   "real-loki-table-manager-mkdir-var-loki-read-only",
		source: "https://github.com/grafana/helm-charts/issues/737 (loki-distributed table-manager: level=error caller=log.go:106 msg=\"error running loki\" err=\"mkdir /var/loki: read-only file system\\nerror initialising module: table-manager...\", after the DEPRECATED -store.max-look-back-period warning), also https://github.com/grafana/loki/issues/4466 and, for the querier, https://github.com/grafana/loki/issues/5092",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/grafana/loki:2.3.0"
			c4aConfigMap(t, c, ns, "loki-loki-distributed", map[string]string{"config.yaml": "auth_enabled: false\nserver:\n  http_listen_port: 3100\nschema_config:\n  configs:\n  - from: \"2020-09-07\"\n    store: boltdb-shipper\n    object_store: filesystem\n    schema: v11\n    index:\n      prefix: loki_index_\n      period: 24h\nstorage_config:\n  boltdb_shipper:\n    shared_store: filesystem\n    active_index_directory: /var/loki/index\n    cache_location: /var/loki/cache\n    cache_ttl: 168h\n  filesystem:\n    directory: /var/loki/chunks\nchunk_store_config:\n  max_look_back_period: 0s\ntable_manager:\n  retention_deletes_enabled: false\n  retention_period: 0s\n"})
			log := c5Lines(
				`level=warn ts=2021-10-11T15:34:14.155064403Z caller=store.go:91 msg="running with DEPRECATED flag -store.max-look-back-period, use -querier.max-query-lookback instead."`,
				`level=info ts=2021-10-11T15:34:14.157149941Z caller=main.go:129 msg="Starting Loki" version="(version=, branch=, revision=)"`,
				`level=info ts=2021-10-11T15:34:14.157870211Z caller=server.go:239 http=[::]:3100 grpc=[::]:9095 msg="server listening on addresses"`,
				`level=error ts=2021-10-11T15:34:14.15831012Z caller=log.go:106 msg="error running loki" err="mkdir /var/loki: read-only file system\nerror initialising module: table-manager\ngithub.com/cortexproject/cortex/pkg/util/modules.(*Manager).initModule\n\t/src/loki/vendor/github.com/cortexproject/cortex/pkg/util/modules/modules.go:105\ngithub.com/cortexproject/cortex/pkg/util/modules.(*Manager).InitModuleServices\n\t/src/loki/vendor/github.com/cortexproject/cortex/pkg/util/modules/modules.go:75\ngithub.com/grafana/loki/pkg/loki.(*Loki).Run\n\t/src/loki/pkg/loki/loki.go:241\nmain.main\n\t/src/loki/cmd/loki/main.go:131\nruntime.main\n\t/usr/local/go/src/runtime/proc.go:225\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1371"`,
			)
			tmpl := c2Template("loki-table-manager", "table-manager", image, 3100, func(s *corev1.PodSpec) {
				s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr(int64(10001)), RunAsGroup: ptr(int64(10001)), FSGroup: ptr(int64(10001)), RunAsNonRoot: ptr(true)}
				s.Containers[0].Args = []string{"-config.file=/etc/loki/config/config.yaml", "-target=table-manager"}
				s.Containers[0].SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr(true), AllowPrivilegeEscalation: ptr(false),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
				s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: c4aConfigMapSource("loki-loki-distributed")}}
				s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/loki/config"}}
			})
			st := c7appCrash("table-manager", image, 1, 9)
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "loki-table-manager", Replicas: 1, Template: &tmpl, PodStatus: st})
			for _, p := range pods {
				c.SetLogs(ns, p.Name, "table-manager", true, log)
				c.SetLogs(ns, p.Name, "table-manager", false, "")
				c7appBackOff(t, c, p, "table-manager", 38)
			}
			return []string{"pod/" + pods[0].Name}
		},
		category: "CrashLoop",
		culprit:  []string{"/var/loki", "readOnlyRootFilesystem"},
	},
}
