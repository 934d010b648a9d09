package e2e

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The twelfth batch of real material, application side: start-up and
// runtime failures of widely used software (a GitOps server, a BI tool's
// database-init Job, a cluster-state exporter, a flow-based automation
// tool, a tracing backend, a web analytics server, a security indexer, a
// load balancer, an object store, an OAuth2 server, a metrics agent and a
// CI agent) as their container logs and the cluster showed them in a
// public thread whose resolution names the cause. Registered only with
// KUBECTL_TRIAGE_REAL_MISSES set; the expectations were written from the
// threads before the first run.
//
// First round against 7b5197af: 4 of 12, the Node-RED volume owned by
// root (CrashLoop/Exit1/PermissionDenied/HostPath naming claim
// node-red-pvc at /data, its hostPath and fsGroup 1001), the Telegraf
// agent setting loglevel (CrashLoop/Exit1, naming loglevel), the Wazuh
// indexer heap (OOMKilled at its limit 5Gi, -Xmx5g from
// OPENSEARCH_JAVA_OPTS) and the Woodpecker agent without a Role
// (RBAC/Forbidden/NoBinding: serviceaccount woodpecker-agent cannot
// delete pods, create persistentvolumeclaims). Two setups were corrected
// before they could be triaged: the Argo CD repo server's template had no
// labels (the API server rejected the Deployment), and the Wazuh
// StatefulSet's increase-the-vm-max-map-count init container lost
// privileged: true (refused by the cluster's policy). What the reports
// said instead:
//   - Argo CD: RunContainerError/ExecutableNotFound naming the command
//     "uid_entrypoint.sh argocd-repo-server ..." (verified); not the
//     v2.1.0 image that dropped the script (the old ReplicaSet runs
//     v2.0.5 with the same command), and not the expected CrashLoop/.
//   - Superset: ContainerFailed/Exit1/MissingModule quoting
//     "ModuleNotFoundError: No module named 'psycopg2'", the Job's
//     BackoffLimitExceeded only as context; not Job/, and the 4.1.1
//     image (the lean image without the driver) is not named.
//   - kube-state-metrics: CrashLoop/Exit2/InvalidConfig quoting "unknown
//     flag: --collectors"; the v2.0.0-beta image that renamed the flag is
//     not named.
//   - Tempo: CrashLoop/Exit1/InvalidConfig/ConfigMap naming ConfigMap
//     tempo key tempo.yaml and "line 2: field compactor not found"; the
//     untagged grafana/tempo:latest is not named.
//   - Plausible: Probe/Liveness/ConnectionRefused naming the
//     livenessProbe (HTTP GET / on port http, initialDelaySeconds 0) and
//     the 50s runs against its 30s; the migrations the container was
//     running when killed are not named.
//   - HAProxy: CrashLoop/Exit1/PrivilegedPort (a port below 1024 needs
//     root or NET_BIND_SERVICE, port 80), quoting the bind line; the
//     haproxy:2.4-alpine image, whose USER haproxy is the change, is not
//     named.
//   - MinIO: CrashLoop/Exit1/AuthFailed "a dependency rejects the
//     application's credentials" quoting the Invalid credentials line:
//     the rejection is MinIO's own configuration on the volume; neither
//     /export nor MINIO_SECRET_KEY is named.
//   - Hydra: CrashLoop/Exit1 with no log line (probable, 0.60); the
//     8-character SYSTEM_SECRET the log warns about is not named.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c12appScenarios...)
		register(c12appScenarios2...)
	}
}

// c12appReadyPod creates a Running, Ready pod name (labels) whose one
// container runs image at ip, on the test node.
func c12appReadyPod(t *testing.T, c *testcluster.Cluster, ns, name string, labels map[string]string, container, image, ip string, since time.Duration) *corev1.Pod {
	t.Helper()
	return c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(labels)},
		Spec:   corev1.PodSpec{NodeName: c.NodeName, Containers: []corev1.Container{{Name: container, Image: image}}},
		Status: c10appPod(ip, since, c10appCtr(container, image, true, since, 0))})
}

// c12appStaticClaim creates claim bound to a hand-made (not provisioned)
// volume pv of class with src, as a user's own PV manifest makes it.
func c12appStaticClaim(t *testing.T, c *testcluster.Cluster, ns, claim, pv, class, size string, reclaim corev1.PersistentVolumeReclaimPolicy, src corev1.PersistentVolumeSource) {
	t.Helper()
	mode := corev1.PersistentVolumeFilesystem
	modes := []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	ann := c9kubeScoped()
	vol := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pv, Annotations: ann},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes: modes, StorageClassName: class, VolumeMode: &mode, PersistentVolumeReclaimPolicy: reclaim,
			PersistentVolumeSource: src, ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: claim}},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}}
	c.Create(t, vol)
	dropAfterScenario(t, c, "PersistentVolume", pv, ann)
	c.Create(t, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: ns, Annotations: map[string]string{
		"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: pv, AccessModes: modes, VolumeMode: &mode,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: modes,
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}})
}

// c12appTCPProbe is a tcpSocket probe of port with the initial delay and
// period (the other fields at their defaults).
func c12appTCPProbe(port int32, delay, period int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}},
		InitialDelaySeconds: delay, PeriodSeconds: period, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
}

// c12appHTTPProbe is an httpGet probe of path on the named port with the
// kubelet's defaults (no initial delay, every 10s, 1s timeout, 3 failures).
func c12appHTTPProbe(path, port string) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(port), Scheme: corev1.URISchemeHTTP}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
}

// c12appInitDone is an init container that ran image and completed.
func c12appInitDone(name, image string, finished time.Duration) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, Image: image, ImageID: image + "@sha256:12", ContainerID: "containerd://" + name + "-12", Ready: true,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
			StartedAt: wlAgo(finished + 20*time.Second), FinishedAt: wlAgo(finished), ContainerID: "containerd://" + name + "-12"}}}
}

var c12appScenarios = []scenario{
	{
		// The Superset chart's post-upgrade init Job runs `superset db
		// upgrade` in the new image. From 4.1 the lean apache/superset
		// image no longer ships psycopg2, the driver the chart's
		// postgresql+psycopg2 metadata URI needs, so the Job's pod fails at
		// create_app with ModuleNotFoundError and the Job gives up. The fix
		// installs psycopg2-binary (the chart's bootstrapScript) or builds
		// an image extending lean with the driver.
		name:   "real-superset-helm-upgrade-init-job-lean-image-without-driver",
		source: "material: https://github.com/apache/superset/issues/31026 (upgrade Superset 4.0.2 to 4.1.1 using Helm: helm upgrade --install superset superset/superset -f values.yaml; Defaulted container \"superset-init-db\" out of: superset-init-db, wait-for-postgres (init); Upgrading DB schema... Loaded your LOCAL configuration at [/app/pythonpath/superset_config.py] ... ERROR:superset.app:Failed to create app / Traceback ... setup_db ... pessimistic_connection_handling(db.engine) ... flask_sqlalchemy ... create_engine; the comments: this hit also our helm chart deployment, the suggestion (override the bootstrapScript) resolved it; a maintainer documents extending the lean image with drivers and would review putting psycopg2 back into lean), the traceback's tail as in https://github.com/apache/superset/issues/32364 (sqlalchemy/dialects/postgresql/psycopg2.py, line 811, in dbapi / import psycopg2 / ModuleNotFoundError: No module named 'psycopg2'), the k8s install docs' bootstrapScript with psycopg2-binary in https://github.com/apache/superset/pull/31999. The Job, its wait-for-postgres init container and the config Secret as the chart renders them.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image, dockerize := "apache/superset:4.1.1", "apache/superset:dockerize"
			pgLabels := map[string]string{"app.kubernetes.io/name": "postgresql", "app.kubernetes.io/instance": "superset", "app.kubernetes.io/component": "primary"}
			pg := c12appReadyPod(t, c, ns, "superset-postgresql-0", pgLabels, "postgresql", "docker.io/bitnami/postgresql:14.10.0-debian-11-r13", "10.0.12.40", 90*24*time.Hour)
			c4bService(t, c, ns, "superset-postgresql", pgLabels, []corev1.ServicePort{c4bPort("tcp-postgresql", 5432, intstr.FromString("tcp-postgresql"))})
			c4bSlice(t, c, ns, "superset-postgresql", c4bSlicePort("tcp-postgresql", 5432), pg)
			c8appSecret(t, c, ns, "superset-env", corev1.SecretTypeOpaque, map[string]string{"DB_HOST": "superset-postgresql", "DB_PORT": "5432", "DB_USER": "superset",
				"DB_PASS": "superset", "DB_NAME": "superset", "REDIS_HOST": "superset-redis-headless", "REDIS_PORT": "6379"})
			c8appSecret(t, c, ns, "superset-config", corev1.SecretTypeOpaque, map[string]string{
				"superset_config.py": strings.Join([]string{
					"import os",
					"from flask_caching.backends.rediscache import RedisCache",
					"",
					"def env(key, default=None):",
					"    return os.getenv(key, default)",
					"",
					"MAPBOX_API_KEY = env('MAPBOX_API_KEY', '')",
					"CACHE_CONFIG = {",
					"      'CACHE_TYPE': 'RedisCache',",
					"      'CACHE_DEFAULT_TIMEOUT': 300,",
					"      'CACHE_KEY_PREFIX': 'superset_',",
					"      'CACHE_REDIS_HOST': env('REDIS_HOST'),",
					"      'CACHE_REDIS_PORT': env('REDIS_PORT'),",
					"      'CACHE_REDIS_DB': 1,",
					"}",
					"DATA_CACHE_CONFIG = CACHE_CONFIG",
					"",
					"SQLALCHEMY_DATABASE_URI = f\"postgresql+psycopg2://{env('DB_USER')}:{env('DB_PASS')}@{env('DB_HOST')}:{env('DB_PORT')}/{env('DB_NAME')}\"",
					"SQLALCHEMY_TRACK_MODIFICATIONS = True",
					"",
					"# Overrides",
					"# secret",
					"SECRET_KEY = '3wWjdAKccUou1LYPsQS7YTvYbdPBfeMPKYc5eO+DadHC1Hv7jB2GA12f'",
				}, "\n") + "\n",
				"superset_init.sh":      "#!/bin/sh\nset -eu\necho \"Upgrading DB schema...\"\nsuperset db upgrade\necho \"Initializing roles...\"\nsuperset init\n\necho \"Creating admin user...\"\nsuperset fab create-admin \\\n                --username admin \\\n                --firstname Superset \\\n                --lastname Admin \\\n                --email admin@superset.com \\\n                --password admin \\\n                || true\n",
				"superset_bootstrap.sh": "#!/bin/bash\nif [ ! -f ~/bootstrap ]; then echo \"Running Superset with uid 0\" > ~/bootstrap; fi\n",
			})
			labels := map[string]string{"app": "superset-init-db", "release": "superset"}
			spec := batchv1.JobSpec{BackoffLimit: ptr(int32(6)), Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Name: "superset-init-db", Labels: labels},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr(int64(0))},
					InitContainers: []corev1.Container{{Name: "wait-for-postgres", Image: dockerize, ImagePullPolicy: corev1.PullIfNotPresent,
						Command: []string{"/bin/sh", "-c", "dockerize -wait \"tcp://$DB_HOST:$DB_PORT\" -timeout 120s"},
						EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "superset-env"}}}}}},
					Containers: []corev1.Container{{Name: "superset-init-db", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
						Command:      []string{"/bin/sh", "-c", ". /app/pythonpath/superset_bootstrap.sh; . /app/pythonpath/superset_init.sh"},
						Env:          []corev1.EnvVar{{Name: "SUPERSET_PORT", Value: "8088"}},
						EnvFrom:      []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "superset-env"}}}},
						VolumeMounts: []corev1.VolumeMount{{Name: "superset-config", MountPath: "/app/pythonpath", ReadOnly: true}}}},
					Volumes: []corev1.Volume{{Name: "superset-config", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "superset-config"}}}}}}}
			j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "superset-init-db", Namespace: ns,
				Annotations: map[string]string{"helm.sh/hook": "post-install,post-upgrade", "helm.sh/hook-delete-policy": "before-hook-creation"}}, Spec: spec}
			c.Create(t, j)
			j.Status = wlFailedJobStatus("BackoffLimitExceeded", "Job has reached the specified backoff limit", 7, 42*time.Minute, 6*time.Minute)
			c.SetObjectStatus(t, j)
			at := time.Now().Add(-6 * time.Minute).UTC()
			log := c5Lines(
				"Upgrading DB schema...",
				"Loaded your LOCAL configuration at [/app/pythonpath/superset_config.py]",
				at.Format("2006-01-02 15:04:05")+",278:ERROR:superset.app:Failed to create app",
				"Traceback (most recent call last):",
				`  File "/app/superset/app.py", line 40, in create_app`,
				"    app_initializer.init_app()",
				`  File "/app/superset/initialization/__init__.py", line 476, in init_app`,
				"    self.setup_db()",
				`  File "/app/superset/initialization/__init__.py", line 667, in setup_db`,
				"    pessimistic_connection_handling(db.engine)",
				`  File "/usr/local/lib/python3.10/site-packages/flask_sqlalchemy/__init__.py", line 998, in engine`,
				"    return self.get_engine()",
				`  File "/usr/local/lib/python3.10/site-packages/flask_sqlalchemy/__init__.py", line 1017, in get_engine`,
				"    return connector.get_engine()",
				`  File "/usr/local/lib/python3.10/site-packages/flask_sqlalchemy/__init__.py", line 594, in get_engine`,
				"    self._engine = rv = self._sa.create_engine(sa_url, options)",
				`  File "/usr/local/lib/python3.10/site-packages/flask_sqlalchemy/__init__.py", line 1027, in create_engine`,
				"    return sqlalchemy.create_engine(sa_url, **engine_opts)",
				`  File "<string>", line 2, in create_engine`,
				`  File "/usr/local/lib/python3.10/site-packages/sqlalchemy/util/deprecations.py", line 375, in warned`,
				"    return fn(*args, **kwargs)",
				`  File "/usr/local/lib/python3.10/site-packages/sqlalchemy/dialects/postgresql/psycopg2.py", line 811, in dbapi`,
				"    import psycopg2",
				"ModuleNotFoundError: No module named 'psycopg2'",
			)
			for i, suffix := range []string{"k8w2n", "zq7tx"} {
				finished := time.Duration(6+9*(1-i)) * time.Minute
				st := wlFailedPodStatus("superset-init-db", image, 1, finished)
				st.PodIP = fmt.Sprintf("10.0.12.%d", 71+i)
				st.InitContainerStatuses = []corev1.ContainerStatus{c12appInitDone("wait-for-postgres", dockerize, finished+40*time.Second)}
				p := wlJobPod(t, c, j, "superset-init-db-"+suffix, st)
				c.SetLogs(ns, p.Name, "superset-init-db", false, log)
				c.SetLogs(ns, p.Name, "wait-for-postgres", false, c5Lines(
					time.Now().Add(-finished-45*time.Second).Format("2006/01/02 15:04:05")+" Waiting for: tcp://superset-postgresql:5432",
					time.Now().Add(-finished-44*time.Second).Format("2006/01/02 15:04:05")+" Connected to tcp://superset-postgresql:5432"))
				c.Event(t, testcluster.EventSpec{Object: j, Type: "Normal", Reason: "SuccessfulCreate", Component: "job-controller", First: time.Now().Add(-finished - time.Minute), Message: "Created pod: " + p.Name})
			}
			c.Event(t, testcluster.EventSpec{Object: j, Reason: "BackoffLimitExceeded", Component: "job-controller", First: time.Now().Add(-6 * time.Minute), Message: "Job has reached the specified backoff limit"})
			return []string{"job/superset-init-db"}
		},
		category: "Job/",
		culprit:  []string{"psycopg2", "4.1.1"},
	},
	{
		// The plausible-analytics chart 0.2.4 gives the Plausible container
		// a liveness probe on / with the kubelet's defaults (no initial
		// delay, 3 failures 10s apart), while the container first creates
		// the databases and runs the migrations before it listens: on a
		// slow server the kubelet kills it mid-migration, every time. The
		// fix is a startup probe or a configurable initialDelaySeconds
		// (the chart's 0.3.0 made the probes configurable).
		name:   "real-plausible-chart-probe-kills-first-start-before-it-listens",
		source: "material: https://github.com/IMIO/helm-plausible-analytics/issues/11 (liveness probe prematurely kills Plausible: when first starting Plausible from the chart, the liveness probe reliably kills the plausible-analytics deployment before it has a chance to complete its initial migrations and become ready, chart version 0.2.4; Kubernetes kills Plausible when the logs reach: Loading plausible.. Starting dependencies.. Starting repos.. create Plausible.Repo database if it doesn't exist ... Creation of Db successful! + /entrypoint.sh db migrate ... Running migrations for Elixir.Plausible.Repo; expected: a startup probe or a configurable initialDelaySeconds on the liveness probe). The Deployment (command, env from the chart's Secret, init containers, probes) as chart 0.2.4 renders it at https://github.com/IMIO/helm-plausible-analytics commit 24c115b.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "plausible/analytics:v2.0.0"
			name := "plausible-analytics"
			pgLabels := map[string]string{"app.kubernetes.io/name": "postgresql", "app.kubernetes.io/instance": name, "app.kubernetes.io/component": "primary"}
			pg := c12appReadyPod(t, c, ns, name+"-postgresql-0", pgLabels, "postgresql", "docker.io/bitnami/postgresql:15.4.0-debian-11-r45", "10.1.4.20", 20*time.Minute)
			c4bService(t, c, ns, name+"-postgresql", pgLabels, []corev1.ServicePort{c4bPort("tcp-postgresql", 5432, intstr.FromString("tcp-postgresql"))})
			c4bSlice(t, c, ns, name+"-postgresql", c4bSlicePort("tcp-postgresql", 5432), pg)
			chLabels := map[string]string{"app.kubernetes.io/name": "clickhouse", "app.kubernetes.io/instance": name, "app.kubernetes.io/component": "clickhouse"}
			ch := c12appReadyPod(t, c, ns, name+"-clickhouse-shard0-0", chLabels, "clickhouse", "docker.io/bitnami/clickhouse:23.8.2-debian-11-r0", "10.1.4.21", 20*time.Minute)
			c4bService(t, c, ns, name+"-clickhouse", chLabels, []corev1.ServicePort{c4bPort("http", 8123, intstr.FromString("http")), c4bPort("tcp", 9000, intstr.FromString("tcp"))})
			c4bSlice(t, c, ns, name+"-clickhouse", c4bSlicePort("http", 8123), ch)
			c8appSecret(t, c, ns, name, corev1.SecretTypeOpaque, map[string]string{"SECRET_KEY_BASE": "Zm9yLXRoZS1zZWNyZXQta2V5LWJhc2UtdGhlLWNoYXJ0LWdlbmVyYXRlcy02NC1ieXRlcy1vZi1yYW5kb20tZGF0YQ==",
				"DATABASE_URL":            "postgres://postgres:postgres@plausible-analytics-postgresql:5432/plausible_db",
				"CLICKHOUSE_DATABASE_URL": "http://clickhouse:password@plausible-analytics-clickhouse:8123/plausible_events_db"})
			c4aConfigMap(t, c, ns, name, map[string]string{
				"wait-for-postgres.sh":   "#!/bin/sh\nset -e\n\nuntil pg_isready -d $DATABASE_URL; do\n  echo \"Waiting for PostgreSQL...\"\n  sleep 1\ndone\n",
				"wait-for-clickhouse.sh": "#!/bin/sh\nset -e\n\nuntil clickhouse-client --host $(echo $CLICKHOUSE_DATABASE_URL | sed 's|.*@||;s|:.*||') --query 'SELECT 1'; do\n  echo \"Waiting for ClickHouse...\"\n  sleep 1\ndone\n"})
			secretEnv := func(key string) corev1.EnvVar { return c8appSecretKey(key, name, key) }
			labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/instance": name}
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
			scripts := []corev1.VolumeMount{{Name: "scripts-volume", MountPath: "/scripts"}}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{ServiceAccountName: name, SecurityContext: &corev1.PodSecurityContext{},
					Volumes: []corev1.Volume{{Name: "scripts-volume", VolumeSource: c4aConfigMapSource(name)}},
					InitContainers: []corev1.Container{
						{Name: "wait-for-postgres", Image: "postgres:13.3-alpine", Command: []string{"sh", "/scripts/wait-for-postgres.sh"}, Env: []corev1.EnvVar{secretEnv("DATABASE_URL")}, VolumeMounts: scripts},
						{Name: "wait-for-clickhouse", Image: "bitnami/clickhouse:23.3.9", Command: []string{"sh", "/scripts/wait-for-clickhouse.sh"}, Env: []corev1.EnvVar{secretEnv("CLICKHOUSE_DATABASE_URL")}, VolumeMounts: scripts}},
					Containers: []corev1.Container{{Name: name, Image: image, ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: &corev1.SecurityContext{},
						Command:        []string{"/bin/sh", "-x", "-c", "/entrypoint.sh db createdb && /entrypoint.sh db migrate && /entrypoint.sh db init-admin && /entrypoint.sh run"},
						Env:            []corev1.EnvVar{{Name: "BASE_URL", Value: "http://plausible-analytics.local"}, secretEnv("SECRET_KEY_BASE"), secretEnv("DATABASE_URL"), secretEnv("CLICKHOUSE_DATABASE_URL")},
						Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8000, Protocol: corev1.ProtocolTCP}},
						LivenessProbe:  c12appHTTPProbe("/", "http"),
						ReadinessProbe: c12appHTTPProbe("/", "http")}}}}
			ip := "10.1.4.37"
			st := c11appCrash(name, image, ip, 137, "Error", 6)
			st.InitContainerStatuses = []corev1.ContainerStatus{c12appInitDone("wait-for-postgres", "postgres:13.3-alpine", 19*time.Minute), c12appInitDone("wait-for-clickhouse", "bitnami/clickhouse:23.3.9", 19*time.Minute)}
			last := st.ContainerStatuses[0].LastTerminationState.Terminated
			last.StartedAt, last.FinishedAt = wlAgo(150*time.Second), wlAgo(100*time.Second)
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: name, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			c4bService(t, c, ns, name, labels, []corev1.ServicePort{c4bPort("http", 80, intstr.FromString("http"))})
			c4bSlice(t, c, ns, name, c4bSlicePort("http", 8000), p)
			c.SetLogs(ns, p.Name, name, true, c5Lines(
				"Loading plausible..",
				"Starting dependencies..",
				"Starting repos..",
				"create Plausible.Repo database if it doesn't exist",
				"create Plausible.IngestRepo database if it doesn't exist",
				"Creation of Db successful!",
				"+ /entrypoint.sh db migrate",
				"Loading plausible..",
				"Starting dependencies..",
				"Starting repos..",
				"Running migrations for Elixir.Plausible.Repo",
			))
			c.SetLogs(ns, p.Name, name, false, "")
			refused := fmt.Sprintf(`Get "http://%s:8000/": dial tcp %s:8000: connect: connection refused`, ip, ip)
			c10appProbeEvent(t, c, p, name, "Warning", "Unhealthy", "Liveness probe failed: "+refused, 21, 18*time.Minute)
			c10appProbeEvent(t, c, p, name, "Warning", "Unhealthy", "Readiness probe failed: "+refused, 24, 18*time.Minute)
			c10appProbeEvent(t, c, p, name, "Normal", "Killing", "Container "+name+" failed liveness probe, will be restarted", 7, 18*time.Minute)
			c8appBackOff(t, c, p, name, 9)
			return []string{"pod/" + p.Name}
		},
		category: "Probe/Liveness",
		culprit:  []string{"liveness", "migrations"},
	},
}
