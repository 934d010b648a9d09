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

// c9appPGLog is a Patroni-managed PostgreSQL's current log: the leader's
// heartbeat every ten seconds and, every fourth one, a parallel query whose
// worker fails to grow its dynamic shared memory segment, the last a few
// seconds ago.
func c9appPGLog(n int, pod string) string {
	var b strings.Builder
	start := time.Now().Add(-time.Duration(n) * 10 * time.Second).UTC()
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * 10 * time.Second)
		fmt.Fprintf(&b, "%s INFO: no action. I am (%s), the leader with the lock\n", at.Format("2006-01-02 15:04:05,000"), pod)
		if i%4 == 3 {
			pid := 125412 + i
			fmt.Fprintf(&b, "%s [%d] ERROR:  could not resize shared memory segment \"/PostgreSQL.%d\" to 4194304 bytes: No space left on device\n",
				at.Add(3*time.Second).Format("2006-01-02 15:04:05.000 MST"), pid, 1516396529+i*7919)
			fmt.Fprintf(&b, "%s [%d] CONTEXT:  parallel worker\n", at.Add(3*time.Second).Format("2006-01-02 15:04:05.000 MST"), pid)
		}
	}
	return b.String()
}

// c9appAirflowWait is the python the Airflow chart's wait-for-airflow-
// migrations init container ran (chart main, spring 2021): it compares the
// database's alembic heads with the image's and gives up after 60 seconds.
const c9appAirflowWait = `import airflow
import logging
import os
import time

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from airflow import settings

package_dir = os.path.abspath(os.path.dirname(airflow.__file__))
directory = os.path.join(package_dir, 'migrations')
config = Config(os.path.join(package_dir, 'alembic.ini'))
config.set_main_option('script_location', directory)
config.set_main_option('sqlalchemy.url', settings.SQL_ALCHEMY_CONN.replace('%', '%%'))
script_ = ScriptDirectory.from_config(config)

timeout=60

with settings.engine.connect() as connection:
    context = MigrationContext.configure(connection)
    ticker = 0
    while True:
        source_heads = set(script_.get_heads())

        db_heads = set(context.get_current_heads())
        if source_heads == db_heads:
            break

        if ticker >= timeout:
            raise TimeoutError("There are still unapplied migrations after {} seconds.".format(ticker))
        ticker += 1
        time.sleep(1)
        logging.info('Waiting for migrations... %s second(s)', ticker)
`

var c9appScenarios2 = []scenario{
	{
		// Neo4j before 4.2.5 misread the memory available to it on nodes
		// whose runtime is containerd (the same settings start on Docker
		// nodes): it rejects its own memory settings as exceeding physical
		// memory although the container may use 10Gi. 4.2.5 fixed the
		// detection; the image was 4.2.2.
		name:   "real-neo4j-4-2-2-containerd-invalid-memory-configuration",
		source: "material: https://github.com/neo4j-contrib/neo4j-helm/issues/167 (Kubernetes 1.20 with containerd 1.5.0-beta3, neo4j-helm 4.2.2-1 with imageTag 4.2.2, limits cpu 1000m memory 10Gi: crashloop with ERROR Invalid memory configuration - exceeds physical memory. Check the configured values for dbms.memory.pagecache.size and dbms.memory.heap.max_size; the same settings work on a cluster using docker; fixed by neo4j 4.2.5: \"so far it starts\"); the same report against Neo4j in https://github.com/neo4j/neo4j/issues/12689",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/library/neo4j:4.2.2"
			node := c8kubeNode(t, c, "k8s-worker-containerd-1", c8kubeNodeInfo("Ubuntu 20.04.2 LTS", "5.4.0-66-generic", "containerd://1.5.0-beta.3", "v1.20.4"), func(n *corev1.Node) {
				n.Status.Capacity[corev1.ResourceMemory] = resource.MustParse("32Gi")
				n.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse("31Gi")
			})
			c8appSecret(t, c, ns, "twin-neo4j-secrets", corev1.SecretTypeOpaque, map[string]string{"neo4j-password": "twin"})
			labels := map[string]string{"app.kubernetes.io/name": "twin-neo4j", "app.kubernetes.io/component": "core", "app.kubernetes.io/instance": "neo4j"}
			c4bService(t, c, ns, "twin-neo4j", labels, []corev1.ServicePort{c4bPort("http", 7474, intstr.FromInt32(7474)), c4bPort("bolt", 7687, intstr.FromInt32(7687))}, func(s *corev1.Service) {
				s.Spec.ClusterIP = corev1.ClusterIPNone
			})
			sts := c4bStatefulSet(t, c, ns, "twin-neo4j-core", "twin-neo4j", labels, image, 1, appsv1.ParallelPodManagement, func(s *corev1.PodSpec) {
				ctr := &s.Containers[0]
				ctr.Name = "twin-neo4j"
				ctr.Env = []corev1.EnvVar{{Name: "NEO4J_ACCEPT_LICENSE_AGREEMENT", Value: "yes"}, {Name: "NEO4J_dbms_mode", Value: "SINGLE"},
					c8appSecretKey("NEO4J_SECRETS_PASSWORD", "twin-neo4j-secrets", "neo4j-password"), {Name: "NEO4J_dbms_default__listen__address", Value: "0.0.0.0"}}
				ctr.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 7474}, {Name: "bolt", ContainerPort: 7687}}
				ctr.Resources = corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m"), corev1.ResourceMemory: resource.MustParse("10Gi"), corev1.ResourceEphemeralStorage: resource.MustParse("4Gi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("5Gi"), corev1.ResourceEphemeralStorage: resource.MustParse("2Gi")}}
				s.Volumes = []corev1.Volume{{Name: "datadir", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
				ctr.VolumeMounts = []corev1.VolumeMount{{Name: "datadir", MountPath: "/data"}}
			})
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
				CurrentRevision: sts.Name + "-5d8f7c9b6", UpdateRevision: sts.Name + "-5d8f7c9b6", CollisionCount: ptr(int32(0))}
			c.SetObjectStatus(t, sts)
			st := c8appCrash("twin-neo4j", image, 1, 17)
			st.HostIP = "10.0.3.41"
			p := c9appStsPodOn(t, c, sts, 0, node.Name, st)
			c.SetLogs(ns, p.Name, "twin-neo4j", true, c5Lines(
				"Starting Neo4j.",
				"2021-03-10 18:01:33.878+0000 ERROR Invalid memory configuration - exceeds physical memory. Check the configured values for dbms.memory.pagecache.size and dbms.memory.heap.max_size",
			))
			c.SetLogs(ns, p.Name, "twin-neo4j", false, "")
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 66, First: time.Now().Add(-50 * time.Minute), FieldPath: "spec.containers{twin-neo4j}", Host: node.Name,
				Message: fmt.Sprintf("Back-off restarting failed container twin-neo4j in pod %s_%s(%s)", p.Name, ns, p.UID)})
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"neo4j:4.2.2", "containerd"},
	},
	{
		// The container runtime gives every container a 64M /dev/shm, and
		// the operator mounted no memory-backed volume there: PostgreSQL's
		// parallel workers allocate their dynamic shared memory in /dev/shm
		// and fail with "No space left on device" (the data volume is far
		// from full). The fix mounts an emptyDir of medium Memory at
		// /dev/shm.
		name:   "real-running-crunchy-postgres-dev-shm-64m-parallel-workers",
		source: "material: https://github.com/CrunchyData/postgres-operator/issues/2783 (PGO v5 on GKE after the tuning guide's parameters, max_parallel_workers 14: ERROR:  could not resize shared memory segment \"/PostgreSQL.1516396529\" to 4194304 bytes: No space left on device; df -h shows tmpfs 64M on /dev and the /pgdata volume 24% used); the cause in https://github.com/CrunchyData/postgres-operator/issues/2640 (PGO does not mount a memory empty dir to the postgresql pod) and the fix in https://github.com/CrunchyData/postgres-operator/pull/1360 (the runtime gives 64MiB of POSIX shared memory regardless of the container's resources; mount the shared memory directory); the CONTEXT: parallel worker line as in https://github.com/CrunchyData/postgres-operator/issues/1358",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.developers.crunchydata.com/crunchydata/crunchy-postgres:centos8-13.4-0"
			c4aConfigMap(t, c, ns, "hippo-config", map[string]string{"patroni.yaml": "bootstrap:\n  dcs:\n    postgresql:\n      parameters:\n        effective_cache_size: 37.5GB\n        max_parallel_workers: 14\n        max_wal_senders: \"10\"\n        max_worker_processes: 56\n        shared_buffers: 12.5GB\n        statement_timeout: 10m\n        wal_buffers: 64MB\n        wal_level: logical\n        wal_sender_timeout: 10m\n      use_pg_rewind: true\n"})
			c4aClaim(t, c, ns, "hippo-instance1-x7tq-pgdata", "standard-rwo", "pd.csi.storage.gke.io", "500Gi")
			pods := c8appSts(t, c, ns, "hippo-instance1-x7tq", "hippo-pods", "database", image, 5432, 1, func(s *corev1.PodSpec) {
				ctr := &s.Containers[0]
				ctr.Command = []string{"patroni", "/etc/patroni"}
				ctr.Env = []corev1.EnvVar{{Name: "PGDATA", Value: "/pgdata/pg13"}, {Name: "PGHOST", Value: "/tmp/postgres"}, {Name: "PGPORT", Value: "5432"},
					{Name: "PATRONI_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "PATRONI_KUBERNETES_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}
				ctr.Ports = []corev1.ContainerPort{{Name: "postgres", ContainerPort: 5432}, {Name: "patroni", ContainerPort: 8008}}
				ctr.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr(false), Privileged: ptr(false), ReadOnlyRootFilesystem: ptr(true), RunAsNonRoot: ptr(true)}
				s.Volumes = []corev1.Volume{{Name: "postgres-data", VolumeSource: c4aClaimSource("hippo-instance1-x7tq-pgdata")},
					{Name: "patroni-config", VolumeSource: c4aConfigMapSource("hippo-config")},
					{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse("16Mi"))}}}}
				ctr.VolumeMounts = []corev1.VolumeMount{{Name: "postgres-data", MountPath: "/pgdata"}, {Name: "patroni-config", MountPath: "/etc/patroni", ReadOnly: true},
					{Name: "tmp", MountPath: "/tmp"}}
			}, c4bReady("database", image, "10.244.0.91", 20*time.Hour))
			c.SetLogs(ns, pods[0].Name, "database", false, c9appPGLog(40, pods[0].Name))
			return []string{"pod/" + pods[0].Name}
		},
		category: "Running/Errors",
		culprit:  []string{"/dev/shm"},
	},
	{
		// Kibana 8 refuses to authenticate to Elasticsearch as the elastic
		// superuser, which cannot write the system indices Kibana needs: the
		// manifest set ELASTICSEARCH_USERNAME=elastic (read as
		// elasticsearch.username) and Kibana exits at config validation. The
		// fix switched Kibana to the kibana_system user (or a service account
		// token).
		name:   "real-kibana-8-elasticsearch-username-elastic-forbidden",
		source: "material: https://github.com/elastic/beats/pull/33167 (the EK stack deployment on Kubernetes broke with Kibana 8: k logs -p kibana-76f54554c9-8rsbq: [FATAL][root] Error: [config validation of [elasticsearch].username]: value of \"elastic\" is forbidden. This is a superuser account that cannot write to system indices that Kibana needs to function. Use a service account token instead.; fixed by changing kibana's username from elastic to kibana_system); the change that made it fatal in https://github.com/elastic/kibana/pull/122722; the same on the Kibana chart in https://github.com/elastic/helm-charts/issues/1579",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image, esImage := "docker.elastic.co/kibana/kibana:8.4.2", "docker.elastic.co/elasticsearch/elasticsearch:8.4.2"
			c4bDeploy(t, c, ns, "elasticsearch", map[string]string{"app": "elasticsearch"}, esImage, 9200, 1, c4bReady("elasticsearch", esImage, "10.244.0.51", 2*time.Hour), "", func(s *corev1.PodSpec) {
				s.Containers[0].Env = []corev1.EnvVar{{Name: "discovery.type", Value: "single-node"}, {Name: "ELASTIC_PASSWORD", Value: "changeme"}, {Name: "xpack.security.http.ssl.enabled", Value: "false"}}
			})
			c4bService(t, c, ns, "elasticsearch", map[string]string{"app": "elasticsearch"}, []corev1.ServicePort{c4bPort("http", 9200, intstr.FromInt32(9200))})
			pods := c2CrashDeployment(t, c, ns, "kibana", image, 5601, 64, c5Lines(
				`[2022-09-22T10:48:41.271+00:00][INFO ][plugins-service] Plugin "metricsEntities" is disabled.`,
				`[2022-09-22T10:48:41.307+00:00][FATAL][root] Error: [config validation of [elasticsearch].username]: value of "elastic" is forbidden. This is a superuser account that cannot write to system indices that Kibana needs to function. Use a service account token instead. Learn more: https://www.elastic.co/guide/en/elasticsearch/reference/8.0/service-accounts.html`,
				`    at ensureValidConfiguration (/usr/share/kibana/src/core/server/config/ensure_valid_configuration.js:25:11)`,
				`    at Server.preboot (/usr/share/kibana/src/core/server/server.js:160:5)`,
				`    at Root.preboot (/usr/share/kibana/src/core/server/root/index.js:48:14)`,
				`    at bootstrap (/usr/share/kibana/src/core/server/bootstrap.js:99:9)`,
				`    at Command.<anonymous> (/usr/share/kibana/src/cli/serve/serve.js:216:5)`,
				``,
				` FATAL  Error: [config validation of [elasticsearch].username]: value of "elastic" is forbidden. This is a superuser account that cannot write to system indices that Kibana needs to function. Use a service account token instead. Learn more: https://www.elastic.co/guide/en/elasticsearch/reference/8.0/service-accounts.html`,
				``,
			), func(s *corev1.PodSpec) {
				s.Containers[0].Env = []corev1.EnvVar{{Name: "ELASTICSEARCH_HOSTS", Value: "http://elasticsearch:9200"},
					{Name: "ELASTICSEARCH_USERNAME", Value: "elastic"}, {Name: "ELASTICSEARCH_PASSWORD", Value: "changeme"}}
			})
			return []string{"pod/" + pods[0].Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"ELASTICSEARCH_USERNAME"},
	},
	{
		// The sock-shop manifest runs the untagged image mongo, which became
		// MongoDB 5.0: 5.0+ is built for CPUs with AVX, the cluster's nodes
		// (an older or virtualized CPU without AVX) have none, and mongod
		// dies of an illegal instruction right after the image's warning.
		// Pinning mongo 4.4 (or a CPU with AVX) fixes it.
		name:   "real-sock-shop-carts-db-mongo-latest-needs-avx",
		source: "material: https://github.com/microservices-demo/microservices-demo/issues/875 (kubectl apply -f complete-demo.yaml: carts-db and orders-db in CrashLoopBackOff; kubectl logs carts-db: WARNING: MongoDB 5.0+ requires a CPU with AVX support, and your current system does not appear to have that!; due to missing AVX support on the cluster that mongo requires), the carts-db Deployment (image: mongo) as quoted in https://github.com/microservices-demo/microservices-demo/pull/808; the warning's see-also lines as in https://github.com/ICTU/quality-time/issues/3255 and exit code 132 (illegal instruction) in https://github.com/litmuschaos/litmus/issues/5357; pinning mongo 4.4 in https://github.com/HoloInsight/holoinsight/pull/213",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			warning := c5Lines("",
				"WARNING: MongoDB 5.0+ requires a CPU with AVX support, and your current system does not appear to have that!",
				"  see https://jira.mongodb.org/browse/SERVER-54407",
				"  see also https://www.mongodb.com/community/forums/t/mongodb-5-0-cpu-intel-g4650-compatibility/116610/2",
				"  see also https://github.com/docker-library/mongo/issues/485#issuecomment-891991814",
				"")
			var target string
			for i, name := range []string{"carts-db", "orders-db"} {
				tmpl := c2Template(name, name, "mongo", 27017, func(s *corev1.PodSpec) {
					s.Containers[0].Ports = []corev1.ContainerPort{{Name: "mongo", ContainerPort: 27017}}
					s.Containers[0].SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr(true),
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"all"}, Add: []corev1.Capability{"CHOWN", "SETGID", "SETUID"}}}
					s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "tmp-volume", MountPath: "/tmp"}}
					s.Volumes = []corev1.Volume{{Name: "tmp-volume", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}}
				})
				tmpl.Labels = map[string]string{"name": name}
				st := c8appCrash(name, "docker.io/library/mongo:latest", 132, 4)
				st.ContainerStatuses[0].ImageID = "docker.io/library/mongo@sha256:58ea1bc09f269a9b85b7e1fae83b7505952aaa521afaaca4131f558955743842"
				st.PodIP, st.PodIPs = fmt.Sprintf("10.244.0.%d", 41+i), []corev1.PodIP{{IP: fmt.Sprintf("10.244.0.%d", 41+i)}}
				_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: name, Labels: map[string]string{"name": name}, Replicas: 1, Template: &tmpl, PodStatus: st})
				c4bService(t, c, ns, name, map[string]string{"name": name}, []corev1.ServicePort{c4bPort("", 27017, intstr.FromInt32(27017))})
				c.SetLogs(ns, pods[0].Name, name, true, warning)
				c.SetLogs(ns, pods[0].Name, name, false, "")
				c8appBackOff(t, c, pods[0], name, 9)
				if target == "" {
					target = pods[0].Name
				}
			}
			return []string{"pod/" + target}
		},
		category: "CrashLoop/Exit132",
		culprit:  []string{"AVX", "5.0"},
	},
	{
		// The chart's run-airflow-migrations Job is a Helm post-install
		// hook: installed with --wait (or synced by Argo CD, which skips the
		// hook), the Job never runs, nothing creates the metadata tables,
		// and every Airflow pod's wait-for-airflow-migrations init container
		// gives up after 60 seconds, forever. The fix lets the migration Job
		// run (no --wait, or Argo CD hook annotations on migrateDatabaseJob).
		name:   "real-airflow-wait-for-migrations-job-never-ran",
		source: "material: https://github.com/apache/airflow/issues/15340 (helm install of the official chart with --wait: File \"<string>\", line 32, in <module> TimeoutError: There are still unapplied migrations after 60 seconds; kaxil: wait-for-airflow-migrations just waits for the migration to be run, check the {{ .Release.Name }}-run-airflow-migrations Job; the Argo CD case fixed with hook annotations on migrateDatabaseJob); https://github.com/apache/airflow/issues/18172 (installed through Argo CD the scheduler and webserver wait in wait-for-migrations while the migrate-database Job, a post-install hook, never runs)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "apache/airflow:2.0.1"
			c8appSecret(t, c, ns, "airflow-airflow-metadata", corev1.SecretTypeOpaque, map[string]string{"connection": "postgresql://postgres:postgres@airflow-postgresql:5432/postgres?sslmode=disable"})
			c8appSecret(t, c, ns, "airflow-fernet-key", corev1.SecretTypeOpaque, map[string]string{"fernet-key": "SFp4d2pPS0ljZFhOVmNPckRBTFNKZGVJVkpjWUJkZHk="})
			c8appSts(t, c, ns, "airflow-postgresql", "airflow-postgresql-headless", "airflow-postgresql", "docker.io/bitnami/postgresql:11.7.0-debian-10-r9", 5432, 1, func(s *corev1.PodSpec) {
				s.Containers[0].Env = []corev1.EnvVar{{Name: "POSTGRES_USER", Value: "postgres"}, {Name: "POSTGRES_PASSWORD", Value: "postgres"}}
			}, c4bReady("airflow-postgresql", "docker.io/bitnami/postgresql:11.7.0-debian-10-r9", "10.244.0.81", 45*time.Minute))
			env := []corev1.EnvVar{{Name: "AIRFLOW__CORE__EXECUTOR", Value: "CeleryExecutor"},
				c8appSecretKey("AIRFLOW__CORE__FERNET_KEY", "airflow-fernet-key", "fernet-key"),
				c8appSecretKey("AIRFLOW__CORE__SQL_ALCHEMY_CONN", "airflow-airflow-metadata", "connection"),
				c8appSecretKey("AIRFLOW_CONN_AIRFLOW_DB", "airflow-airflow-metadata", "connection")}
			var target string
			for i, comp := range []string{"webserver", "scheduler"} {
				labels := map[string]string{"tier": "airflow", "component": comp, "release": "airflow"}
				tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{ServiceAccountName: "default",
					SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr(int64(50000)), FSGroup: ptr(int64(0))},
					InitContainers:  []corev1.Container{{Name: "wait-for-airflow-migrations", Image: image, Args: []string{"python", "-c", c9appAirflowWait}, Env: env}},
					Containers:      []corev1.Container{{Name: comp, Image: image, Args: []string{"bash", "-c", "exec airflow " + comp}, Env: env}}}}
				if comp == "webserver" {
					tmpl.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "airflow-ui", ContainerPort: 8080}}
				}
				st := c9appInitCrash("wait-for-airflow-migrations", image, 1, 11, fmt.Sprintf("10.244.0.%d", 84+i), [2]string{comp, image})
				_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "airflow-" + comp, Labels: labels, Replicas: 1, Template: &tmpl, PodStatus: st})
				p := pods[0]
				c.SetLogs(ns, p.Name, "wait-for-airflow-migrations", true, c5Lines(
					"Traceback (most recent call last):",
					`  File "<string>", line 32, in <module>`,
					"TimeoutError: There are still unapplied migrations after 60 seconds.",
				))
				c.SetLogs(ns, p.Name, "wait-for-airflow-migrations", false, "")
				c8appBackOff(t, c, p, "wait-for-airflow-migrations", 29)
				if target == "" {
					target = p.Name
				}
			}
			return []string{"pod/" + target}
		},
		category: "InitContainer",
		culprit:  []string{"run-airflow-migrations"},
	},
	{
		// The chart reads the root credentials from the existing Secret
		// named in existingSecret; its rootPassword is 5 bytes, and MinIO
		// requires a secret key of at least 8 characters, so the server
		// refuses the credentials from its environment and exits. A longer
		// rootPassword in the Secret fixes it.
		name:   "real-minio-root-password-5-bytes-in-existing-secret",
		source: "material: https://github.com/minio/minio/issues/14679 (helm install minio-thanos ./minio --set existingSecret=thanos-minio-secret: kubectl logs: ERROR Unable to validate credentials inherited from the shell environment: Invalid credentials > Please provide correct credentials HINT: Access key length should be at least 3, and secret key length at least 8 characters; kubectl describe secret thanos-minio-secret: rootPassword: 5 bytes, rootUser: 5 bytes; labelled configuration issue, working as intended); the 8-character minimum in https://github.com/bitnami/containers/pull/5145",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "quay.io/minio/minio:RELEASE.2022-03-24T00-43-44Z"
			c8appSecret(t, c, ns, "thanos-minio-secret", corev1.SecretTypeOpaque, map[string]string{"rootUser": "admin", "rootPassword": "minio"})
			labels := map[string]string{"app": "minio", "release": "minio-thanos"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{ServiceAccountName: "default",
				SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr(int64(1000)), RunAsGroup: ptr(int64(1000)), FSGroup: ptr(int64(1000))},
				Containers: []corev1.Container{{Name: "minio", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
					Command: []string{"/bin/sh", "-ce", "/usr/bin/docker-entrypoint.sh minio server /export -S /etc/minio/certs/ --address :9000 --console-address :9001"},
					Env: []corev1.EnvVar{c8appSecretKey("MINIO_ROOT_USER", "thanos-minio-secret", "rootUser"), c8appSecretKey("MINIO_ROOT_PASSWORD", "thanos-minio-secret", "rootPassword"),
						{Name: "MINIO_PROMETHEUS_AUTH_TYPE", Value: "public"}},
					Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: 9000}, {Name: "http-console", ContainerPort: 9001}},
					VolumeMounts: []corev1.VolumeMount{{Name: "export", MountPath: "/export"}}}},
				Volumes: []corev1.Volume{{Name: "export", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}
			st := c8appCrash("minio", image, 1, 9)
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "minio-thanos", Labels: labels, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			c4bService(t, c, ns, "minio-thanos", labels, []corev1.ServicePort{c4bPort("http", 9000, intstr.FromInt32(9000))})
			c.SetLogs(ns, p.Name, "minio", true, c5Lines(
				"ERROR Unable to validate credentials inherited from the shell environment: Invalid credentials",
				"      > Please provide correct credentials",
				"      HINT:",
				"        Access key length should be at least 3, and secret key length at least 8 characters",
			))
			c.SetLogs(ns, p.Name, "minio", false, "")
			c8appBackOff(t, c, p, "minio", 40)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"thanos-minio-secret", "rootPassword"},
	},
}
