package e2e

import (
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The ninth batch of real material, application side: start-up and
// runtime failures of widely used software (a secret manager, an API
// gateway, a log shipper, databases, a proxy, an ingress controller, a
// dashboard, object storage, a workflow scheduler) as their container logs
// and the cluster showed them in a public thread whose resolution names
// the cause. Registered only with KUBECTL_TRIAGE_REAL_MISSES set; the
// expectations were written from the threads before the first run.
//
// First round against d47c71f6 (the code of 903242f3): 0 of 12. Every
// category prefix matched; every culprit missed. What the reports said
// instead:
//   - Vault 2.0.1: exit 126 PermissionDenied on the entrypoint's "exec:
//     vault: Operation not permitted"; the IPC_LOCK line before it and the
//     2.0.1 image are not named.
//   - Kong: the "New migrations available" line as is; not that the
//     kong-migrations Job bootstrapped the database with kong:1.2.
//   - Fluent Bit: Running/Errors on the "HTTP status=400 URI=/_bulk,
//     response:" line cut before the JSON body on the next line; no _type,
//     no Suppress_Type_Name.
//   - MySQL: the last error line ("Aborting") over the MY-011087 line
//     naming lower_case_table_names; the ConfigMap setting it is not traced.
//   - hubble-ui: InvalidConfig on the Envoy protobuf line; not the
//     hubble-ui-envoy ConfigMap it reads (v2 fields against Envoy 1.22).
//   - Traefik: the "field not found, node: entryPoint" line; not the
//     untagged image (latest, now v2) against a v1 traefik.toml.
//   - Neo4j: the "exceeds physical memory" line; not the 4.2.2 image on a
//     containerd node (the 10Gi limit is not compared).
//   - Crunchy Postgres: Running/Errors/NoSpace "the volume is full"; the
//     64M /dev/shm with no memory-backed mount is not named.
//   - Kibana: Exit64 "unhandled panic or exception" on the FATAL line; not
//     the ELASTICSEARCH_USERNAME env var that sets elasticsearch.username.
//   - MongoDB: exit 132 (signal 4) with no log line at all; the AVX
//     warning the container printed is not read.
//   - Airflow: InitContainer Panic on the TimeoutError; not that the
//     run-airflow-migrations Job never ran.
//   - MinIO: AuthFailed "a dependency rejects the credentials" (it is the
//     server refusing its own); not the 5-byte rootPassword key of Secret
//     thanos-minio-secret.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c9appScenarios...)
		register(c9appScenarios2...)
	}
}

// c9appSide is the status of a sidecar container running and Ready since
// ago.
func c9appSide(name, image string, since time.Duration) corev1.ContainerStatus {
	return wlReadyStatus(name, image, since).ContainerStatuses[0]
}

// c9appCrash is c8appCrash with the pod's other containers (running and
// Ready) listed before the crashing one.
func c9appCrash(container, image string, code, restarts int32, sides ...corev1.ContainerStatus) corev1.PodStatus {
	st := c8appCrash(container, image, code, restarts)
	st.ContainerStatuses = append(sides, st.ContainerStatuses...)
	return st
}

// c9appInitCrash is a pod Pending on init container init (image), which
// crash-loops with code after restarts; the app containers wait in
// PodInitializing.
func c9appInitCrash(init, image string, code, restarts int32, ip string, apps ...[2]string) corev1.PodStatus {
	started := minutesAgo(40)
	st := corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, StartTime: &started,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
			{Type: corev1.PodInitialized, Status: corev1.ConditionFalse, Reason: "ContainersNotInitialized", Message: "containers with incomplete status: [" + init + "]", LastTransitionTime: started},
			{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: started},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: started},
		},
		InitContainerStatuses: []corev1.ContainerStatus{{Name: init, Image: image, ImageID: image + "@sha256:9a", ContainerID: "containerd://i9", RestartCount: restarts,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container=" + init}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error",
				StartedAt: minutesAgo(3), FinishedAt: minutesAgo(2), ContainerID: "containerd://i9"}}}},
	}
	for _, a := range apps {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{Name: a[0], Image: a[1], Started: ptr(false),
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}})
	}
	return st
}

// c9appCompleted is a Job pod whose container ran image and exited 0
// finished ago.
func c9appCompleted(container, image string, finished time.Duration) corev1.PodStatus {
	start := wlAgo(finished + 40*time.Second)
	return corev1.PodStatus{Phase: corev1.PodSucceeded, HostIP: "127.0.0.1", PodIP: "10.244.0.96", PodIPs: []corev1.PodIP{{IP: "10.244.0.96"}}, StartTime: &start,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: start},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "PodCompleted", LastTransitionTime: wlAgo(finished)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:3d", ContainerID: "containerd://j9",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
				StartedAt: wlAgo(finished + 30*time.Second), FinishedAt: wlAgo(finished), ContainerID: "containerd://j9"}}}},
	}
}

// c9appJobDone is the status of a Job whose one pod succeeded finished ago.
func c9appJobDone(finished time.Duration) batchv1.JobStatus {
	done := wlAgo(finished)
	return batchv1.JobStatus{StartTime: ptr(wlAgo(finished + time.Minute)), CompletionTime: &done, Succeeded: 1, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: done, LastTransitionTime: done},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: done, LastTransitionTime: done}}}
}

// c9appStsPodOn creates ordinal i of sts on node with status.
func c9appStsPodOn(t *testing.T, c *testcluster.Cluster, sts *appsv1.StatefulSet, i int, node string, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	name := fmt.Sprintf("%s-%d", sts.Name, i)
	labels := maps.Clone(sts.Spec.Template.Labels)
	labels["statefulset.kubernetes.io/pod-name"] = name
	labels["apps.kubernetes.io/pod-index"] = fmt.Sprint(i)
	labels["controller-revision-hash"] = sts.Name + "-5d8f7c9b6"
	spec := *sts.Spec.Template.Spec.DeepCopy()
	spec.Hostname, spec.Subdomain, spec.NodeName = name, sts.Spec.ServiceName, node
	return c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sts.Namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{wlController("StatefulSet", sts)}}, Spec: spec, Status: status})
}

var c9appScenarios = []scenario{
	{
		// Vault 2.0.1 changed how the vault binary gets cap_ipc_lock: the
		// kernel now refuses to exec it in a container whose securityContext
		// does not grant IPC_LOCK (the helm chart's default one does not),
		// whatever disable_mlock says; the entrypoint's exec fails with
		// EPERM and the server never starts. The fix is adding IPC_LOCK to
		// the container's capabilities.
		name:   "real-vault-2-0-1-ipc-lock-capability-not-granted",
		source: "material: https://github.com/sigstore/cosign/pull/4879 (Vault v2.0.1 started without IPC_LOCK: \"Vault requires the IPC_LOCK capability. Please use --cap-add IPC_LOCK or add it to the securityContext capabilities\" then \"/usr/local/bin/docker-entrypoint.sh: exec: line 116: vault: Operation not permitted\"; fixed by adding IPC_LOCK); the Kubernetes side in https://github.com/sapcc/helm-charts/pull/12016 (Vault 2.0.1's binary: the kernel refuses to exec it inside a container unless IPC_LOCK is granted in the container's securityContext) and https://github.com/hashicorp/vault-helm/pull/1185 (the chart's default container securityContext lacks IPC_LOCK for Vault 2.0.1+)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/hashicorp/vault:2.0.1"
			c4aConfigMap(t, c, ns, "vault-config", map[string]string{"extraconfig-from-values.hcl": "disable_mlock = true\nui = true\n\nlistener \"tcp\" {\n  tls_disable = 1\n  address = \"[::]:8200\"\n  cluster_address = \"[::]:8201\"\n}\nstorage \"file\" {\n  path = \"/vault/data\"\n}\n"})
			c4aClaim(t, c, ns, "data-vault-0", "standard", "ebs.csi.aws.com", "10Gi")
			pods := c8appSts(t, c, ns, "vault", "vault-internal", "vault", image, 8200, 1, func(s *corev1.PodSpec) {
				s.ServiceAccountName = "default"
				s.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(100)), RunAsGroup: ptr(int64(1000)), FSGroup: ptr(int64(1000))}
				s.Containers[0].Command = []string{"/bin/sh", "-ec"}
				s.Containers[0].Args = []string{"cp /vault/config/extraconfig-from-values.hcl /tmp/storageconfig.hcl;\n[ -n \"${HOST_IP}\" ] && sed -Ei \"s|HOST_IP|${HOST_IP?}|g\" /tmp/storageconfig.hcl;\n/usr/local/bin/docker-entrypoint.sh vault server -config=/tmp/storageconfig.hcl \n"}
				s.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr(false)}
				s.Containers[0].Env = []corev1.EnvVar{
					{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}},
					{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
					{Name: "VAULT_ADDR", Value: "http://127.0.0.1:8200"}, {Name: "VAULT_API_ADDR", Value: "http://$(POD_IP):8200"},
					{Name: "SKIP_CHOWN", Value: "true"}, {Name: "SKIP_SETCAP", Value: "true"}, {Name: "HOME", Value: "/home/vault"}}
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8200}, {Name: "https-internal", ContainerPort: 8201}}
				s.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh", "-ec", "vault status -tls-skip-verify"}}},
					InitialDelaySeconds: 5, PeriodSeconds: 5, TimeoutSeconds: 3, FailureThreshold: 2, SuccessThreshold: 1}
				s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: c4aConfigMapSource("vault-config")}, {Name: "data", VolumeSource: c4aClaimSource("data-vault-0")},
					{Name: "home", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
				s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/vault/data"}, {Name: "config", MountPath: "/vault/config"}, {Name: "home", MountPath: "/home/vault"}}
			}, c8appCrash("vault", image, 126, 12))
			c.SetLogs(ns, pods[0].Name, "vault", true, c5Lines(
				"Vault requires the IPC_LOCK capability. Please use --cap-add IPC_LOCK or add it to the securityContext capabilities",
				"/usr/local/bin/docker-entrypoint.sh: exec: line 116: vault: Operation not permitted",
			))
			c.SetLogs(ns, pods[0].Name, "vault", false, "")
			c8appBackOff(t, c, pods[0], "vault", 57)
			return []string{"pod/vault-0"}
		},
		category: "CrashLoop/Exit126",
		culprit:  []string{"IPC_LOCK", "2.0.1"},
	},
	{
		// The all-in-one manifest was bumped to Kong 1.3 for the proxy while
		// its kong-migrations Job (and the wait-for-migrations init
		// container) stayed on kong:1.2: the Job bootstrapped the database
		// to 1.2's schema, so the 1.3 proxy finds migrations it has not run
		// and refuses to start. The fix bumped the migrations Job's image to
		// the proxy's (then kong migrations up).
		name:   "real-kong-1-3-proxy-over-database-bootstrapped-by-kong-1-2",
		source: "material: https://github.com/Kong/kubernetes-ingress-controller/issues/458 (fresh all-in-one-postgres deployment: kong-proxy in CrashLoopBackOff with nginx: [error] init_by_lua error: /usr/local/share/lua/5.1/kong/cmd/utils/migrations.lua:25: New migrations available; run 'kong migrations up' to proceed, while the migrations Job looked good: Bootstrapping database... core migrated up to: 000_base (executed)); the cause and fix in https://github.com/Kong/kubernetes-ingress-controller/pull/408 (the proxy was bumped to 1.3 in 4a94cb3 but the migrations part of the manifest was not: kong-migrations and wait-for-migrations still run kong:1.2)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			proxyImage, oldImage := "kong:1.3", "kong:1.2"
			controller := "kong-docker-kubernetes-ingress-controller.bintray.io/kong-ingress-controller:0.6.0"
			pgEnv := []corev1.EnvVar{{Name: "KONG_PG_PASSWORD", Value: "kong"}, {Name: "KONG_PG_HOST", Value: "postgres"}, {Name: "KONG_PG_PORT", Value: "5432"}}
			c8appSts(t, c, ns, "postgres", "postgres", "postgres", "postgres:9.5", 5432, 1, func(s *corev1.PodSpec) {
				s.Containers[0].Env = []corev1.EnvVar{{Name: "POSTGRES_USER", Value: "kong"}, {Name: "POSTGRES_PASSWORD", Value: "kong"}, {Name: "POSTGRES_DB", Value: "kong"}}
			}, c4bReady("postgres", "postgres:9.5", "10.244.0.61", 3*time.Hour))
			j := wlJob(t, c, ns, "kong-migrations", batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyOnFailure,
				InitContainers: []corev1.Container{{Name: "wait-for-postgres", Image: "busybox", Env: pgEnv[1:],
					Command: []string{"/bin/sh", "-c", "until nc -zv $KONG_PG_HOST $KONG_PG_PORT -w1; do echo 'waiting for db'; sleep 1; done"}}},
				Containers: []corev1.Container{{Name: "kong-migrations", Image: oldImage, Env: pgEnv, Command: []string{"/bin/sh", "-c", "kong migrations bootstrap"}}}}}},
				c9appJobDone(170*time.Minute))
			jp := wlJobPod(t, c, j, "kong-migrations-7xk2p", c9appCompleted("kong-migrations", oldImage, 170*time.Minute))
			c.SetLogs(ns, jp.Name, "kong-migrations", false, c5Lines(
				"Bootstrapping database...",
				"migrating core on database 'kong'...",
				"core migrated up to: 000_base (executed)",
				"core migrated up to: 001_14_to_15 (executed)",
				"core migrated up to: 002_15_to_1 (executed)",
				"core migrated up to: 003_100_to_110 (executed)",
				"core migrated up to: 004_110_to_120 (executed)",
				"migrating hmac-auth on database 'kong'...",
				"hmac-auth migrated up to: 000_base_hmac_auth (executed)",
				"hmac-auth migrated up to: 001_14_to_15 (executed)",
				"migrating oauth2 on database 'kong'...",
				"oauth2 migrated up to: 000_base_oauth2 (executed)",
				"oauth2 migrated up to: 001_14_to_15 (executed)",
				"oauth2 migrated up to: 002_15_to_10 (executed)",
				"migrating jwt on database 'kong'...",
				"jwt migrated up to: 000_base_jwt (executed)",
				"jwt migrated up to: 001_14_to_15 (executed)",
				"migrating basic-auth on database 'kong'...",
				"basic-auth migrated up to: 000_base_basic_auth (executed)",
				"basic-auth migrated up to: 001_14_to_15 (executed)",
				"migrating key-auth on database 'kong'...",
				"key-auth migrated up to: 000_base_key_auth (executed)",
				"key-auth migrated up to: 001_14_to_15 (executed)",
			))
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "ingress-kong"},
				Annotations: map[string]string{"prometheus.io/port": "9542", "prometheus.io/scrape": "true"}},
				Spec: corev1.PodSpec{ServiceAccountName: "default",
					InitContainers: []corev1.Container{{Name: "wait-for-migrations", Image: oldImage, Env: pgEnv[:2],
						Command: []string{"/bin/sh", "-c", "while true; do kong migrations list; if [[ 0 -eq $? ]]; then exit 0; fi; sleep 2;  done;"}}},
					Containers: []corev1.Container{
						{Name: "proxy", Image: proxyImage, Env: []corev1.EnvVar{{Name: "KONG_DATABASE", Value: "postgres"}, {Name: "KONG_PG_HOST", Value: "postgres"},
							{Name: "KONG_PG_PASSWORD", Value: "kong"}, {Name: "KONG_NGINX_HTTP_INCLUDE", Value: "/kong/servers.conf"},
							{Name: "KONG_ADMIN_LISTEN", Value: "127.0.0.1:8444 ssl"}},
							Ports:           []corev1.ContainerPort{{Name: "proxy", ContainerPort: 8000}, {Name: "proxy-ssl", ContainerPort: 8443}, {Name: "metrics", ContainerPort: 9542}},
							SecurityContext: &corev1.SecurityContext{RunAsUser: ptr(int64(1000))}},
						{Name: "ingress-controller", Image: controller, Args: []string{"/kong-ingress-controller", "--kong-url=https://localhost:8444", "--admin-tls-skip-verify", "--publish-service=" + ns + "/kong-proxy"},
							Ports: []corev1.ContainerPort{{Name: "webhook", ContainerPort: 8080}}},
					}}}
			st := c9appCrash("proxy", proxyImage, 1, 23, c9appSide("ingress-controller", controller, 2*time.Hour))
			st.ContainerStatuses[0].Ready = false
			st.InitContainerStatuses = []corev1.ContainerStatus{{Name: "wait-for-migrations", Image: oldImage, ImageID: oldImage + "@sha256:4e", Ready: true,
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: minutesAgo(172), FinishedAt: minutesAgo(169)}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "ingress-kong", Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			c4bService(t, c, ns, "kong-proxy", map[string]string{"app": "ingress-kong"}, []corev1.ServicePort{c4bPort("proxy", 80, intstr.FromInt32(8000)), c4bPort("proxy-ssl", 443, intstr.FromInt32(8443))})
			trace := []string{"stack traceback:", "\t[C]: in function 'error'", "\t/usr/local/share/lua/5.1/kong/cmd/utils/migrations.lua:25: in function 'check_state'",
				"\t/usr/local/share/lua/5.1/kong/init.lua:358: in function 'init'", "\tinit_by_lua:3: in main chunk"}
			msg := "init_by_lua error: /usr/local/share/lua/5.1/kong/cmd/utils/migrations.lua:25: New migrations available; run 'kong migrations up' to proceed"
			c.SetLogs(ns, p.Name, "proxy", true, c5Lines(append(append([]string{"2019/11/14 09:12:41 [error] 1#0: " + msg}, trace...), append([]string{"nginx: [error] " + msg}, trace...)...)...))
			c.SetLogs(ns, p.Name, "proxy", false, "")
			c8appBackOff(t, c, p, "proxy", 71)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"kong-migrations", "kong:1.2"},
	},
	{
		// Elasticsearch 8 removed mapping types, and Fluent Bit's es output
		// still sends _type in every bulk action line unless
		// Suppress_Type_Name is on: each flush is rejected with 400 and
		// retried, and no log reaches the cluster while the DaemonSet looks
		// healthy. Setting Suppress_Type_Name On in the [OUTPUT] section
		// fixed it.
		name:   "real-running-fluent-bit-es-8-rejects-type-in-bulk",
		source: "material: https://github.com/fluent/fluent-bit/issues/4825 (es output against Elasticsearch 8.0.0: [error] [output:es:es.0] HTTP status=400 URI=/_bulk, response: {\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Action/metadata line [1] contains an unknown parameter [_type]\"}] ...,\"status\":400}; ES 8 removed mapping types, enable Suppress_Type_Name); the chart's values carried no Suppress_Type_Name in https://github.com/fluent/fluent-bit/issues/8512; the flush retry line as in https://github.com/fluent/fluent-bit/issues/2448",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image, esImage := "cr.fluentbit.io/fluent/fluent-bit:1.8.12", "docker.elastic.co/elasticsearch/elasticsearch:8.0.0"
			c8appSts(t, c, ns, "elasticsearch-master", "elasticsearch-master", "elasticsearch", esImage, 9200, 1, func(s *corev1.PodSpec) {
				s.Containers[0].Env = []corev1.EnvVar{{Name: "discovery.type", Value: "single-node"}, {Name: "xpack.security.enabled", Value: "false"}}
			}, c4bReady("elasticsearch", esImage, "10.244.0.71", 26*time.Hour))
			c4aConfigMap(t, c, ns, "fluent-bit", map[string]string{
				"fluent-bit.conf": "[SERVICE]\n    Daemon Off\n    Flush 1\n    Log_Level info\n    Parsers_File parsers.conf\n    HTTP_Server On\n    HTTP_Listen 0.0.0.0\n    HTTP_Port 2020\n\n[INPUT]\n    Name tail\n    Path /var/log/containers/*.log\n    multiline.parser docker, cri\n    Tag kube.*\n    Mem_Buf_Limit 5MB\n    Skip_Long_Lines On\n\n[FILTER]\n    Name kubernetes\n    Match kube.*\n    Merge_Log On\n    Keep_Log Off\n\n[OUTPUT]\n    Name es\n    Match kube.*\n    Host elasticsearch-master\n    Logstash_Format On\n    Retry_Limit False\n",
				"parsers.conf":    "[PARSER]\n    Name docker_no_time\n    Format json\n    Time_Keep Off\n    Time_Key time\n    Time_Format %Y-%m-%dT%H:%M:%S.%L\n"})
			ds := c4bDaemonSet(t, c, ns, "fluent-bit", image, func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 2020}}
				s.Containers[0].LivenessProbe = c4aHTTPProbe("/", 2020, corev1.URISchemeHTTP)
				s.Containers[0].ReadinessProbe = c4aHTTPProbe("/api/v1/health", 2020, corev1.URISchemeHTTP)
				s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: c4aConfigMapSource("fluent-bit")},
					{Name: "varlog", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}}}
				s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/fluent-bit/etc/"}, {Name: "varlog", MountPath: "/var/log", ReadOnly: true}}
			}, appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, UpdatedNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1})
			p := c4bDaemonPod(t, c, ds, c.NodeName, "x8vqm", c4bReady("fluent-bit", image, "10.244.0.72", 5*time.Hour))
			resp := `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Action/metadata line [1] contains an unknown parameter [_type]"}],"type":"illegal_argument_exception","reason":"Action/metadata line [1] contains an unknown parameter [_type]"},"status":400}`
			c.SetLogs(ns, p.Name, "fluent-bit", false, c5Lines(
				"Fluent Bit v1.8.12",
				"* Copyright (C) 2019-2021 The Fluent Bit Authors",
				"* Copyright (C) 2015-2018 Treasure Data",
				"* Fluent Bit is a CNCF sub-project under the umbrella of Fluentd",
				"* https://fluentbit.io",
				"",
			)+c4bStamps(12, 20*time.Second, "2006/01/02 15:04:05",
				"[%s] [error] [output:es:es.0] HTTP status=400 URI=/_bulk, response:\n"+resp+"\n\n[%[1]s] [ warn] [engine] failed to flush chunk '1-1644911033.590129480.flb', retry in 10 seconds: task_id=3, input=tail.0 > output=es.0 (out_id=0)\n"))
			return []string{"daemonset/fluent-bit"}
		},
		category: "Running/Errors",
		culprit:  []string{"_type", "Suppress_Type_Name"},
	},
}
