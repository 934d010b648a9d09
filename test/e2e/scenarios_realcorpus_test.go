package e2e

import (
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// Miss: says "readiness probe of container zk finds nothing listening
	// on port 8080" (Probe/Readiness/ConnectionRefused, the pod's own
	// finding wins over the StatefulSet's). Should say: statefulset zk is
	// stuck at 0/3 because zk-0 is not Ready and, with OrderedReady, zk-1 and
	// zk-2 are never created — while zk-0's log shows it waits for exactly
	// those peers (zk-1.zk-hs unresolvable): an OrderedReady deadlock whose
	// fix is podManagementPolicy: Parallel (StatefulSet/OrdinalBlocked).
	{
		name:   "real-statefulset-stuck-on-unready-pod",
		source: "kubernetes/website StatefulSet basics (OrderedReady: web-1 is not created until web-0 is Running and Ready) with the kubelet's readiness probe failure wording (pkg/kubelet/prober: \"Readiness probe failed: Get ...: dial tcp ...: connect: connection refused\")",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			img := "registry.example.com/data/zookeeper:3.9.2"
			tmpl := c2Template("zk", "zk", img, 8080, func(s *corev1.PodSpec) { s.Containers[0].ReadinessProbe = rcHTTPProbe("/commands/ruok", 8080) })
			sts := &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: "zk", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), ServiceName: "zk-hs", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "zk"}},
					Template: tmpl},
				Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
					CurrentRevision: "zk-5f8d6c7b9d", UpdateRevision: "zk-5f8d6c7b9d", CollisionCount: ptr(int32(0))},
			}
			c.Create(t, sts)
			labels := maps.Clone(tmpl.Labels)
			labels["apps.kubernetes.io/pod-index"] = "0"
			labels["statefulset.kubernetes.io/pod-name"] = "zk-0"
			labels["controller-revision-hash"] = "zk-5f8d6c7b9d"
			st := wlReadyStatus("zk", img, 35*time.Minute)
			st.Conditions = notReadyConditions()
			st.ContainerStatuses[0].Ready = false
			st.PodIP = "10.244.1.7"
			p := c.CreatePod(t, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "zk-0", Namespace: ns, Labels: labels, OwnerReferences: []metav1.OwnerReference{wlController("StatefulSet", sts)}},
				Spec:       *tmpl.Spec.DeepCopy(), Status: st})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "Unhealthy", Count: 208, First: time.Now().Add(-34 * time.Minute), FieldPath: "spec.containers{zk}",
				Message: `Readiness probe failed: Get "http://10.244.1.7:8080/commands/ruok": dial tcp 10.244.1.7:8080: connect: connection refused`})
			c.SetLogs(ns, "zk-0", "zk", false, ""+
				"2024-03-02 10:11:02,114 [myid:1] - INFO  [main:o.a.z.s.q.QuorumPeerConfig@177] - Reading configuration from: /conf/zoo.cfg\n"+
				"2024-03-02 10:11:02,311 [myid:1] - WARN  [QuorumConnectionThreadManager-1:o.a.z.s.q.QuorumCnxManager@401] - Cannot open channel to 2 at election address zk-1.zk-hs."+ns+".svc.cluster.local/<unresolved>:3888\n"+
				"java.net.UnknownHostException: zk-1.zk-hs."+ns+".svc.cluster.local\n")
			return []string{"statefulset/zk"}
		},
		category: "StatefulSet/OrdinalBlocked",
		culprit:  []string{"zk-0", "zk-1"},
	},
}
