package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The tenth application batch, continued (registered with the first part
// in scenarios_corpus10_app_test.go, whose header records the first
// round). The Kafka Connect scenario that passed it is captured as
// test/scenarios/real-kafka-connect-status-topic-cleanup-policy-delete.

// c10appTrinoConfig is the chart's config files for one Trino role.
func c10appTrinoConfig(coordinator bool, heap, maxPerNode, discovery string) map[string]string {
	return map[string]string{
		"node.properties": "node.environment=production\nnode.data-dir=/data/trino\nplugin.dir=/usr/lib/trino/plugin\n",
		"jvm.config": "-server\n-Xmx" + heap + "\n-XX:+UseG1GC\n-XX:G1HeapRegionSize=32M\n-XX:+UseGCOverheadLimit\n-XX:+ExplicitGCInvokesConcurrent\n-XX:+HeapDumpOnOutOfMemoryError\n" +
			"-XX:+ExitOnOutOfMemoryError\n-Djdk.attach.allowAttachSelf=true\n-XX:-UseBiasedLocking\n-XX:ReservedCodeCacheSize=512M\n-XX:PerMethodRecompilationCutoff=10000\n" +
			"-XX:PerBytecodeRecompilationCutoff=10000\n-Djdk.nio.maxCachedBufferSize=2000000\n",
		"config.properties": fmt.Sprintf("coordinator=%t\n", coordinator) + map[bool]string{true: "node-scheduler.include-coordinator=false\n", false: ""}[coordinator] +
			"http-server.http.port=8080\nquery.max-memory=1000GB\nquery.max-memory-per-node=" + maxPerNode + "\nmemory.heap-headroom-per-node=32GB\ndiscovery.uri=" + discovery + "\n",
		"log.properties": "io.trino=INFO\n",
	}
}

var c10appScenarios2 = []scenario{
	{
		// The chart was installed without datadog.site for an account on
		// the EU site: every agent sends to the default datadoghq.com, where
		// the (valid) EU key is unknown, and each payload is answered 403
		// "API Key invalid" and dropped while the pods look healthy. Setting
		// site: datadoghq.eu (DD_SITE) fixed it.
		name:   "real-running-datadog-cluster-agent-eu-api-key-sent-to-us-site",
		source: "material: https://github.com/DataDog/helm-charts/issues/188 (chart installed as described, all agents failing: UTC | CLUSTER | ERROR | (pkg/forwarder/transaction.go:179 in Process) | API Key invalid, dropping transaction for https://1-3-11-app.agent.datadoghq.com/api/v1/check_run; missing datadog.site: 'datadoghq.eu' for an EU installation); the same cause for DD_SITE in https://github.com/DataDog/datadog-agent/issues/9180 and https://github.com/DataDog/documentation/pull/10451 (the default DD_SITE and the resulting API key errors for non-US users)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "gcr.io/datadoghq/cluster-agent:1.11.0"
			c8appSecret(t, c, ns, "datadog", corev1.SecretTypeOpaque, map[string]string{"api-key": "5f2c8e1a9b3d4f6071e2c3d4a5b6c7d8"})
			c8appSecret(t, c, ns, "datadog-cluster-agent", corev1.SecretTypeOpaque, map[string]string{"token": "Xo2bV9mQ4rT7wZ1kP6sL3nD8cF5hJ0gA"})
			labels := map[string]string{"app": "datadog-cluster-agent"}
			_, _, pods := c4bDeploy(t, c, ns, "datadog-cluster-agent", labels, image, 5005, 1, c4bReady("cluster-agent", image, "10.244.0.55", 3*time.Hour), "", func(s *corev1.PodSpec) {
				s.ServiceAccountName = "default"
				ctr := &s.Containers[0]
				ctr.Name = "cluster-agent"
				ctr.Env = []corev1.EnvVar{{Name: "DD_HEALTH_PORT", Value: "5556"}, c8appSecretKey("DD_API_KEY", "datadog", "api-key"),
					c8appSecretKey("DD_CLUSTER_AGENT_AUTH_TOKEN", "datadog-cluster-agent", "token"),
					{Name: "DD_CLUSTER_AGENT_KUBERNETES_SERVICE_NAME", Value: "datadog-cluster-agent"}, {Name: "DD_KUBERNETES_INFORMERS_RESYNC_PERIOD", Value: "10"},
					{Name: "DD_LEADER_ELECTION", Value: "true"}, {Name: "DD_LEADER_LEASE_DURATION", Value: "60"}, {Name: "DD_COLLECT_KUBERNETES_EVENTS", Value: "true"},
					{Name: "DD_CLUSTER_CHECKS_ENABLED", Value: "true"}, {Name: "DD_LOG_LEVEL", Value: "INFO"}}
				ctr.ReadinessProbe = c4aHTTPProbe("/ready", 5556, corev1.URISchemeHTTP)
				ctr.LivenessProbe = c4aHTTPProbe("/live", 5556, corev1.URISchemeHTTP)
			})
			c4bService(t, c, ns, "datadog-cluster-agent", labels, []corev1.ServicePort{c4bPort("agentport", 5005, intstr.FromInt32(5005))})
			c4bSlice(t, c, ns, "datadog-cluster-agent", c4bSlicePort("agentport", 5005), pods...)
			c.SetLogs(ns, pods[0].Name, "cluster-agent", false, c4bStamps(24, 15*time.Second, "2006-01-02 15:04:05 MST",
				"%s | CLUSTER | ERROR | (pkg/forwarder/transaction.go:179 in Process) | API Key invalid, dropping transaction for https://1-3-11-app.agent.datadoghq.com/api/v1/check_run\n"))
			return []string{"pod/" + pods[0].Name}
		},
		category: "Running/Errors",
		culprit:  []string{"datadoghq.com", "DD_SITE"},
	},
	{
		// The chart shared one query.max-memory-per-node between workers and
		// coordinator: moved to a smaller node type with a 107G heap, the
		// coordinator's 150GB per-node query memory plus the 32GB heap
		// headroom no longer fit, and Trino refuses the configuration at
		// start. The fix gives the coordinator its own maxMemoryPerNode (or
		// a larger heap).
		name:   "real-trino-coordinator-max-memory-per-node-exceeds-107g-heap",
		source: "material: https://github.com/trinodb/charts/pull/70 (maxMemoryPerNode has to be split between worker and coordinator: deploying the coordinator on a smaller machine type otherwise fails with Invalid memory configuration. The sum of max query memory per node (161061273600) and heap headroom (34359738368) cannot be larger than the available heap memory (114890375168)); the check and the message in core/trino-main/src/main/java/io/trino/memory/LocalMemoryManager.java (validateHeapHeadroom); the chart's config.properties and jvm.config keys as in https://github.com/trinodb/trino/issues/13375 and https://github.com/trinodb/trino/issues/25341; 161061273600 B = 150GB, 34359738368 B = 32GB, 114890375168 B = 107G of heap",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "trinodb/trino:406"
			c4aConfigMap(t, c, ns, "trino-coordinator", c10appTrinoConfig(true, "107G", "150GB", "http://localhost:8080"))
			c4aConfigMap(t, c, ns, "trino-worker", c10appTrinoConfig(false, "200G", "150GB", "http://trino:8080"))
			role := func(component, heapLimit string) func(*corev1.PodSpec) {
				return func(s *corev1.PodSpec) {
					s.Containers[0].Name = "trino-" + component
					s.Containers[0].Resources = corev1.ResourceRequirements{Limits: c10appRes("30", heapLimit), Requests: c10appRes("30", heapLimit)}
					s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config-volume", MountPath: "/etc/trino"}}
					s.Containers[0].ReadinessProbe = c4aHTTPProbe("/v1/info", 8080, corev1.URISchemeHTTP)
					s.Volumes = []corev1.Volume{{Name: "config-volume", VolumeSource: c4aConfigMapSource("trino-" + component)}}
				}
			}
			coordLabels := map[string]string{"app": "trino", "release": "trino", "component": "coordinator"}
			st := c8appCrash("trino-coordinator", image, 1, 11)
			_, _, coord := c4bDeploy(t, c, ns, "trino-coordinator", coordLabels, image, 8080, 1, st, "", role("coordinator", "128Gi"))
			_, _, workers := c4bDeploy(t, c, ns, "trino-worker", map[string]string{"app": "trino", "release": "trino", "component": "worker"}, image, 8080, 2,
				c4bReady("trino-worker", image, "10.244.2.20", 30*time.Hour), "10.244.2.%d", role("worker", "240Gi"))
			_ = workers
			c4bService(t, c, ns, "trino", coordLabels, []corev1.ServicePort{c4bPort("http", 8080, intstr.FromString("http"))})
			c4bSlice(t, c, ns, "trino", c4bSlicePort("http", 8080), coord...)
			msg := "Invalid memory configuration. The sum of max query memory per node (161061273600) and heap headroom (34359738368) cannot be larger than the available heap memory (114890375168)"
			c.SetLogs(ns, coord[0].Name, "trino-coordinator", true, c5Lines(
				"2023-03-06T11:04:09.120Z\tINFO\tmain\tio.airlift.log.Logging\tLogging to stderr",
				"2023-03-06T11:04:12.736Z\tERROR\tmain\tio.trino.server.Server\tGuice creation errors:",
				"",
				"1) [Guice/ErrorInjectingConstructor]: IllegalArgumentException: "+msg,
				"  at LocalMemoryManager.<init>(LocalMemoryManager.java)",
				"  while locating LocalMemoryManager",
				"",
				"1 error",
			))
			c.SetLogs(ns, coord[0].Name, "trino-coordinator", false, "")
			c8appBackOff(t, c, coord[0], "trino-coordinator", 49)
			return []string{"pod/" + coord[0].Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"query.max-memory-per-node", "Xmx107G"},
	},
	{
		// The bitnami etcd chart behind APISIX removes a member from the
		// cluster in its preStop hook (removeMemberOnContainerTermination);
		// when the pod comes back on its old claim, the data directory still
		// holds the removed member's identity, the others reject it and it
		// exits. The fix: remove the member's data dir (its PVC) so it
		// rejoins as new, or disable the self-removal.
		name:   "real-apisix-etcd-0-permanently-removed-member-data-dir-kept",
		source: "material: https://github.com/apache/apisix-helm-chart/issues/768 (APISIX chart v2.7.0 on EKS 1.29: apisix-etcd-0 CrashLoopBackOff: {\"level\":\"warn\",...,\"msg\":\"server error\",\"error\":\"the member has been permanently removed from the cluster\"} / {\"msg\":\"data-dir used by this member must be removed\"} / failed to publish local member to cluster through raft; fixed by deleting the etcd PVCs); the mechanism in https://github.com/bitnami/charts/issues/5443 (pods terminated call member remove in prestop-hook.sh; starting again with existing persistent data the members reject each other) and the removeMemberOnContainerTermination value in https://github.com/bitnami/charts/pull/16548; the image as in https://github.com/apache/apisix/issues/11338 (docker.io/bitnami/etcd:3.5.10-debian-11-r2)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/bitnami/etcd:3.5.10-debian-11-r2"
			labels := map[string]string{"app.kubernetes.io/name": "etcd", "app.kubernetes.io/instance": "apisix"}
			c4bService(t, c, ns, "apisix-etcd-headless", labels, []corev1.ServicePort{c4bPort("client", 2379, intstr.FromString("client")), c4bPort("peer", 2380, intstr.FromString("peer"))},
				func(s *corev1.Service) {
					s.Spec.ClusterIP, s.Spec.PublishNotReadyAddresses = corev1.ClusterIPNone, true
				})
			c4bService(t, c, ns, "apisix-etcd", labels, []corev1.ServicePort{c4bPort("client", 2379, intstr.FromString("client"))})
			peer := func(i int) string {
				return fmt.Sprintf("apisix-etcd-%d=http://apisix-etcd-%d.apisix-etcd-headless.%s.svc.cluster.local:2380", i, i, ns)
			}
			sts := c4bStatefulSet(t, c, ns, "apisix-etcd", "apisix-etcd-headless", labels, image, 3, appsv1.ParallelPodManagement, func(s *corev1.PodSpec) {
				ctr := &s.Containers[0]
				ctr.Name = "etcd"
				ctr.SecurityContext = &corev1.SecurityContext{RunAsUser: ptr(int64(1001)), RunAsNonRoot: ptr(true)}
				ctr.Env = []corev1.EnvVar{{Name: "BITNAMI_DEBUG", Value: "false"},
					{Name: "MY_POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
					{Name: "MY_POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "MY_STS_NAME", Value: "apisix-etcd"}, {Name: "ETCDCTL_API", Value: "3"}, {Name: "ETCD_ON_K8S", Value: "yes"},
					{Name: "ETCD_START_FROM_SNAPSHOT", Value: "no"}, {Name: "ETCD_DISASTER_RECOVERY", Value: "no"}, {Name: "ETCD_NAME", Value: "$(MY_POD_NAME)"},
					{Name: "ETCD_DATA_DIR", Value: "/bitnami/etcd/data"}, {Name: "ETCD_LOG_LEVEL", Value: "info"}, {Name: "ALLOW_NONE_AUTHENTICATION", Value: "yes"},
					{Name: "ETCD_ADVERTISE_CLIENT_URLS", Value: fmt.Sprintf("http://$(MY_POD_NAME).apisix-etcd-headless.%s.svc.cluster.local:2379,http://apisix-etcd.%s.svc.cluster.local:2379", ns, ns)},
					{Name: "ETCD_LISTEN_CLIENT_URLS", Value: "http://0.0.0.0:2379"},
					{Name: "ETCD_INITIAL_ADVERTISE_PEER_URLS", Value: fmt.Sprintf("http://$(MY_POD_NAME).apisix-etcd-headless.%s.svc.cluster.local:2380", ns)},
					{Name: "ETCD_LISTEN_PEER_URLS", Value: "http://0.0.0.0:2380"}, {Name: "ETCD_INITIAL_CLUSTER_TOKEN", Value: "etcd-cluster-k8s"},
					{Name: "ETCD_INITIAL_CLUSTER_STATE", Value: "existing"}, {Name: "ETCD_INITIAL_CLUSTER", Value: strings.Join([]string{peer(0), peer(1), peer(2)}, ",")},
					{Name: "ETCD_CLUSTER_DOMAIN", Value: fmt.Sprintf("apisix-etcd-headless.%s.svc.cluster.local", ns)}}
				ctr.Ports = []corev1.ContainerPort{{Name: "client", ContainerPort: 2379}, {Name: "peer", ContainerPort: 2380}}
				health := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/opt/bitnami/scripts/etcd/healthcheck.sh"}}}, InitialDelaySeconds: 60, PeriodSeconds: 30, TimeoutSeconds: 5, FailureThreshold: 5}
				ctr.LivenessProbe, ctr.ReadinessProbe = health, health
				ctr.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/opt/bitnami/scripts/etcd/prestop.sh"}}}}
				ctr.VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/bitnami/etcd"}}
				s.SecurityContext = &corev1.PodSecurityContext{FSGroup: ptr(int64(1001))}
				s.Volumes = []corev1.Volume{{Name: "data", VolumeSource: c4aClaimSource("data")}}
			})
			c10appStsStatus(t, c, sts, 3, 2)
			for i := 0; i < 3; i++ {
				c4aClaim(t, c, ns, fmt.Sprintf("data-apisix-etcd-%d", i), "gp2", "ebs.csi.aws.com", "8Gi")
			}
			st := c8appCrash("etcd", image, 1, 22)
			p0 := c10appStsPod(t, c, sts, 0, c.NodeName, st)
			for i, ip := range []string{"10.244.0.52", "10.244.0.53"} {
				c10appStsPod(t, c, sts, i+1, c.NodeName, c4bReady("etcd", image, ip, 11*24*time.Hour))
			}
			c.SetLogs(ns, p0.Name, "etcd", true, c5Lines(
				`{"level":"warn","ts":"2024-07-08T10:17:39.664Z","caller":"etcdserver/server.go:1127","msg":"server error","error":"the member has been permanently removed from the cluster"}`,
				`{"level":"warn","ts":"2024-07-08T10:17:39.664Z","caller":"etcdserver/server.go:1128","msg":"data-dir used by this member must be removed"}`,
				fmt.Sprintf(`{"level":"warn","ts":"2024-07-08T10:17:39.665Z","caller":"etcdserver/server.go:2083","msg":"failed to publish local member to cluster through raft","local-member-id":"dca459b91c9da974","local-member-attributes":"{Name:apisix-etcd-0 ClientURLs:[http://apisix-etcd-0.apisix-etcd-headless.%s.svc.cluster.local:2379 http://apisix-etcd.%s.svc.cluster.local:2379]}","request-path":"/0/members/dca459b91c9da974/attributes","publish-timeout":"7s","error":"etcdserver: request cancelled"}`, ns, ns),
			))
			c.SetLogs(ns, p0.Name, "etcd", false, "")
			c8appBackOff(t, c, p0, "etcd", 97)
			return []string{"pod/apisix-etcd-0"}
		},
		category: "CrashLoop/",
		culprit:  []string{"permanently removed", "data-apisix-etcd-0"},
	},
	{
		// The project's own Filebeat image (elkacr.azurecr.io/filebeat:1.0.0)
		// ships /etc/filebeat/filebeat.yml group-writable; Filebeat (5.3+)
		// refuses a config file writable by anyone but its owner and exits
		// at start on every node. Nothing in the cluster mounts that file:
		// the fix is in the image (chmod go-w) or -strict.perms=false.
		name:   "real-filebeat-image-config-group-writable-strict-perms",
		source: "material: https://github.com/microsoft/elk-acs-kubernetes/issues/5 (\"Likely an issue with the Filebeat image\": kubectl --namespace=elk-cluster-ns logs filebeat-cvrln: filebeat2017/06/29 12:00:26.658835 beat.go:339: CRIT Exiting: error loading config file: config file (\"/etc/filebeat/filebeat.yml\") can only be writable by the owner but the permissions are \"-rw-rw-r--\" (to fix the permissions use: 'chmod go-w /etc/filebeat/filebeat.yml')); the DaemonSet and values as in that repository's helm-charts/filebeat (image {{ .Values.common.registry }}/filebeat:{{ .Values.filebeat.image.tag }} = elkacr.azurecr.io/filebeat:1.0.0, pullPolicy Always, no config volume); the strict permission check and its fixes in https://github.com/elastic/beats/issues/3695",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "elkacr.azurecr.io/filebeat:1.0.0"
			c8appSecret(t, c, ns, "azure-registry", corev1.SecretTypeDockerConfigJson, map[string]string{".dockerconfigjson": `{"auths":{"elkacr.azurecr.io":{"username":"elkacr","password":"p4ssw0rd","auth":"ZWxrYWNyOnA0c3N3MHJk"}}}`})
			host := func(name, path string) corev1.Volume {
				return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}}
			}
			ds := c4bDaemonSet(t, c, ns, "filebeat", image, func(s *corev1.PodSpec) {
				s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "azure-registry"}}
				s.TerminationGracePeriodSeconds = ptr(int64(30))
				s.Tolerations = []corev1.Toleration{{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule}}
				ctr := &s.Containers[0]
				ctr.ImagePullPolicy = corev1.PullAlways
				ctr.Resources = corev1.ResourceRequirements{Limits: c10appRes("50m", "50Mi")}
				ctr.Env = []corev1.EnvVar{{Name: "LOGSTASH_HOSTS", Value: "logstash:5043"}, {Name: "LOG_LEVEL", Value: "info"},
					{Name: "FILEBEAT_HOST", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}}
				ctr.VolumeMounts = []corev1.VolumeMount{{Name: "varlog", MountPath: "/var/log"}, {Name: "varlogcontainers", MountPath: "/var/log/containers"},
					{Name: "varlogpods", MountPath: "/var/log/pods", ReadOnly: true}, {Name: "varlibdockercontainers", MountPath: "/var/lib/docker/containers", ReadOnly: true}}
				s.Volumes = []corev1.Volume{host("varlog", "/var/log"), host("varlogcontainers", "/var/log/containers"), host("varlogpods", "/var/log/pods"), host("varlibdockercontainers", "/var/lib/docker/containers")}
			}, appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, UpdatedNumberScheduled: 1, NumberReady: 0, NumberUnavailable: 1})
			p := c4bDaemonPod(t, c, ds, c.NodeName, "cvrln", c8appCrash("filebeat", image, 1, 31))
			msg := `error loading config file: config file ("/etc/filebeat/filebeat.yml") can only be writable by the owner but the permissions are "-rw-rw-r--" (to fix the permissions use: 'chmod go-w /etc/filebeat/filebeat.yml')`
			c.SetLogs(ns, p.Name, "filebeat", true, c5Lines("filebeat2017/06/29 12:00:26.658835 beat.go:339: CRIT Exiting: "+msg, "Exiting: "+msg))
			c.SetLogs(ns, p.Name, "filebeat", false, "")
			c8appBackOff(t, c, p, "filebeat", 140)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"-rw-rw-r--", "elkacr.azurecr.io/filebeat:1.0.0"},
	},
	{
		// mongod 4.2 sizes the WiredTiger cache from the memory it sees; on
		// the new Ubuntu 22.04 nodes (cgroup v2) it does not see the
		// container's limit and takes half of the node's RAM (63793M), far
		// above the 16Gi limit, so the kernel kills it as the cache fills.
		// The fix is setting storage.wiredTiger.engineConfig.cacheSizeGB
		// below the limit (additionalMongodConfig).
		name:   "real-mongod-4-2-cgroup-v2-wiredtiger-cache-63793m-oomkilled",
		source: "material: https://github.com/mongodb/mongodb-kubernetes-operator/issues/1351 (MongoDB not respecting limits part2, on a new cluster with Ubuntu 22.04 and cgroup v2 on the k8s hosts, fine before on Ubuntu 20.04 with cgroup v1: I  STORAGE  [initandlisten] wiredtiger_open config: create,cache_size=63793M,... and the options line of /data/automation-mongod.conf with no cacheSizeGB; the pod is killed); the same thread in https://github.com/mongodb/mongodb-kubernetes-operator/issues/830 (mongod sees all of the node's memory; fix: additionalMongodConfig storage.wiredTiger.engineConfig.cacheSizeGB); cgroup v2 limit detection only in later mongod releases per https://github.com/docker-library/docs/pull/2610; the container limit (16Gi) is not in the excerpt and is this setup's",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image, agent := "docker.io/mongo:4.2.6", "quay.io/mongodb/mongodb-agent:12.0.15.7646-1"
			node := "k8s-worker-3"
			c8kubeNode(t, c, node, c8kubeNodeInfo("Ubuntu 22.04.2 LTS", "5.15.0-78-generic", "containerd://1.6.21", "v1.26.7"), func(n *corev1.Node) {
				n.Status.Capacity[corev1.ResourceMemory] = resource.MustParse("125Gi")
				n.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse("123Gi")
				n.Status.Capacity[corev1.ResourceCPU], n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("32"), resource.MustParse("31")
			})
			labels := map[string]string{"app": "asrv-mongodb-svc"}
			c4bService(t, c, ns, "asrv-mongodb-svc", labels, []corev1.ServicePort{c4bPort("mongodb", 27017, intstr.FromInt32(27017))},
				func(s *corev1.Service) {
					s.Spec.ClusterIP, s.Spec.PublishNotReadyAddresses = corev1.ClusterIPNone, true
				})
			sts := c4bStatefulSet(t, c, ns, "asrv-mongodb", "asrv-mongodb-svc", labels, image, 3, appsv1.OrderedReadyPodManagement, func(s *corev1.PodSpec) {
				s.ServiceAccountName = "default"
				s.Containers[0].Name = "mongod"
				s.Containers[0].Command = []string{"/bin/sh", "-c", "\nif [ -e \"/hooks/version-upgrade\" ]; then\n  /hooks/version-upgrade\nfi\n\n# wait for config and keyfile to be created by the agent\nwhile ! [ -f /data/automation-mongod.conf -a -f /var/lib/mongodb-mms-automation/authentication/keyfile ]; do sleep 3 ; done ; sleep 2 ;\n\n# start mongod with this configuration\nexec mongod -f /data/automation-mongod.conf;\n"}
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "mongodb", ContainerPort: 27017}}
				s.Containers[0].Resources = corev1.ResourceRequirements{Limits: c10appRes("4", "16Gi"), Requests: c10appRes("2", "12Gi")}
				s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data-volume", MountPath: "/data"}, {Name: "logs-volume", MountPath: "/var/log/mongodb-mms-automation"}}
				s.Containers = append(s.Containers, corev1.Container{Name: "mongodb-agent", Image: agent,
					Env:            []corev1.EnvVar{{Name: "AUTOMATION_CONFIG_MAP", Value: "asrv-mongodb-config"}, {Name: "AGENT_STATUS_FILEPATH", Value: "/var/log/mongodb-mms-automation/healthstatus/agent-health-status.json"}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/opt/scripts/readinessprobe"}}}, PeriodSeconds: 10, FailureThreshold: 40},
					VolumeMounts:   []corev1.VolumeMount{{Name: "data-volume", MountPath: "/data"}, {Name: "logs-volume", MountPath: "/var/log/mongodb-mms-automation"}}})
				s.Volumes = []corev1.Volume{{Name: "data-volume", VolumeSource: c4aClaimSource("data-volume")}, {Name: "logs-volume", VolumeSource: c4aClaimSource("logs-volume")}}
			})
			c10appStsStatus(t, c, sts, 3, 2)
			for i := 0; i < 3; i++ {
				c4aClaim(t, c, ns, fmt.Sprintf("data-volume-asrv-mongodb-%d", i), "longhorn", "driver.longhorn.io", "100Gi")
				c4aClaim(t, c, ns, fmt.Sprintf("logs-volume-asrv-mongodb-%d", i), "longhorn", "driver.longhorn.io", "2Gi")
			}
			st := c9appCrash("mongod", image, 137, 7, c9appSide("mongodb-agent", agent, 9*time.Hour))
			st.ContainerStatuses[1].LastTerminationState.Terminated.Reason = "OOMKilled"
			st.ContainerStatuses[1].State.Waiting.Message = "back-off 5m0s restarting failed container=mongod pod=asrv-mongodb-0_" + ns
			st.HostIP = "127.0.0.1"
			p0 := c10appStsPod(t, c, sts, 0, node, st)
			for i, ip := range []string{"10.244.3.21", "10.244.3.22"} {
				c10appStsPod(t, c, sts, i+1, node, c10appPod(ip, 9*time.Hour, c10appCtr("mongod", image, true, 50*time.Minute, 5), c10appCtr("mongodb-agent", agent, true, 9*time.Hour, 0)))
			}
			c.SetLogs(ns, p0.Name, "mongod", true, c5Lines(
				`2023-08-10T15:37:55.545+0000 I  STORAGE  [initandlisten] wiredtiger_open config: create,cache_size=63793M,cache_overflow=(file_max=0M),session_max=33000,eviction=(threads_min=4,threads_max=4),config_base=false,statistics=(fast),log=(enabled=true,archive=true,path=journal,compressor=zlib),file_manager=(close_idle_time=100000,close_scan_interval=10,close_handle_minimum=250),statistics_log=(wait=0),verbose=[recovery_progress,checkpoint_progress],`,
				`2023-08-10T15:37:55.545+0000 I  CONTROL  [initandlisten] options: { config: "/data/automation-mongod.conf", net: { bindIp: "0.0.0.0", port: 27017 }, replication: { replSetName: "asrv-mongodb" }, security: { authorization: "enabled", keyFile: "/var/lib/mongodb-mms-automation/authentication/keyfile" }, setParameter: { authenticationMechanisms: "SCRAM-SHA-256", maxTransactionLockRequestTimeoutMillis: "10000", transactionLifetimeLimitSeconds: "10800" }, storage: { dbPath: "/data", engine: "wiredTiger", wiredTiger: { engineConfig: { journalCompressor: "zlib" } } } }`,
			))
			c.SetLogs(ns, p0.Name, "mongod", false, "")
			c8appBackOff(t, c, p0, "mongod", 31)
			return []string{"pod/asrv-mongodb-0"}
		},
		category: "OOMKilled",
		culprit:  []string{"63793M", "cacheSizeGB"},
	},
}
