package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The eleventh batch, continued (see scenarios_corpus11_app_test.go).

// c11appBitnamiPreset is a Bitnami chart's resourcesPreset as its
// _resources.tpl renders it (cpu and memory requests, then limits).
func c11appBitnamiPreset(reqCPU, reqMem, limCPU, limMem string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(reqCPU), corev1.ResourceMemory: resource.MustParse(reqMem), corev1.ResourceEphemeralStorage: resource.MustParse("50Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limCPU), corev1.ResourceMemory: resource.MustParse(limMem), corev1.ResourceEphemeralStorage: resource.MustParse("2Gi")}}
}

// c11appOOMRunning is a container running again (Ready) after its last run
// was OOMKilled finished ago, restarted restarts times.
func c11appOOMRunning(name, image string, since, finished time.Duration, restarts int32) corev1.ContainerStatus {
	s := c10appCtr(name, image, true, since, restarts)
	s.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
		StartedAt: wlAgo(finished + 3*time.Hour), FinishedAt: wlAgo(finished), ContainerID: "containerd://" + name + "-oom"}}
	return s
}

// c11appBitnamiBanner is the banner a Bitnami image prints at start, at.
func c11appBitnamiBanner(app, repo string, at time.Time) []string {
	s := app + " " + at.UTC().Format("15:04:05.00") + " "
	return []string{s + "INFO  ==> ", s + "INFO  ==> Welcome to the Bitnami " + app + " container",
		s + "INFO  ==> Subscribe to project updates by watching https://github.com/bitnami/" + repo,
		s + "INFO  ==> Submit issues and feature requests at https://github.com/bitnami/" + repo + "/issues", s + "INFO  ==> "}
}

var c11appScenarios2 = []scenario{
	{
		// The Bitnami ClickHouse chart runs its ZooKeeper with
		// resourcesPreset micro (a 384Mi memory limit) while the ZooKeeper
		// chart's heapSize 1024 gives the JVM a 1024 MB heap: the JVM grows
		// past the limit and the kernel kills it, again and again. The fix
		// raised the limit to 1536Mi (heap plus headroom).
		name:   "real-zookeeper-heap-1024-above-micro-preset-384mi-oomkilled",
		source: "material: https://github.com/langfuse/langfuse-terraform-aws/pull/12 (OOM restarts on zookeeper pods, functional but constant eventual crashes: the Bitnami ClickHouse chart v8.0.5 sets zookeeper.resourcesPreset micro, a 384Mi memory limit, and its Bitnami ZooKeeper chart v13.7.4 sets the JVM max heap to 1024 (heapSize: 1024); the JVM keeps growing until the container limit, is OOM killed and restarts; the fix bumps the container limit to 1536Mi to allow the full heap plus headroom); the preset's values as the Bitnami common chart renders micro (requests 250m/256Mi, limits 375m/384Mi); the heap reaches the JVM through the chart's ZOO_HEAP_SIZE env var",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/bitnami/zookeeper:3.9.3"
			name := "langfuse-zookeeper"
			labels := map[string]string{"app.kubernetes.io/name": "zookeeper", "app.kubernetes.io/instance": "langfuse", "app.kubernetes.io/component": "zookeeper"}
			c11appHeadless(t, c, ns, name+"-headless", labels, c4bPort("tcp-client", 2181, intstr.FromString("client")), c4bPort("tcp-follower", 2888, intstr.FromString("follower")), c4bPort("tcp-election", 3888, intstr.FromString("election")))
			c4bService(t, c, ns, name, labels, []corev1.ServicePort{c4bPort("tcp-client", 2181, intstr.FromString("client"))})
			c4aConfigMap(t, c, ns, name+"-scripts", map[string]string{"setup.sh": "#!/bin/bash\n\n# Execute entrypoint as usual after obtaining ZOO_SERVER_ID\n# check ZOO_SERVER_ID in persistent volume via myid\n# if not present, set based on POD hostname\nif [[ -f \"/bitnami/zookeeper/data/myid\" ]]; then\n    export ZOO_SERVER_ID=\"$(cat /bitnami/zookeeper/data/myid)\"\nelse\n    HOSTNAME=\"$(hostname -s)\"\n    if [[ $HOSTNAME =~ (.*)-([0-9]+)$ ]]; then\n        ORD=${BASH_REMATCH[2]}\n        export ZOO_SERVER_ID=\"$((ORD + 1 ))\"\n    else\n        echo \"Failed to get index from hostname $HOSTNAME\"\n        exit 1\n    fi\nfi\nexec /entrypoint.sh /run.sh\n"})
			var servers []string
			for i := 0; i < 3; i++ {
				servers = append(servers, fmt.Sprintf("%s-%d.%s-headless.%s.svc.cluster.local:2888:3888::%d", name, i, name, ns, i+1))
			}
			health := func() *corev1.Probe {
				return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/bash", "-ec", "ZOO_HC_TIMEOUT=3 /opt/bitnami/scripts/zookeeper/healthcheck.sh"}}},
					InitialDelaySeconds: 5, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 6}
			}
			spec := corev1.PodSpec{ServiceAccountName: name, SecurityContext: &corev1.PodSecurityContext{FSGroup: ptr(int64(1001))},
				Containers: []corev1.Container{{Name: "zookeeper", Image: image, Command: []string{"/scripts/setup.sh"},
					Env: []corev1.EnvVar{{Name: "BITNAMI_DEBUG", Value: "false"}, {Name: "ZOO_DATA_LOG_DIR", Value: ""}, {Name: "ZOO_PORT_NUMBER", Value: "2181"},
						{Name: "ZOO_TICK_TIME", Value: "2000"}, {Name: "ZOO_INIT_LIMIT", Value: "10"}, {Name: "ZOO_SYNC_LIMIT", Value: "5"}, {Name: "ZOO_PRE_ALLOC_SIZE", Value: "65536"},
						{Name: "ZOO_SNAPCOUNT", Value: "100000"}, {Name: "ZOO_MAX_CLIENT_CNXNS", Value: "60"}, {Name: "ZOO_4LW_COMMANDS_WHITELIST", Value: "srvr, mntr, ruok"},
						{Name: "ZOO_LISTEN_ALLIPS_ENABLED", Value: "no"}, {Name: "ZOO_AUTOPURGE_INTERVAL", Value: "1"}, {Name: "ZOO_AUTOPURGE_RETAIN_COUNT", Value: "10"},
						{Name: "ZOO_MAX_SESSION_TIMEOUT", Value: "40000"}, {Name: "ZOO_SERVERS", Value: strings.Join(servers, " ")}, {Name: "ZOO_ENABLE_AUTH", Value: "no"},
						{Name: "ALLOW_ANONYMOUS_LOGIN", Value: "yes"}, {Name: "ZOO_ENABLE_QUORUM_AUTH", Value: "no"}, {Name: "ZOO_HEAP_SIZE", Value: "1024"},
						{Name: "ZOO_LOG_LEVEL", Value: "ERROR"}, {Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
					Ports:          []corev1.ContainerPort{{Name: "client", ContainerPort: 2181}, {Name: "follower", ContainerPort: 2888}, {Name: "election", ContainerPort: 3888}},
					Resources:      c11appBitnamiPreset("250m", "256Mi", "375m", "384Mi"),
					LivenessProbe:  health(),
					ReadinessProbe: health(),
					VolumeMounts: []corev1.VolumeMount{{Name: "empty-dir", MountPath: "/tmp", SubPath: "tmp-dir"}, {Name: "empty-dir", MountPath: "/opt/bitnami/zookeeper/conf", SubPath: "app-conf-dir"},
						{Name: "empty-dir", MountPath: "/opt/bitnami/zookeeper/logs", SubPath: "app-logs-dir"}, {Name: "scripts", MountPath: "/scripts/setup.sh", SubPath: "setup.sh"},
						{Name: "data", MountPath: "/bitnami/zookeeper"}}}},
				Volumes: []corev1.Volume{{Name: "empty-dir", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					{Name: "scripts", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name + "-scripts"}, DefaultMode: ptr(int32(0o755))}}}}}
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
			sts := c11appSts(t, c, ns, name, name+"-headless", labels, 3, appsv1.ParallelPodManagement, spec, c11appClaimTemplate("data", "gp3", "8Gi"))
			c10appStsStatus(t, c, sts, 3, 3)
			var pods []*corev1.Pod
			for i, r := range []struct {
				restarts int32
				since    time.Duration
			}{{14, 38 * time.Minute}, {11, 71 * time.Minute}, {13, 19 * time.Minute}} {
				c11appClaim(t, c, ns, fmt.Sprintf("data-%s-%d", name, i), "gp3", "ebs.csi.aws.com", "8Gi", c11appCSI("ebs.csi.aws.com", fmt.Sprintf("vol-05d1f7be3c9a42e%02d", i)))
				p := c11appStsPod(t, c, sts, i, c10appPod(fmt.Sprintf("10.0.41.%d", 60+i), 2*24*time.Hour, c11appOOMRunning("zookeeper", image, r.since, r.since+5*time.Second, r.restarts)))
				start := time.Now().Add(-r.since)
				zk := func(ms int, lvl, msg string) string {
					return start.Add(time.Duration(ms)*time.Millisecond).UTC().Format("2006-01-02 15:04:05,000") + fmt.Sprintf(" [myid:%d] - %s", i+1, lvl) + msg
				}
				banner := c11appBitnamiBanner("zookeeper", "containers", start)
				s := "zookeeper " + start.UTC().Format("15:04:05.00") + " "
				c.SetLogs(ns, p.Name, "zookeeper", false, c5Lines(append(banner,
					s+"INFO  ==> ** Starting ZooKeeper setup **",
					s+"WARN  ==> You have set the environment variable ALLOW_ANONYMOUS_LOGIN=yes. For safety reasons, do not use this flag in a production environment.",
					s+"INFO  ==> Initializing ZooKeeper...",
					s+"INFO  ==> No injected configuration file found, creating default config files...",
					s+"INFO  ==> Deploying ZooKeeper with persisted data...",
					s+"INFO  ==> ** ZooKeeper setup finished! **",
					"",
					s+"INFO  ==> ** Starting ZooKeeper **",
					"/opt/bitnami/java/bin/java",
					"ZooKeeper JMX enabled by default",
					"Using config: /opt/bitnami/zookeeper/bin/../conf/zoo.cfg",
					zk(2400, "INFO  [QuorumPeer[myid="+fmt.Sprint(i+1)+"](plain=[0:0:0:0:0:0:0:0]:2181)(secure=disabled):o.a.z.s.q.Learner@695] - ", "Learner received UPTODATE message"),
				)...))
				c.SetLogs(ns, p.Name, "zookeeper", true, c5Lines(append(c11appBitnamiBanner("zookeeper", "containers", start.Add(-3*time.Hour)),
					"zookeeper "+start.Add(-3*time.Hour).UTC().Format("15:04:05.00")+" INFO  ==> ** Starting ZooKeeper **",
					"/opt/bitnami/java/bin/java",
					"ZooKeeper JMX enabled by default",
					"Using config: /opt/bitnami/zookeeper/bin/../conf/zoo.cfg",
				)...))
				pods = append(pods, p)
			}
			return []string{"pod/" + pods[0].Name}
		},
		category: "OOMKilled",
		culprit:  []string{"384Mi", "ZOO_HEAP_SIZE"},
	},
	{
		// The TrueCharts plausible chart generated a secret_key_base too
		// short for Plug's cookie store: Plausible starts and serves its
		// health endpoint, but every browser request raises and returns an
		// error. The fix lengthened the generated SECRET_KEY_BASE to 64
		// bytes.
		name:   "real-plausible-secret-key-base-shorter-than-64-bytes",
		source: "material: https://github.com/trueforge-org/truecharts/issues/12946 (plausible 2.0.0 starts, but the first http request shows an error; logs: [error] #PID<0.3642.0> running PlausibleWeb.Endpoint (connection #PID<0.3641.0>, stream id 1) terminated / Server: stat.example.org:80 (http) / Request: GET /example.org / ** (exit) an exception was raised: / ** (ArgumentError) cookie store expects conn.secret_key_base to be at least 64 bytes / (plug 1.14.2) lib/plug/session/c...), https://github.com/trueforge-org/truecharts/pull/12947 (fix(plausible): increase secret_key_base length to 64 bytes)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "tccr.io/truecharts/plausible:v2.0.0"
			c8appSecret(t, c, ns, "plausible-secret", corev1.SecretTypeOpaque, map[string]string{"SECRET_KEY_BASE": "b3V5cTNzN2tQd0xtOWFYZTJWcjVuRzhq", "TOTP_VAULT_KEY": "dGhpcy1pcy1hLTMyLWJ5dGUta2V5LWZvci10b3Rw"})
			c8appSecret(t, c, ns, "plausible-cnpg-main-urls", corev1.SecretTypeOpaque, map[string]string{"std": "postgresql://plausible:pR4nE8sWq2@plausible-cnpg-main-rw:5432/plausible"})
			labels := map[string]string{"app.kubernetes.io/name": "plausible", "app.kubernetes.io/instance": "plausible", "pod.name": "main"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "plausible", Image: image,
					Env: []corev1.EnvVar{{Name: "BASE_URL", Value: "https://stat.example.org"}, {Name: "PORT", Value: "8000"}, {Name: "DISABLE_REGISTRATION", Value: "invite_only"},
						{Name: "CLICKHOUSE_DATABASE_URL", Value: "http://plausible-clickhouse:8123/plausible"},
						c8appSecretKey("DATABASE_URL", "plausible-cnpg-main-urls", "std"), c8appSecretKey("SECRET_KEY_BASE", "plausible-secret", "SECRET_KEY_BASE"),
						c8appSecretKey("TOTP_VAULT_KEY", "plausible-secret", "TOTP_VAULT_KEY")},
					Ports:          []corev1.ContainerPort{{Name: "main", ContainerPort: 8000}},
					LivenessProbe:  c4aHTTPProbe("/api/health", 8000, corev1.URISchemeHTTP),
					ReadinessProbe: c4aHTTPProbe("/api/health", 8000, corev1.URISchemeHTTP),
					StartupProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8000)}}, PeriodSeconds: 5, FailureThreshold: 60}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "plausible", Replicas: 1, Template: &tmpl,
				PodStatus: c10appPod("172.16.1.224", 5*time.Hour, c10appCtr("plausible", image, true, 5*time.Hour, 0))})
			p := pods[0]
			c4bService(t, c, ns, "plausible", labels, []corev1.ServicePort{c4bPort("main", 10280, intstr.FromInt32(8000))})
			c4bSlice(t, c, ns, "plausible", c4bSlicePort("main", 8000), p)
			boot := time.Now().Add(-5 * time.Hour).UTC()
			bt := func(ms int) string { return boot.Add(time.Duration(ms) * time.Millisecond).Format("15:04:05.000") }
			var reqs strings.Builder
			for i := 0; i < 6; i++ {
				at := time.Now().Add(-time.Duration(48-8*i) * time.Minute).UTC().Format("15:04:05.000")
				path := []string{"/example.org", "/login", "/", "/register", "/example.org", "/sites"}[i]
				fmt.Fprintf(&reqs, "%s [error] #PID<0.%d.0> running PlausibleWeb.Endpoint (connection #PID<0.%d.0>, stream id 1) terminated\n", at, 3642+17*i, 3641+17*i)
				reqs.WriteString("Server: stat.example.org:80 (http)\nRequest: GET " + path + "\n** (exit) an exception was raised:\n")
				reqs.WriteString("    ** (ArgumentError) cookie store expects conn.secret_key_base to be at least 64 bytes\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session/cookie.ex:240: Plug.Session.COOKIE.validate_secret_key_base/1\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session/cookie.ex:230: Plug.Session.COOKIE.derive/3\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session/cookie.ex:124: Plug.Session.COOKIE.get/3\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session.ex:102: anonymous fn/3 in Plug.Session.fetch_session/1\n")
				reqs.WriteString("        (plausible 0.0.1) lib/plausible_web/endpoint.ex:1: PlausibleWeb.Endpoint.plug_builder_call/2\n")
			}
			c.SetLogs(ns, p.Name, "plausible", false, c5Lines(
				"Loading plausible..",
				"Starting dependencies..",
				"Starting repos..",
				"Running migrations for Elixir.Plausible.Repo",
				bt(412)+" [info] Migrations already up",
				"Running migrations for Elixir.Plausible.IngestRepo",
				bt(903)+" [info] Migrations already up",
				"Success!",
				bt(2611)+" [info] Running PlausibleWeb.Endpoint with cowboy 2.9.0 at :::8000 (http)",
				bt(2614)+" [info] Access PlausibleWeb.Endpoint at https://stat.example.org",
			)+reqs.String())
			return []string{"pod/" + p.Name}
		},
		category: "Running/Errors",
		culprit:  []string{"SECRET_KEY_BASE"},
	},
}
