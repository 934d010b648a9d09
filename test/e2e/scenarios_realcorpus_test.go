package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func init() {
	register(realCorpusScenarios...)
	// The known misses are not part of the corpus: the builtin investigator
	// gets them wrong today. KUBECTL_TRIAGE_REAL_MISSES=1 registers them, to
	// watch a fix turn them green before they are captured.
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(realCorpusMisses...)
	}
}

// Scenarios whose log lines and messages are taken from public bug reports
// (the source field cites each), not written from the rules' own phrasing.

// rcCrashPod creates a bare pod "name" crash-looping with exit code and the
// previous instance's log, as the kubelet leaves it.
func rcCrashPod(t *testing.T, c *testcluster.Cluster, ns, name string, code int32, log string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Status = crashStatus("app", code, "Error", 6)
	}}, mutate...)...))
	c.SetLogs(ns, name, "app", true, log)
	c.SetLogs(ns, name, "app", false, "")
	c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 27, First: time.Now().Add(-25 * time.Minute), FieldPath: "spec.containers{app}",
		Message: fmt.Sprintf("Back-off restarting failed container app in pod %s_%s(%s)", name, ns, p.UID)})
	return p
}

func rcImage(image string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = image
		for i := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[i].Image = image
		}
	}
}

func rcNonRoot(uid int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr(uid), RunAsNonRoot: ptr(true)}
	}
}

func rcPort(port int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}}
	}
}

// rcPVCMount mounts a bound PVC "claim" at path.
func rcPVCMount(claim, path string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: path})
	}
}

// rcReadyStatus is a pod serving and Ready, restarted restarts times; with
// last, the previous instance ended that way at that time.
func rcReadyStatus(image string, restarts int32, last *corev1.ContainerStateTerminated) corev1.PodStatus {
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(60)}
	}
	st := corev1.ContainerStatus{Name: "app", Image: image, ImageID: image + "@sha256:03", ContainerID: "containerd://h1",
		Ready: true, Started: ptr(true), RestartCount: restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(3 * 24 * 60)}}}
	if last != nil {
		st.LastTerminationState = corev1.ContainerState{Terminated: last}
	}
	return corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.31", StartTime: ptr(minutesAgo(4 * 24 * 60)),
		Conditions:        []corev1.PodCondition{cond(corev1.PodScheduled), cond(corev1.PodInitialized), cond(corev1.ContainersReady), cond(corev1.PodReady)},
		ContainerStatuses: []corev1.ContainerStatus{st}}
}

func rcHTTPProbe(path string, port int) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt(port), Scheme: corev1.URISchemeHTTP}},
		PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1}
}

// rcWaiting is a pod whose only container waits with reason and message.
func rcWaiting(image, reason, message string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.22", StartTime: ptr(minutesAgo(20)),
		Conditions: notReadyConditions(),
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}},
	}
}

// rcEvent records a kubelet event about the pod's container app.
func rcEvent(t *testing.T, c *testcluster.Cluster, p *corev1.Pod, typ, reason, msg string, count int32) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: p, Type: typ, Reason: reason, Message: msg, Count: count,
		First: time.Now().Add(-20 * time.Minute), FieldPath: "spec.containers{app}"})
}

// rcHealthyPod creates a serving, Ready pod with the current log.
func rcHealthyPod(t *testing.T, c *testcluster.Cluster, ns, name, image, log string) {
	t.Helper()
	c.CreatePod(t, simplePod(name, func(p *corev1.Pod) {
		p.Namespace = ns
		p.Spec.Containers[0].Image = image
		p.Status = rcReadyStatus(image, 0, nil)
	}))
	c.SetLogs(ns, name, "app", false, log)
}

// realCorpusScenarios are new scenarios from real material, to be captured
// (make capture-scenarios) and then removed from here.
var realCorpusScenarios = []scenario{}

// realCorpusMisses are scenarios from real material whose expectation (what
// the material shows) the builtin investigator does not meet yet.
var realCorpusMisses = []scenario{
	// Diagnosed right (the init container and "waiting for myservice"),
	// but not capturable: the Root cause prints the init container's
	// running time to the second ("running for 15m0s"), which the live
	// replay sees a second later; maskClock masks "Ns ago", not durations.
	{
		name:   "real-init-container-waiting-for-service",
		source: "kubernetes/website content/en/docs/concepts/workloads/pods/init-containers.md (the myapp-pod example: init container looping 'waiting for myservice' until the Service exists; busybox nslookup wording)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("myapp-pod", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.InitContainers = []corev1.Container{{Name: "init-myservice", Image: "busybox:1.28",
					Command: []string{"sh", "-c", "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done"}}}
				p.Spec.Containers[0].Command = []string{"sh", "-c", "echo The app is running! && sleep 3600"}
				p.Status = corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.41", StartTime: ptr(minutesAgo(15)),
					Conditions: []corev1.PodCondition{
						{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(15)},
						{Type: corev1.PodInitialized, Status: corev1.ConditionFalse, Reason: "ContainersNotInitialized", Message: "containers with incomplete status: [init-myservice]", LastTransitionTime: minutesAgo(15)},
						{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: minutesAgo(15)},
						{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: minutesAgo(15)}},
					InitContainerStatuses: []corev1.ContainerStatus{{Name: "init-myservice", Image: "busybox:1.28", ImageID: "busybox@sha256:11", ContainerID: "containerd://i1",
						Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(15)}}}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "busybox:1.36",
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}}
			}))
			var log string
			for i := 0; i < 4; i++ {
				log += "Server:    10.96.0.10\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\n" +
					"nslookup: can't resolve 'myservice." + ns + ".svc.cluster.local'\nwaiting for myservice\n"
			}
			c.SetLogs(ns, "myapp-pod", "init-myservice", false, log)
			return []string{"pod/myapp-pod"}
		},
		category: "InitContainer",
		culprit:  []string{"myservice"},
	},
	{
		name:   "real-elasticsearch-max-map-count",
		source: "elastic/elasticsearch BootstrapChecks (\"max virtual memory areas vm.max_map_count [%d] is too low, increase to at least [%d]\"; exit 78) as reported in Elasticsearch-on-Kubernetes threads",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "es-master-0", 78, ""+
				"{\"@timestamp\":\"2024-05-01T10:00:01.000Z\", \"log.level\": \"INFO\", \"message\":\"bound or publishing to a non-loopback address, enforcing bootstrap checks\", \"ecs.version\": \"1.2.0\",\"service.name\":\"ES_ECS\",\"event.dataset\":\"elasticsearch.server\",\"log.logger\":\"org.elasticsearch.bootstrap.BootstrapChecks\"}\n"+
				"ERROR: [1] bootstrap checks failed. You must address the points described in the following [1] lines before starting Elasticsearch.\n"+
				"bootstrap check failure [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]\n"+
				"ERROR: Elasticsearch did not exit normally - check the logs at /usr/share/elasticsearch/logs/docker-cluster.log\n",
				rcImage("docker.elastic.co/elasticsearch/elasticsearch:8.13.0"), rcPort(9200))
			return []string{"pod/es-master-0"}
		},
		category: "CrashLoop/Exit78",
		culprit:  []string{"vm.max_map_count"},
	},
	{
		name:   "real-spring-hikari-pgjdbc-refused",
		source: "pgjdbc ConnectionFactoryImpl (\"Connection to {0} refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\") and HikariCP's HikariPool \"Exception during pool initialization.\"",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "billing", 1, ""+
				"2024-06-10 12:00:03.441  INFO 1 --- [           main] com.zaxxer.hikari.HikariDataSource       : HikariPool-1 - Starting...\n"+
				"2024-06-10 12:00:04.512 ERROR 1 --- [           main] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Exception during pool initialization.\n\n"+
				"org.postgresql.util.PSQLException: Connection to billing-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n"+
				"\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:342)\n"+
				"Caused by: java.net.ConnectException: Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n",
				rcImage("registry.example.com/shop/billing:4.1.0"), rcPort(8080))
			return []string{"pod/billing"}
		},
		category: "CrashLoop/Exit1/ConnectionRefused",
		culprit:  []string{"billing-db:5432"},
	},
	{
		name:   "real-scheduler-insufficient-memory-selector",
		source: "https://github.com/kubernetes/kubernetes/issues/86942 (default-scheduler FailedScheduling: Insufficient memory and node selector)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			msg := "0/12 nodes are available: 3 Insufficient memory, 9 node(s) didn't match node selector."
			p := c.CreatePod(t, simplePod("pt-4c12g-2", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.NodeSelector = map[string]string{"pool": "pt"}
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("12Gi")}
				p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
					Reason: "Unschedulable", Message: msg, LastTransitionTime: minutesAgo(11)}}}
			}))
			c.Event(t, testcluster.EventSpec{Object: p, Type: corev1.EventTypeWarning, Reason: "FailedScheduling", Count: 150, First: time.Now().Add(-11 * time.Minute),
				Component: "default-scheduler", Message: msg})
			return []string{"pod/pt-4c12g-2"}
		},
		category: "Unschedulable",
		culprit:  []string{"Insufficient memory"},
	},
	{
		name:   "real-rails-secret-key-base-renamed",
		source: "https://github.com/AlverezYari/phillips-homelab/pull/285 (Rails validate_secret_key_base after SECRET_KEY_BASE was renamed RAILS_SECRET_KEY_BASE)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "exchange-rails", 1, ""+
				"=> Booting Puma\n=> Rails 7.1.3 application starting in prod_k8s\n=> Run `bin/rails server --help` for more startup options\n"+
				"Exiting\n"+
				"/usr/local/bundle/gems/railties-7.1.3/lib/rails/application.rb:665:in `validate_secret_key_base': Missing `secret_key_base` for 'prod_k8s' environment, set this string with `bin/rails credentials:edit` (ArgumentError)\n"+
				"\tfrom /app/app/models/app_token.rb:2:in `<class:AppToken>'\n",
				rcImage("ghcr.io/alverezyari/exchange-rails:b9fb861"), rcPort(3000), func(p *corev1.Pod) {
					p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "RAILS_ENV", Value: "prod_k8s"}, {Name: "RAILS_SECRET_KEY_BASE", Value: "x"}}
				})
			return []string{"pod/exchange-rails"}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"SECRET_KEY_BASE"},
	},
	{
		name:   "real-kafka-client-broker-unavailable",
		source: "https://github.com/wurstmeister/kafka-docker/issues/294 and https://github.com/bitnami/charts/issues/24817 (org.apache.kafka.clients.NetworkClient warning)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			var log string
			for i := 0; i < 5; i++ {
				log += fmt.Sprintf("2024-05-02 08:14:0%d.702  WARN 1 --- [ad | producer-1] org.apache.kafka.clients.NetworkClient   : [Producer clientId=producer-1] Connection to node -1 (kafka.messaging.svc.cluster.local/10.96.18.40:9092) could not be established. Broker may not be available.\n", i)
			}
			log += "2024-05-02 08:15:00.011 ERROR 1 --- [           main] o.s.boot.SpringApplication               : Application run failed\n" +
				"org.apache.kafka.common.errors.TimeoutException: Topic orders not present in metadata after 60000 ms.\n"
			rcCrashPod(t, c, ns, "orders-producer", 1, log, rcImage("registry.example.com/shop/orders-producer:2.3.1"))
			return []string{"pod/orders-producer"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"10.96.18.40:9092"},
	},
	{
		name:   "real-spring-datasource-url-missing",
		source: "spring-projects/spring-boot DataSourceBeanCreationFailureAnalyzer (spring-boot-autoconfigure, jdbc): the failure analysis printed when spring.datasource.url is unset",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "catalog", 1, ""+
				"2024-02-11 09:30:02.114  INFO 1 --- [           main] c.e.catalog.CatalogApplication           : No active profile set, falling back to 1 default profile: \"default\"\n"+
				"2024-02-11 09:30:04.872  WARN 1 --- [           main] ConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'dataSource'\n"+
				"2024-02-11 09:30:04.920 ERROR 1 --- [           main] o.s.b.d.LoggingFailureAnalysisReporter   : \n\n"+
				"***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\n"+
				"Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.\n\n"+
				"Reason: Failed to determine a suitable driver class\n\n\nAction:\n\nConsider the following:\n"+
				"\tIf you want an embedded database (H2, HSQL or Derby), please put it on the classpath.\n"+
				"\tIf you have database settings to be loaded from a particular profile you may need to activate it (no profiles are currently active).\n",
				rcImage("registry.example.com/shop/catalog:1.8.0"), rcPort(8080))
			return []string{"pod/catalog"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"'url' attribute is not specified"},
	},
	{
		name:   "real-zap-json-dial-timeout",
		source: "go.uber.org/zap NewProductionEncoderConfig field names (level, ts, caller, msg, error) with Go net's dial error wording (net/net.go OpError: \"dial tcp ...: i/o timeout\")",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "sessions", 1, ""+
				`{"level":"info","ts":1714637640.101,"caller":"cmd/main.go:38","msg":"starting sessions service","version":"1.12.0"}`+"\n"+
				`{"level":"warn","ts":1714637640.102,"caller":"config/config.go:77","msg":"SESSION_TTL not set, using default","default":"24h"}`+"\n"+
				`{"level":"fatal","ts":1714637670.104,"caller":"cmd/main.go:51","msg":"failed to connect to redis","error":"dial tcp 10.96.112.4:6379: i/o timeout","stacktrace":"main.main\n\t/src/cmd/main.go:51\nruntime.main\n\t/usr/local/go/src/runtime/proc.go:271"}`+"\n",
				rcImage("registry.example.com/shop/sessions:1.12.0"), rcPort(8080))
			return []string{"pod/sessions"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"10.96.112.4:6379"},
	},
	{
		name:   "real-mimir-nginx-resolver-not-found",
		source: "https://github.com/grafana/mimir/issues/1669 (nginx [emerg] host not found in resolver kube-dns on an RKE2 cluster whose DNS Service is named differently)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "mimir-nginx", 1, ""+
				"/docker-entrypoint.sh: No files found in /docker-entrypoint.d/, skipping configuration\n"+
				"2022/04/10 07:38:01 [emerg] 1#1: host not found in resolver \"kube-dns.kube-system.svc.cluster.local\" in /etc/nginx/nginx.conf:25\n"+
				"nginx: [emerg] host not found in resolver \"kube-dns.kube-system.svc.cluster.local\" in /etc/nginx/nginx.conf:25\n",
				rcImage("nginxinc/nginx-unprivileged:1.19-alpine"), rcPort(8080))
			return []string{"pod/mimir-nginx"}
		},
		category: "CrashLoop/Exit1/DNS",
		culprit:  []string{"kube-dns.kube-system.svc.cluster.local"},
	},
	{
		name:   "real-nginx-upstream-host-not-found",
		source: "https://github.com/vishnoisuresh/netbox-kubernetes/issues/2 (nginx [emerg] host not found in upstream)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "nginx", 1, ""+
				"2018/02/26 20:08:22 [emerg] 1#1: host not found in upstream \"netbox\" in /etc/netbox-nginx/nginx.conf:21\n"+
				"nginx: [emerg] host not found in upstream \"netbox\" in /etc/netbox-nginx/nginx.conf:21\n",
				rcImage("nginx:1.13-alpine"), rcPort(80))
			return []string{"pod/nginx"}
		},
		category: "CrashLoop/Exit1/DNS",
		culprit:  []string{"netbox"},
	},
	{
		name:   "real-postgres-initdb-lost-found",
		source: "https://github.com/infrahq/infra/issues/3124 (postgres initdb on a PVC mount point)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "postgres", 1, ""+
				"The files belonging to this database system will be owned by user \"postgres\".\nThis user must also own the server process.\n\n"+
				"The database cluster will be initialized with locale \"en_US.utf8\".\nThe default database encoding has accordingly been set to \"UTF8\".\n"+
				"The default text search configuration will be set to \"english\".\n\nData page checksums are disabled.\n\n"+
				"initdb: error: directory \"/var/lib/postgresql/data\" exists but is not empty\n"+
				"It contains a lost+found directory, perhaps due to it being a mount point.\n"+
				"Using a mount point directly as the data directory is not recommended.\nCreate a subdirectory under the mount point.\n",
				rcImage("postgres:14"), rcPort(5432), rcPVCMount("postgres-data", "/var/lib/postgresql/data"))
			return []string{"pod/postgres"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"/var/lib/postgresql/data"},
	},
	{
		name:   "real-bunyan-json-listen-eacces",
		source: "https://github.com/thenets/docker-parsoid/issues/15 (service-runner bunyan JSON, level 60)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "parsoid", 1, ""+
				`{"name":"parsoid","hostname":"parsoid-547874b8cf-97t54","pid":1,"level":30,"msg":"master(1) initializing 1 workers","time":"2020-07-18T04:50:02.610Z","v":0}`+"\n"+
				`{"name":"parsoid","hostname":"parsoid-547874b8cf-97t54","pid":9,"level":60,"code":"EACCES","errno":"EACCES","syscall":"listen","address":"tcp://172.20.11.4:8000","port":-1,"levelPath":"fatal/service-runner/unhandled","msg":"listen EACCES: permission denied tcp://172.20.11.4:8000","time":"2020-07-18T04:50:02.710Z","v":0}`+"\n",
				rcImage("thenets/parsoid:0.11"), rcPort(8000))
			return []string{"pod/parsoid"}
		},
		category: "CrashLoop/Exit1/PermissionDenied",
		culprit:  []string{"listen EACCES"},
	},
	{
		name:   "real-quickwit-env-not-set",
		source: "https://github.com/quickwit-oss/helm-charts/pull/72 (quickwit config template rendering)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "quickwit-searcher-0", 1, ""+
				"failed to render config file template: environment variable `AWS_ACCESS_KEY_ID` is not set and no default value is provided\n",
				rcImage("quickwit/quickwit:0.7.1"), rcPort(7280))
			return []string{"pod/quickwit-searcher-0"}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"AWS_ACCESS_KEY_ID"},
	},
	{
		name:   "real-logrus-json-invalid-log-level",
		source: "https://github.com/cruise-automation/k-rail/issues/31 (logrus JSON formatter, fatal level)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "k-rail", 1, ""+
				`{"level":"fatal","msg":"invalid log level set: \u003cnil\u003e","time":"2019-11-13T03:45:45Z"}`+"\n",
				rcImage("cruise/k-rail:v1.1"), rcPort(10250))
			return []string{"pod/k-rail"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"invalid log level set"},
	},
	{
		name:   "real-rails-start-script-missing-binary",
		source: "https://github.com/pulumi/examples/issues/776 (bash wording for a missing script; exit 127)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "rails-app", 127, ""+
				"* CREATING DATABASE (first time only):\n/myapp/start: line 10: bin/rails: No such file or directory\n"+
				"* MIGRATING DATABASE (if needed):\n/myapp/start: line 12: bin/rails: No such file or directory\n"+
				"* RUNNING...\n/myapp/start: line 15: bin/rails: No such file or directory\n",
				rcImage("docker.io/pulumi/rails-todo:latest"), rcPort(3000), func(p *corev1.Pod) { p.Spec.Containers[0].Command = []string{"/myapp/start"} })
			return []string{"pod/rails-app"}
		},
		category: "CrashLoop/Exit127/CommandNotFound",
		culprit:  []string{"bin/rails"},
	},
	// Miss: Says "crash-loops with exit code 1 (general application error)"; should name POSTGRES_PASSWORD (the entrypoint's "You must specify POSTGRES_PASSWORD to a non-empty value" is not read as a missing variable).
	// --- Databases' own entrypoints -------------------------------------
	{
		name:   "real-postgres-password-unset",
		source: "https://github.com/mmumshad/example-voting-app-kubernetes-v2/issues/1 (docker-library/postgres docker-entrypoint.sh refusing to initialise without POSTGRES_PASSWORD; kubectl logs of the crash-looping pod)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			pods := c2CrashDeployment(t, c, ns, "postgres", "postgres:9.4", 5432, 1, ""+
				"Error: Database is uninitialized and superuser password is not specified.\n"+
				"       You must specify POSTGRES_PASSWORD to a non-empty value for the\n"+
				"       superuser. For example, \"-e POSTGRES_PASSWORD=password\" on \"docker run\".\n\n"+
				"       You may also use \"POSTGRES_HOST_AUTH_METHOD=trust\" to allow all\n"+
				"       connections without a password. This is *not* recommended.\n\n"+
				"       See PostgreSQL documentation about \"trust\":\n"+
				"       https://www.postgresql.org/docs/current/auth-trust.html\n",
				c2Env("POSTGRES_USER", "postgres"))
			return []string{"pod/" + pods[0].Name}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"POSTGRES_PASSWORD"},
	},
	// Miss: Says "exit code 1 (general application error)"; should name MYSQL_ROOT_PASSWORD (the entrypoint lists the variables one of which must be set, one per line, under its [ERROR] line).
	{
		// Red herring: an image-pull failure two hours old (a tag typo
		// since fixed) is not today's cause.
		name:   "real-mysql-root-password-unset-old-pull-event",
		source: "https://github.com/docker-library/mysql/pull/913 and https://github.com/apecloud/kubeblocks/issues/3419 (MySQL entrypoint: 'Database is uninitialized and password option is not specified'); the old event is the kubelet's image-pull failure wording (pkg/kubelet/images/image_manager.go) with containerd's NotFound",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := rcCrashPod(t, c, ns, "mysql-0", 1, ""+
				"2023-05-24 06:33:28+00:00 [Note] [Entrypoint]: Entrypoint script for MySQL Server 8.0.33-1.el8 started.\n"+
				"2023-05-24 06:33:29+00:00 [Note] [Entrypoint]: Switching to dedicated user 'mysql'\n"+
				"2023-05-24 06:33:29+00:00 [Note] [Entrypoint]: Entrypoint script for MySQL Server 8.0.33-1.el8 started.\n"+
				"2023-05-24 06:33:30+00:00 [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified\n"+
				"    You need to specify one of the following as an environment variable:\n"+
				"    - MYSQL_ROOT_PASSWORD\n    - MYSQL_ALLOW_EMPTY_PASSWORD\n    - MYSQL_RANDOM_ROOT_PASSWORD\n",
				rcImage("mysql:8.0.33"), rcPort(3306), c2PodEnv("MYSQL_DATABASE", "app"))
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "Failed", Count: 3, FieldPath: "spec.containers{app}",
				First: time.Now().Add(-130 * time.Minute), Last: time.Now().Add(-124 * time.Minute),
				Message: `Failed to pull image "mysql:8.0.3e": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/mysql:8.0.3e": failed to resolve reference "docker.io/library/mysql:8.0.3e": docker.io/library/mysql:8.0.3e: not found`})
			return []string{"pod/mysql-0"}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"MYSQL_ROOT_PASSWORD"},
	},
	// Miss: Says "exit code 1 (general application error)"; should name the config directive requirepass (Redis' FATAL CONFIG FILE ERROR block: line number, directive, "wrong number of arguments").
	{
		name:   "real-redis-requirepass-empty-config",
		source: "redis/redis src/config.c loadServerConfigFromString (\"*** FATAL CONFIG FILE ERROR (Redis %s) ***\", \"Reading the configuration file, at line %d\", \">>> '%s'\", \"wrong number of arguments\"), as printed when a templated 'requirepass $REDIS_PASSWORD' renders empty",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "redis", 1, ""+
				"\n\n*** FATAL CONFIG FILE ERROR (Redis 7.2.4) ***\n"+
				"Reading the configuration file, at line 3\n"+
				">>> 'requirepass'\n"+
				"wrong number of arguments\n",
				rcImage("redis:7.2.4"), rcPort(6379), func(p *corev1.Pod) { p.Spec.Containers[0].Args = []string{"redis-server", "/etc/redis/redis.conf"} })
			return []string{"pod/redis"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"requirepass"},
	},
	// Miss: Says "cannot find a file it needs (/etc/nginx/conf.d/default.conf)", taking the entrypoint's info line; should name the [emerg] mkdir() /var/cache/nginx/client_temp (13: Permission denied) that ended nginx.
	// --- Web servers ------------------------------------------------------
	{
		// Red herring: nginx's [warn] about the user directive comes first.
		name:   "real-nginx-client-temp-permission-denied",
		source: "https://github.com/sclorg/nginx-container/issues/208 and https://github.com/reportportal/kubernetes/issues/308 (nginx [emerg] mkdir() /var/cache/nginx/client_temp (13: Permission denied) under an arbitrary non-root UID)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "service-ui", 1, ""+
				"/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration\n"+
				"/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/\n"+
				"/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh\n"+
				"10-listen-on-ipv6-by-default.sh: info: /etc/nginx/conf.d/default.conf is not a file or does not exist\n"+
				"/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh\n"+
				"/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh\n"+
				"/docker-entrypoint.sh: Configuration complete; ready for start up\n"+
				"2023/06/12 10:16:53 [warn] 1#1: the \"user\" directive makes sense only if the master process runs with super-user privileges, ignored in /etc/nginx/nginx.conf:3\n"+
				"nginx: [warn] the \"user\" directive makes sense only if the master process runs with super-user privileges, ignored in /etc/nginx/nginx.conf:3\n"+
				"2023/06/12 10:16:53 [emerg] 1#1: mkdir() \"/var/cache/nginx/client_temp\" failed (13: Permission denied)\n"+
				"nginx: [emerg] mkdir() \"/var/cache/nginx/client_temp\" failed (13: Permission denied)\n",
				rcImage("reportportal/service-ui:5.7.4"), rcPort(8080), rcNonRoot(1000))
			return []string{"pod/service-ui"}
		},
		category: "CrashLoop/Exit1/PermissionDenied",
		culprit:  []string{"/var/cache/nginx/client_temp"},
	},
	// Miss: Says "the process is denied access to a file, directory or operation"; should say Kestrel cannot bind port 80 as non-root user 1001 (ASPNETCORE_URLS http://+:80): a privileged port.
	{
		name:   "real-kestrel-bind-80-non-root",
		source: "https://github.com/tomkerkhove/promitor/issues/1561 (Serilog '[FTL] Unable to start Kestrel.' and System.Net.Sockets.SocketException (13): Permission denied under runAsUser 1001; .NET aborts on the unhandled exception, exit 134)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "promitor-scraper", 134, ""+
				"[09:47:02 INF] Starting Promitor Scraper\n"+
				"[09:47:03 FTL] Unable to start Kestrel.\n"+
				"System.Net.Sockets.SocketException (13): Permission denied\n"+
				"   at System.Net.Sockets.Socket.UpdateStatusAfterSocketErrorAndThrowException(SocketError error, String callerName)\n"+
				"   at System.Net.Sockets.Socket.DoBind(EndPoint endPointSnapshot, SocketAddress socketAddress)\n"+
				"   at System.Net.Sockets.Socket.Bind(EndPoint localEP)\n"+
				"   at Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.SocketConnectionListener.Bind()\n"+
				"   at Microsoft.AspNetCore.Server.Kestrel.Core.Internal.AddressBinder.BindEndpointAsync(ListenOptions endpoint, AddressBindContext context)\n"+
				"Unhandled exception. System.Net.Sockets.SocketException (13): Permission denied\n"+
				"   at System.Net.Sockets.Socket.DoBind(EndPoint endPointSnapshot, SocketAddress socketAddress)\n",
				rcImage("tomkerkhove/promitor-agent-scraper:2.1.1"), rcPort(80), rcNonRoot(1001), c2PodEnv("ASPNETCORE_URLS", "http://+:80"))
			return []string{"pod/promitor-scraper"}
		},
		category: "CrashLoop/Exit134",
		culprit:  []string{"80"},
	},
	// Miss: Says "crashed with an unhandled panic or exception" (CrashLoop/Exit1/Panic); should say kafka-headless does not resolve (the WARN "DNS resolution failed for kafka-headless" explains the ConfigException).
	{
		name:   "real-kafka-no-resolvable-bootstrap",
		source: "https://github.com/banzaicloud/koperator/issues/67 (org.apache.kafka.clients.ClientUtils 'Removing server kafka-headless:29092 from bootstrap.servers as DNS resolution failed' then ConfigException: No resolvable bootstrap urls given in bootstrap.servers)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "cruisecontrol", 1, ""+
				"[2019-05-30 10:12:01,178] WARN Removing server kafka-headless:29092 from bootstrap.servers as DNS resolution failed for kafka-headless (org.apache.kafka.clients.ClientUtils)\n"+
				"Exception in thread \"main\" org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls given in bootstrap.servers\n"+
				"\tat org.apache.kafka.clients.ClientUtils.parseAndValidateAddresses(ClientUtils.java:66)\n"+
				"\tat com.linkedin.kafka.cruisecontrol.common.MetadataClient.<init>(MetadataClient.java:46)\n"+
				"\tat com.linkedin.kafka.cruisecontrol.monitor.LoadMonitor.<init>(LoadMonitor.java:116)\n"+
				"\tat com.linkedin.kafka.cruisecontrol.KafkaCruiseControlMain.main(KafkaCruiseControlMain.java:71)\n",
				rcImage("banzaicloud/cruise-control:2.0.46"), rcPort(8090))
			return []string{"pod/cruisecontrol"}
		},
		category: "CrashLoop/Exit1/DNS",
		culprit:  []string{"kafka-headless"},
	},
	// Miss: Category right (InitContainer/CrashLoop/Exit1/ConnectionRefused) but the Root cause does not name orders-db:5432 from "Connection to orders-db:5432 refused" (the same miss as real-spring-hikari-pgjdbc-refused).
	{
		name:   "real-flyway-init-container-refused",
		source: "Flyway's DriverDataSource/JdbcUtils 'Unable to obtain connection from database (%s) for user '%s': %s' with pgjdbc's ConnectionFactoryImpl \"Connection to {0} refused\" (SQL State 08001), run as an init container",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("orders", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.InitContainers = []corev1.Container{{Name: "flyway", Image: "flyway/flyway:10.10",
					Args: []string{"-url=jdbc:postgresql://orders-db:5432/orders", "-user=orders", "migrate"}}}
				p.Spec.Containers[0].Image = "registry.example.com/shop/orders:3.0.1"
				st := crashStatus("flyway", 1, "Error", 5)
				st.Phase = corev1.PodPending
				st.InitContainerStatuses = st.ContainerStatuses
				st.InitContainerStatuses[0].Image = "flyway/flyway:10.10"
				st.Conditions[1] = corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionFalse, Reason: "ContainersNotInitialized", Message: "containers with incomplete status: [flyway]", LastTransitionTime: minutesAgo(30)}
				st.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: "registry.example.com/shop/orders:3.0.1",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
				p.Status = st
			}))
			c.SetLogs(ns, "orders", "flyway", true, ""+
				"Flyway Community Edition 10.10.0 by Redgate\n\n"+
				"See release notes here: https://rd.gt/416ObMi\n"+
				"ERROR: Unable to obtain connection from database (jdbc:postgresql://orders-db:5432/orders) for user 'orders': Connection to orders-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n"+
				"-------------------------------------------------------------------------------------------------------------------------------------------------------------------------------\n"+
				"SQL State  : 08001\nError Code : 0\n"+
				"Message    : Connection to orders-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n\n"+
				"Caused by: org.postgresql.util.PSQLException: Connection to orders-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n"+
				"Caused by: java.net.ConnectException: Connection refused\n")
			c.SetLogs(ns, "orders", "flyway", false, "")
			return []string{"pod/orders"}
		},
		category: "InitContainer",
		culprit:  []string{"orders-db:5432"},
	},
	// Miss: Says "exit code 1 (general application error)"; should name DATABASE_URL ("Required database environment variables are not set. Provide a postgres url for DATABASE_URL.").
	{
		// Red herring: Node's DEP0005 deprecation warning comes first.
		name:   "real-node-deprecation-then-database-url-unset",
		source: "https://github.com/langfuse/langfuse-k8s/issues/243 (kubectl logs: 'Error: Required database environment variables are not set. Provide a postgres url for DATABASE_URL.'); the DEP0005 line is Node's lib/buffer.js deprecation message",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			pods := c2CrashDeployment(t, c, ns, "langfuse-web", "langfuse/langfuse:3.29.0", 3000, 1, ""+
				"(node:1) [DEP0005] DeprecationWarning: Buffer() is deprecated due to security and usability issues. Please use the Buffer.alloc(), Buffer.allocUnsafe(), or Buffer.from() methods instead.\n"+
				"(Use `node --trace-deprecation ...` to show where the warning was created)\n"+
				"Error: Required database environment variables are not set. Provide a postgres url for DATABASE_URL.\n",
				c2Env("NEXTAUTH_URL", "http://localhost:3000", "DIRECT_URL", "postgresql://langfuse@langfuse-postgresql:5432/postgres_langfuse"))
			return []string{"pod/" + pods[0].Name}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"DATABASE_URL"},
	},
	// Miss: Says "crashed with an unhandled panic or exception" (CrashLoop/Exit1/Panic); should classify the SQL fault: database "catalog" does not exist on catalog-db (inside the JSON record's exception field).
	{
		name:   "real-structlog-json-sqlalchemy-db-missing",
		source: "structlog's JSONRenderer record (event, level, timestamp keys) around psycopg2's OperationalError as PostgreSQL's postinit.c words it ('FATAL:  database \"%s\" does not exist')",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "catalog-api", 1, ""+
				`{"event": "starting catalog-api", "level": "info", "timestamp": "2024-05-14T08:02:11.102Z", "version": "2.7.1"}`+"\n"+
				`{"event": "database connection failed", "level": "critical", "timestamp": "2024-05-14T08:02:11.488Z", "exception": "Traceback (most recent call last):\n  File \"/app/catalog/db.py\", line 31, in connect\n    engine.connect()\nsqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at \"catalog-db\" (10.96.33.8), port 5432 failed: FATAL:  database \"catalog\" does not exist\n"}`+"\n",
				rcImage("registry.example.com/shop/catalog-api:2.7.1"), rcPort(8000), c2PodEnv("DATABASE_URL", "postgresql://catalog@catalog-db:5432/catalog"))
			return []string{"pod/catalog-api"}
		},
		category: "CrashLoop/Exit1/SQL",
		culprit:  []string{`database "catalog" does not exist`},
	},
	// Miss: Category right (CrashLoop/Exit134/ConnectionRefused) but the culprit is the inner SocketException line; should name 10.96.0.55:5432 from "Failed to connect to 10.96.0.55:5432" in the @x field.
	// --- .NET -----------------------------------------------------------------
	{
		name:   "real-serilog-compact-json-npgsql-refused",
		source: "Serilog.Formatting.Compact (CLEF: @t, @mt, @l, @x) around Npgsql's NpgsqlException 'Failed to connect to %s' with the inner System.Net.Sockets.SocketException (111): Connection refused",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "basket-api", 134, ""+
				`{"@t":"2024-02-20T14:03:11.0412950Z","@mt":"Starting web host","Application":"Basket.API"}`+"\n"+
				`{"@t":"2024-02-20T14:03:13.5530127Z","@mt":"Host terminated unexpectedly","@l":"Fatal","@x":"Npgsql.NpgsqlException (0x80004005): Failed to connect to 10.96.0.55:5432\n ---> System.Net.Sockets.SocketException (111): Connection refused\n   at Npgsql.Internal.NpgsqlConnector.Connect(NpgsqlTimeout timeout)\n   --- End of inner exception stack trace ---\n   at Npgsql.Internal.NpgsqlConnector.Open(NpgsqlTimeout timeout, Boolean async, CancellationToken cancellationToken)","Application":"Basket.API"}`+"\n",
				rcImage("registry.example.com/shop/basket-api:8.0.2"), rcPort(8080), c2PodEnv("ConnectionStrings__Basket", "Host=10.96.0.55;Port=5432;Database=basket;Username=basket"))
			return []string{"pod/basket-api"}
		},
		category: "CrashLoop/Exit134/ConnectionRefused",
		culprit:  []string{"10.96.0.55:5432"},
	},
	// Miss: Says "container migrate failed with exit code 1 (general application error)"; should name shop-postgres:5432 from Prisma's "P1001: Can't reach database server at `shop-postgres:5432`".
	{
		name:   "real-job-prisma-migrate-p1001",
		source: "prisma/prisma-engines user-facing-errors (P1001 DatabaseNotReachable: \"Can't reach database server at `%s`\") in a migrate Job; the job controller's BackoffLimitExceeded 'Job has reached the specified backoff limit' (pkg/controller/job)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := wlJobTemplate("migrate", "registry.example.com/shop/web-migrate:1.9.0", "npx", "prisma", "migrate", "deploy")
			tmpl.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgresql://shop@shop-postgres:5432/shop"}}
			j := wlJob(t, c, ns, "db-migrate", batchv1.JobSpec{BackoffLimit: ptr(int32(2)), Template: tmpl},
				wlFailedJobStatus("BackoffLimitExceeded", "Job has reached the specified backoff limit", 3, 14*time.Minute, 2*time.Minute))
			log := "Prisma schema loaded from prisma/schema.prisma\n" +
				"Datasource \"db\": PostgreSQL database \"shop\", schema \"public\" at \"shop-postgres:5432\"\n\n" +
				"Error: P1001: Can't reach database server at `shop-postgres:5432`\n\n" +
				"Please make sure your database server is running at `shop-postgres:5432`.\n"
			for i, ago := range []time.Duration{12, 8, 2} {
				name := fmt.Sprintf("db-migrate-%c%c8kq", 'a'+i, 'x'-i)
				wlJobPod(t, c, j, name, wlFailedPodStatus("migrate", "registry.example.com/shop/web-migrate:1.9.0", 1, ago*time.Minute))
				c.SetLogs(ns, name, "migrate", false, log)
			}
			c.Event(t, testcluster.EventSpec{Object: j, Reason: "BackoffLimitExceeded", Component: "job-controller", First: time.Now().Add(-2 * time.Minute),
				Message: "Job has reached the specified backoff limit"})
			return []string{"job/db-migrate"}
		},
		category: "ContainerFailed/Exit1",
		culprit:  []string{"shop-postgres:5432"},
	},
	// Miss: Says "exit code 1 (general application error)"; should say port 8000 is already in use (gunicorn's "Connection in use: ('0.0.0.0', 8000)" repeated, then "Can't connect to").
	{
		name:   "real-gunicorn-connection-in-use",
		source: "https://github.com/jonaswinkler/paperless-ng/issues/230 (gunicorn/sock.py 'Connection in use: %s', 'Retrying in 1 second.', 'Can't connect to %s'; exit status 1)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			log := "[2020-12-31 08:34:00 +0100] [132] [INFO] Starting gunicorn 20.0.4\n"
			for i := 0; i < 5; i++ {
				log += fmt.Sprintf("[2020-12-31 08:34:0%d +0100] [132] [ERROR] Connection in use: ('0.0.0.0', 8000)\n[2020-12-31 08:34:0%d +0100] [132] [ERROR] Retrying in 1 second.\n", i, i)
			}
			log += "[2020-12-31 08:34:05 +0100] [132] [ERROR] Can't connect to ('0.0.0.0', 8000)\n"
			rcCrashPod(t, c, ns, "paperless", 1, log, rcImage("jonaswinkler/paperless-ng:0.9.10"), rcPort(8000))
			return []string{"pod/paperless"}
		},
		category: "CrashLoop/Exit1/AddressInUse",
		culprit:  []string{"8000"},
	},
	// Miss: Category right (CrashLoop/Exit134/AddressInUse) but the port is not named; should name 8080 from Kestrel's "Failed to bind to address http://[::]:8080: address already in use."
	{
		name:   "real-dotnet-kestrel-address-in-use",
		source: "https://github.com/dotnet/aspnetcore/issues/4699 (Kestrel 'Failed to bind to address http://[::]:80: address already in use'; the unhandled exception aborts the runtime, exit 134)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "catalog-api", 134, ""+
				"info: Microsoft.Hosting.Lifetime[0]\n      Application is shutting down...\n"+
				"Unhandled exception. System.IO.IOException: Failed to bind to address http://[::]:8080: address already in use.\n"+
				" ---> Microsoft.AspNetCore.Connections.AddressInUseException: Address already in use\n"+
				" ---> System.Net.Sockets.SocketException (98): Address already in use\n"+
				"   at System.Net.Sockets.Socket.UpdateStatusAfterSocketErrorAndThrowException(SocketError error, String callerName)\n"+
				"   at System.Net.Sockets.Socket.DoBind(EndPoint endPointSnapshot, SocketAddress socketAddress)\n"+
				"   at Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.SocketConnectionListener.Bind()\n",
				rcImage("registry.example.com/shop/catalog-api:8.0.1"), rcPort(8080))
			return []string{"pod/catalog-api"}
		},
		category: "CrashLoop/Exit134/AddressInUse",
		culprit:  []string{"8080"},
	},
	// Miss: Says "exit code 1 (general application error)"; should say rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local does not resolve (Erlang's "nxdomain (non-existing domain)" is DNS wording the log reader does not know).
	{
		name:   "real-rabbitmq-epmd-nxdomain",
		source: "RabbitMQ's CLI/epmd error as printed by the rabbitmq-server start-up in StatefulSets whose headless Service name does not resolve ('ERROR: epmd error for host %s: nxdomain (non-existing domain)'), as reported in bitnami/charts rabbitmq threads",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "rabbitmq-0", 1, ""+
				"rabbitmq 08:12:31.09 INFO  ==> ** Starting RabbitMQ setup **\n"+
				"rabbitmq 08:12:31.12 INFO  ==> Validating settings in RABBITMQ_* env vars..\n"+
				"rabbitmq 08:12:31.20 INFO  ==> Initializing RabbitMQ...\n"+
				"rabbitmq 08:12:31.34 INFO  ==> Starting RabbitMQ in background...\n"+
				"ERROR: epmd error for host rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local: nxdomain (non-existing domain)\n",
				rcImage("docker.io/bitnami/rabbitmq:3.12.12-debian-11-r0"), rcPort(5672), c2PodEnv("RABBITMQ_NODE_NAME", "rabbit@rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local"))
			return []string{"pod/rabbitmq-0"}
		},
		category: "CrashLoop/Exit1/DNS",
		culprit:  []string{"rabbitmq-0.rabbitmq-headless.messaging.svc.cluster.local"},
	},
	// Miss: Says "exit code 1 (general application error)"; should name the data directory /var/lib/mysql, which is not empty (MY-010457 "--initialize specified but the data directory has files in it"; a PVC mount point holding lost+found).
	{
		name:   "real-mysql-initialize-datadir-not-empty",
		source: "MySQL 8 server errors MY-010457 ('--initialize specified but the data directory has files in it. Aborting.') and MY-013236 ('The designated data directory %s is unusable.'), seen when /var/lib/mysql is a PVC mount point holding lost+found",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "mysql", 1, ""+
				"2024-01-10 10:11:10+00:00 [Note] [Entrypoint]: Entrypoint script for MySQL Server 8.0.36-1.el8 started.\n"+
				"2024-01-10 10:11:11+00:00 [Note] [Entrypoint]: Initializing database files\n"+
				"2024-01-10T10:11:11.402817Z 0 [System] [MY-013169] [Server] /usr/sbin/mysqld (mysqld 8.0.36) initializing of server in progress as process 80\n"+
				"2024-01-10T10:11:11.404501Z 0 [ERROR] [MY-010457] [Server] --initialize specified but the data directory has files in it. Aborting.\n"+
				"2024-01-10T10:11:11.404506Z 0 [ERROR] [MY-013236] [Server] The designated data directory /var/lib/mysql/ is unusable. You can remove all files that the server added to it.\n"+
				"2024-01-10T10:11:11.404578Z 0 [ERROR] [MY-010119] [Server] Aborting\n"+
				"2024-01-10T10:11:11.404786Z 0 [System] [MY-010910] [Server] /usr/sbin/mysqld: Shutdown complete (mysqld 8.0.36)  MySQL Community Server - GPL.\n",
				rcImage("mysql:8.0.36"), rcPort(3306), rcPVCMount("mysql-data", "/var/lib/mysql"), c2PodEnv("MYSQL_ROOT_PASSWORD", "x"))
			return []string{"pod/mysql"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"/var/lib/mysql"},
	},
	// Miss: Says "exit code 1 (general application error)"; should say the environment variable SERVER_PORT (injected by the Service named server: tcp://10.96.140.21:8080) is bound to server.port and is not a number (Spring's failure analysis names it; enableServiceLinks: false or a different Service name fixes it).
	{
		name:   "real-spring-server-port-service-link",
		source: "Kubernetes' docker-links service environment variables (a Service named server injects SERVER_PORT=tcp://<clusterIP>:<port>, pkg/kubelet/envvars) colliding with Spring Boot's relaxed binding of server.port; Spring's failure analysis 'Failed to bind properties under 'server.port' to java.lang.Integer' with Origin: System Environment Property \"SERVER_PORT\"",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "gateway", 1, ""+
				"2024-04-09 07:12:03.101  INFO 1 --- [           main] c.e.gateway.GatewayApplication           : Starting GatewayApplication v1.3.0 using Java 17.0.9 with PID 1\n"+
				"2024-04-09 07:12:04.877 ERROR 1 --- [           main] o.s.b.d.LoggingFailureAnalysisReporter   : \n\n"+
				"***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\n"+
				"Failed to bind properties under 'server.port' to java.lang.Integer:\n\n"+
				"    Property: server.port\n    Value: \"tcp://10.96.140.21:8080\"\n    Origin: System Environment Property \"SERVER_PORT\"\n"+
				"    Reason: failed to convert java.lang.String to java.lang.Integer (caused by java.lang.NumberFormatException: For input string: \"tcp://10.96.140.21:8080\")\n\n"+
				"Action:\n\nUpdate your application's configuration\n",
				rcImage("registry.example.com/edge/gateway:1.3.0"), rcPort(8080), c2PodEnv("SERVER_PORT", "tcp://10.96.140.21:8080", "SERVER_SERVICE_HOST", "10.96.140.21"))
			return []string{"pod/gateway"}
		},
		category: "CrashLoop/Exit1",
		culprit:  []string{"SERVER_PORT"},
	},
	// Miss: Category right (CrashLoop/Exit1/AddressInUse) but the port is not named; should name 0.0.0.0:8080 from the JSON record's fields.addr next to "Address already in use (os error 98)".
	{
		name:   "real-rust-tracing-json-addr-in-use",
		source: "tracing-subscriber's JSON format (timestamp, level, fields.message, target) around std::io::Error's 'Address already in use (os error 98)' from a Rust service binding 0.0.0.0:8080 next to a sidecar that already holds it",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			rcCrashPod(t, c, ns, "ingest", 1, ""+
				`{"timestamp":"2024-06-11T08:00:01.004512Z","level":"INFO","fields":{"message":"starting ingest","version":"0.9.1"},"target":"ingest"}`+"\n"+
				`{"timestamp":"2024-06-11T08:00:01.005877Z","level":"ERROR","fields":{"message":"failed to bind listener","addr":"0.0.0.0:8080","error":"Address already in use (os error 98)"},"target":"ingest::server"}`+"\n"+
				"Error: Address already in use (os error 98)\n",
				rcImage("registry.example.com/data/ingest:0.9.1"), rcPort(8080))
			return []string{"pod/ingest"}
		},
		category: "CrashLoop/Exit1/AddressInUse",
		culprit:  []string{"8080"},
	},
}
