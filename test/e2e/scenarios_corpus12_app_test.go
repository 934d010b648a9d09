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
		// Argo CD's v2.1.0 image renamed the repo server's entrypoint
		// script: uid_entrypoint.sh no longer exists in it. The reporter
		// ran the argo-cd chart 3.12.1 and raised only global.image.tag to
		// v2.1.0, so the chart still renders the repo server's command as
		// uid_entrypoint.sh and the runtime cannot start the container
		// (exit 127, ContainerCannotRun). The fix is the manifests (chart)
		// made for 2.1, whose command defers to the image's entrypoint.
		name:   "real-argocd-repo-server-old-chart-command-on-new-image",
		source: "material: https://github.com/argoproj/argo-cd/issues/7044 (upgrade v2.0.5 to v2.1.0 caused argocd-repo-server CrashLoopBackOff; containerStatuses: image quay.io/argoproj/argocd:v2.1.0, lastState terminated exitCode 127, reason ContainerCannotRun, message 'OCI runtime create failed: container_linux.go:380: starting container process caused: exec: \"uid_entrypoint.sh\": executable file not found in $PATH: unknown'; maintainer: you will have to update the installation manifests to the 2.1 version as well, since the startup command of the repo server has changed; the reporter uses the argo-cd helm chart 3.12.1 and changed only global.image.tag), https://github.com/argoproj/argo-helm/pull/886 (fix(argo-cd): remove the ArgoCD repo server entrypoint script from the command block, failing due to the entrypoint script rename on v2.1.0). The repo server's command, ports, probes and volumes as the 3.12 chart renders them; the old ReplicaSet's v2.0.5 pod still runs (the default rolling update keeps it).",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			oldImage, image := "quay.io/argoproj/argocd:v2.0.5", "quay.io/argoproj/argocd:v2.1.0"
			c4aConfigMap(t, c, ns, "argocd-ssh-known-hosts-cm", map[string]string{"ssh_known_hosts": "github.com ssh-rsa AAAAB3NzaC1yc2EAAAABIwAAAQEAq2A7hRGmdnm9tUDbO9IDSwBK6TbQa+PXYPCPy6rbTrTtw7PHkccKrpp0yVhp5HdEIcKr6pLlVDBfOLX9QUsyCOV0wzfjIJNlGEYsdlLJizHhbn2mUjvSAHQqZETYP81eFzLQNnPHt4EVVUh7VfDESU84KezmD5QlWpXLmvU31/yMf+Se8xhHTvKSCZIFImWwoG6mbUoWf9nzpIoaSjB+weqqUUmpaaasXVal72J+UX2B+2RPW3RcT0eOzQgqlJL3RKrTJvdsjE3JEAvGq3lGHSZXy28G3skua2SmVi/w4yCE6gbODqnTWlg7+wC604ydGXA8VJiS5ap43JXiUFFAaQ==\n"})
			c4aConfigMap(t, c, ns, "argocd-tls-certs-cm", map[string]string{})
			c4aConfigMap(t, c, ns, "argocd-gpg-keys-cm", map[string]string{})
			redisImage := "redis:6.2.4-alpine"
			redisLabels := map[string]string{"app.kubernetes.io/name": "argocd-redis", "app.kubernetes.io/instance": "argo-cd", "app.kubernetes.io/component": "redis", "app.kubernetes.io/part-of": "argocd"}
			_, _, redis := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "argocd-redis", Replicas: 1,
				Template:  &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: redisLabels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "redis", Image: redisImage, Args: []string{"--save", "", "--appendonly", "no"}, Ports: []corev1.ContainerPort{{Name: "redis", ContainerPort: 6379}}}}}},
				PodStatus: c10appPod("10.42.1.17", 40*24*time.Hour, c10appCtr("redis", redisImage, true, 40*24*time.Hour, 0))})
			c4bService(t, c, ns, "argocd-redis", redisLabels, []corev1.ServicePort{c4bPort("redis", 6379, intstr.FromString("redis"))})
			c4bSlice(t, c, ns, "argocd-redis", c4bSlicePort("redis", 6379), redis...)
			tmpl := func(img string) corev1.PodTemplateSpec {
				return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "argocd-repo-server"}}, Spec: corev1.PodSpec{ServiceAccountName: "default",
					Containers: []corev1.Container{{Name: "repo-server", Image: img, ImagePullPolicy: corev1.PullIfNotPresent,
						Command:        []string{"uid_entrypoint.sh", "argocd-repo-server", "--redis", "argocd-redis:6379", "--logformat", "text", "--loglevel", "info"},
						Ports:          []corev1.ContainerPort{{Name: "repo-server", ContainerPort: 8081}, {Name: "metrics", ContainerPort: 8084}},
						ReadinessProbe: c12appTCPProbe(8081, 10, 10),
						LivenessProbe:  c12appTCPProbe(8081, 10, 10),
						VolumeMounts: []corev1.VolumeMount{{Name: "ssh-known-hosts", MountPath: "/app/config/ssh"}, {Name: "tls-certs", MountPath: "/app/config/tls"},
							{Name: "gpg-keys", MountPath: "/app/config/gpg/source"}, {Name: "gpg-keyring", MountPath: "/app/config/gpg/keys"}}}},
					Volumes: []corev1.Volume{{Name: "ssh-known-hosts", VolumeSource: c4aConfigMapSource("argocd-ssh-known-hosts-cm")},
						{Name: "tls-certs", VolumeSource: c4aConfigMapSource("argocd-tls-certs-cm")},
						{Name: "gpg-keys", VolumeSource: c4aConfigMapSource("argocd-gpg-keys-cm")},
						{Name: "gpg-keyring", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}
			}
			p := c4aRollout(t, c, ns, "argocd-repo-server", tmpl(oldImage), tmpl(image), 127, "")
			cs := &p.Status.ContainerStatuses[0]
			cs.ImageID = "docker-pullable://quay.io/argoproj/argocd@sha256:544f0cd334c7418526e56497308c5d10b4f942237929004c3ac2360bb2a337a1"
			cs.ContainerID = "docker://190aa1c55678a910aa2d33456c09d624693324c8a388bdc3ebf19d4e7362f26f"
			cs.LastTerminationState.Terminated.Reason = "ContainerCannotRun"
			cs.LastTerminationState.Terminated.ContainerID = cs.ContainerID
			cs.LastTerminationState.Terminated.StartedAt = cs.LastTerminationState.Terminated.FinishedAt
			cs.LastTerminationState.Terminated.Message = `OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "uid_entrypoint.sh": executable file not found in $PATH: unknown`
			c.SetStatus(t, p)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"uid_entrypoint.sh", "v2.1.0"},
	},
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
		// kube-state-metrics 2.0 renamed its --collectors flag to
		// --resources. The prometheus chart's kube-state-metrics subchart
		// (written for 1.9) still renders one --collectors=... per
		// resource, and the values raised only the image tag to
		// v2.0.0-beta, so the exporter rejects its arguments and exits at
		// every start. The fix is a chart rendering --resources (the 2.0
		// subchart) or keeping the 1.9 image.
		name:   "real-kube-state-metrics-v2-image-under-v1-chart-arguments",
		source: "material: https://github.com/prometheus-community/helm-charts/issues/610 (chart prometheus with kube-state-metrics.image.repository k8s.gcr.io/kube-state-metrics/kube-state-metrics-arm, tag v2.0.0-beta; the pod prometheus-kube-state-metrics-d9749dc44-75lnt always ran into CrashLoopBackOff; kubectl logs: unknown flag: --collectors / Usage of /kube-state-metrics: ... --resources string  Comma-separated list of Resources to be enabled. Defaults to \"certificatesigningrequests,configmaps,...\"), https://github.com/prometheus-operator/prometheus-operator/issues/3202 (the chart uses the obsolete --collectors command line argument; the argument has been replaced with --resources), https://github.com/prometheus-community/helm-charts/pull/891 ([kube-state-metrics] version bump to 2.0.0: --collectors=... becomes --resources=...). The Deployment's arguments, probes and security context as the 2.x kube-state-metrics subchart renders them.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "k8s.gcr.io/kube-state-metrics/kube-state-metrics-arm:v2.0.0-beta"
			resources := []string{"certificatesigningrequests", "configmaps", "cronjobs", "daemonsets", "deployments", "endpoints", "horizontalpodautoscalers", "ingresses", "jobs",
				"limitranges", "mutatingwebhookconfigurations", "namespaces", "networkpolicies", "nodes", "persistentvolumeclaims", "persistentvolumes", "poddisruptionbudgets", "pods",
				"replicasets", "replicationcontrollers", "resourcequotas", "secrets", "services", "statefulsets", "storageclasses", "validatingwebhookconfigurations", "volumeattachments"}
			args := []string{"--port=8080"}
			for _, r := range resources {
				args = append(args, "--collectors="+r)
			}
			args = append(args, "--telemetry-port=8081")
			labels := map[string]string{"app.kubernetes.io/name": "kube-state-metrics", "app.kubernetes.io/instance": "prometheus"}
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-kube-state-metrics", Namespace: ns, Labels: labels}})
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{ServiceAccountName: "prometheus-kube-state-metrics",
					SecurityContext: &corev1.PodSecurityContext{FSGroup: ptr(int64(65534)), RunAsGroup: ptr(int64(65534)), RunAsUser: ptr(int64(65534))},
					Containers: []corev1.Container{{Name: "kube-state-metrics", Image: image, ImagePullPolicy: corev1.PullIfNotPresent, Args: args,
						Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
						LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
							InitialDelaySeconds: 5, TimeoutSeconds: 5},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080)}},
							InitialDelaySeconds: 5, TimeoutSeconds: 5}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "prometheus-kube-state-metrics", Replicas: 1, Template: &tmpl,
				PodStatus: c11appCrash("kube-state-metrics", image, "10.42.0.63", 2, "Error", 11)})
			p := pods[0]
			c4bService(t, c, ns, "prometheus-kube-state-metrics", labels, []corev1.ServicePort{c4bPort("http", 8080, intstr.FromInt32(8080))})
			c4bSlice(t, c, ns, "prometheus-kube-state-metrics", c4bSlicePort("http", 8080), p)
			c.SetLogs(ns, p.Name, "kube-state-metrics", true, c5Lines(
				"unknown flag: --collectors",
				"Usage of /kube-state-metrics:",
				"unknown flag: --collectors",
				"      --add_dir_header                    If true, adds the file directory to the header",
				"      --alsologtostderr                   log to standard error as well as files",
				`      --resources string                  Comma-separated list of Resources to be enabled. Defaults to "certificatesigningrequests,configmaps,cronjobs,daemonsets,deployments,endpoints,horizontalpodautoscalers,ingresses,jobs,leases,limitranges,mutatingwebhookconfigurations,namespaces,networkpolicies,nodes,persistentvolumeclaims,persistentvolumes,poddisruptionbudgets,pods,replicasets,replicationcontrollers,resourcequotas,secrets,services,statefulsets,storageclasses,validatingwebhookconfigurations,volumeattachments"`,
			))
			c.SetLogs(ns, p.Name, "kube-state-metrics", false, "")
			c8appBackOff(t, c, p, "kube-state-metrics", 49)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"--collectors", "v2.0.0-beta"},
	},
	{
		// The node-red image runs as uid 1000, but the PersistentVolume the
		// reporter made on k3s (local storage) is a directory owned by
		// root: at start Node-RED copies its default settings.js into
		// /data and gets EACCES, so the pod crash-loops whenever
		// persistence is on. The chart's fsGroup (1001) does not change a
		// host directory's owner; the fix makes the volume writable by uid
		// 1000 (chown it, or an init container that does).
		name:   "real-nodered-k3s-persistence-volume-owned-by-root",
		source: "material: https://github.com/helm/charts/issues/22608 ([stable/node-red] the Docker image uses uid 1000 but k3s creates the pv as root, leading to a pod crash loop if persistence is used: the PV is owned by root:root and the node-red process in the pod runs as 1000/1000; reproduce: create a PV with the attached node-red-persistems.yaml, install with persistence on local storage in namespace node-red), the log of the same chart and image in https://github.com/helm/charts/issues/21928 ([stable/node-red] CrashLoopBackOff: > node-red-docker@1.0.4 start /usr/src/node-red > node $NODE_OPTIONS node_modules/node-red/red.js $FLOWS \"--userDir\" \"/data\" ... Error: EACCES: permission denied, copyfile '/usr/src/node-red/node_modules/node-red/settings.js' -> '/data/settings.js' ... errno: -13, syscall: 'copyfile', code: 'EACCES'), the error object's tail and npm's exit lines as in https://github.com/node-red/node-red-docker/issues/302. The Deployment as stable/node-red 1.4.2 renders it (image 1.0.4-12-minimal, fsGroup 1001); the attached PV and claim manifests are not in the thread, so their names and host path are ours.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "nodered/node-red:1.0.4-12-minimal"
			c12appStaticClaim(t, c, ns, "node-red-pvc", "node-red-pv-"+ns, "manual", "5Gi", corev1.PersistentVolumeReclaimRetain,
				corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/data/node-red", Type: ptr(corev1.HostPathDirectoryOrCreate)}})
			labels := map[string]string{"app.kubernetes.io/name": "node-red", "app.kubernetes.io/instance": "node-red"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{FSGroup: ptr(int64(1001))},
					Containers: []corev1.Container{{Name: "node-red", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
						Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 1880, Protocol: corev1.ProtocolTCP}},
						LivenessProbe:  c12appHTTPProbe("/", "http"),
						ReadinessProbe: c12appHTTPProbe("/", "http"),
						Env: []corev1.EnvVar{{Name: "FLOWS", Value: "flows.json"}, {Name: "NODE_RED_ENABLE_SAFE_MODE", Value: "false"}, {Name: "NODE_RED_ENABLE_PROJECTS", Value: "false"},
							{Name: "NODE_OPTIONS", Value: ""}, {Name: "TZ", Value: "UTC"}},
						VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
					Volumes: []corev1.Volume{{Name: "data", VolumeSource: c4aClaimSource("node-red-pvc")}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "node-red", Replicas: 1, Template: &tmpl,
				PodStatus: c11appCrash("node-red", image, "10.42.0.23", 1, "Error", 14)})
			p := pods[0]
			c4bService(t, c, ns, "node-red", labels, []corev1.ServicePort{c4bPort("http", 1880, intstr.FromString("http"))})
			c4bSlice(t, c, ns, "node-red", c4bSlicePort("http", 1880), p)
			c.SetLogs(ns, p.Name, "node-red", true, c5Lines(
				"",
				"> node-red-docker@1.0.4 start /usr/src/node-red",
				`> node $NODE_OPTIONS node_modules/node-red/red.js $FLOWS "--userDir" "/data"`,
				"",
				"internal/fs/utils.js:230",
				"    throw err;",
				"    ^",
				"",
				"Error: EACCES: permission denied, copyfile '/usr/src/node-red/node_modules/node-red/settings.js' -> '/data/settings.js'",
				"    at Object.copyFileSync (fs.js:1807:3)",
				"    at copyFile (/usr/src/node-red/node_modules/fs-extra/lib/copy-sync/copy-sync.js:68:8)",
				"    at onFile (/usr/src/node-red/node_modules/fs-extra/lib/copy-sync/copy-sync.js:53:25)",
				"    at getStats (/usr/src/node-red/node_modules/fs-extra/lib/copy-sync/copy-sync.js:48:44)",
				"    at startCopy (/usr/src/node-red/node_modules/fs-extra/lib/copy-sync/copy-sync.js:38:10)",
				"    at handleFilterAndCopy (/usr/src/node-red/node_modules/fs-extra/lib/copy-sync/copy-sync.js:33:10)",
				"    at Object.copySync (/usr/src/node-red/node_modules/fs-extra/lib/copy-sync/copy-sync.js:26:10)",
				"    at Object.<anonymous> (/usr/src/node-red/node_modules/node-red/red.js:108:20)",
				"    at Module._compile (internal/modules/cjs/loader.js:1158:30)",
				"    at Object.Module._extensions..js (internal/modules/cjs/loader.js:1178:10) {",
				"  errno: -13,",
				"  syscall: 'copyfile',",
				"  code: 'EACCES',",
				"  path: '/usr/src/node-red/node_modules/node-red/settings.js',",
				"  dest: '/data/settings.js'",
				"}",
				"npm ERR! code ELIFECYCLE",
				"npm ERR! errno 1",
				`npm ERR! node-red-docker@1.0.4 start: `+"`"+`node $NODE_OPTIONS node_modules/node-red/red.js $FLOWS "--userDir" "/data"`+"`",
				"npm ERR! Exit status 1",
			))
			c.SetLogs(ns, p.Name, "node-red", false, "")
			c8appBackOff(t, c, p, "node-red", 61)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"node-red-pvc", "/data"},
	},
	{
		// The TNS demo's Tempo runs the untagged grafana/tempo:latest; the
		// image that tag came to name no longer has a compactor block in
		// its configuration, so the demo's tempo.yaml (with compactor:
		// compaction: ...) fails to parse and Tempo exits at start. The fix
		// pinned the image to the release the config was written for
		// (2.10.1).
		name:   "real-tempo-untagged-image-rejects-demo-config-block",
		source: "material: https://github.com/grafana/tns/issues/106 (Tempo fails on k3d with the latest tempo image: when running the TNS demo via k3d the Tempo service fails to start since the latest image no longer supports the compactor block defined in the current config: failed parsing config: failed to parse configFile /conf/tempo.yaml: yaml: unmarshal errors: line 2: field compactor not found in type app.Config; pinning the image in production/tempo/config.libsonnet to a release version 2.10.1 would prevent this mismatch; fixed by https://github.com/grafana/tns/pull/109), the same error and cause in https://github.com/MykalMachon/railway-grafana-stack/issues/31 (new versions of tempo must have different syntax for the config file). The Deployment, Service and ConfigMap as grafana/tns's production/tempo jsonnet and its sample environment render them (namespace tempo there).",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "grafana/tempo:latest"
			config := strings.Join([]string{
				`"auth_enabled": false`,
				`"compactor":`,
				`  "compaction":`,
				`    "compacted_block_retention": "24h"`,
				`"distributor":`,
				`  "receivers":`,
				`    "jaeger":`,
				`      "protocols":`,
				`        "thrift_compact":`,
				`          "endpoint": "0.0.0.0:6831"`,
				`    "otlp":`,
				`      "protocols":`,
				`        "grpc":`,
				`          "endpoint": "0.0.0.0:55680"`,
				`"ingester": {}`,
				`"server":`,
				`  "http_listen_port": 3200`,
				`"storage":`,
				`  "trace":`,
				`    "backend": "local"`,
				`    "blocklist_poll": "30s"`,
				`    "local":`,
				`      "path": "/tmp/tempo/traces"`,
				`    "wal":`,
				`      "path": "/var/tempo/wal"`,
			}, "\n") + "\n"
			c4aConfigMap(t, c, ns, "tempo", map[string]string{"tempo.yaml": config, "overrides.yaml": "overrides:\n"})
			labels := map[string]string{"name": "tempo"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"config_hash": "5b0a8f4c2d1e7f3a9c6b8d0e2f4a6c8e"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "tempo", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
					Args:         []string{"-config.file=/conf/tempo.yaml", "-mem-ballast-size-mbs=1024"},
					Env:          []corev1.EnvVar{{Name: "JAEGER_AGENT_PORT", Value: ""}},
					Ports:        []corev1.ContainerPort{{Name: "prom-metrics", ContainerPort: 3200}, {Name: "otlp", ContainerPort: 55680, Protocol: corev1.ProtocolTCP}},
					Resources:    corev1.ResourceRequirements{Requests: c10appRes("400m", "1Gi"), Limits: c10appRes("500m", "1Gi")},
					VolumeMounts: []corev1.VolumeMount{{Name: "tempo-conf", MountPath: "/conf"}}}},
					Volumes: []corev1.Volume{{Name: "tempo-conf", VolumeSource: c4aConfigMapSource("tempo")}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "tempo", Replicas: 1, Template: &tmpl,
				PodStatus: c11appCrash("tempo", image, "10.42.0.41", 1, "Error", 7)})
			p := pods[0]
			svc := c4bService(t, c, ns, "tempo", labels, []corev1.ServicePort{c4bPort("tempo-prom-metrics", 3200, intstr.FromInt32(3200)), c4bPort("tempo-otlp", 55680, intstr.FromInt32(55680)),
				c4bPort("http", 80, intstr.FromInt32(3200)), {Name: "receiver", Port: 6831, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(6831)}})
			c4bSlice(t, c, ns, svc.Name, c4bSlicePort("http", 3200), p)
			c.SetLogs(ns, p.Name, "tempo", true, c5Lines(
				"failed parsing config: failed to parse configFile /conf/tempo.yaml: yaml: unmarshal errors:",
				"  line 2: field compactor not found in type app.Config",
			))
			c.SetLogs(ns, p.Name, "tempo", false, "")
			c8appBackOff(t, c, p, "tempo", 23)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"compactor", "grafana/tempo:latest"},
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
