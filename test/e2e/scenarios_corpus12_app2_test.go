package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The twelfth batch, continued (see scenarios_corpus12_app_test.go).

var c12appScenarios2 = []scenario{
	{
		// The Wazuh indexer (OpenSearch) StatefulSet: raising the heap in
		// OPENSEARCH_JAVA_OPTS above 4g made every indexer pod OOMKilled
		// right after creation. The reporter edited a 16Gi limit in one
		// manifest, but the limit in force on the StatefulSet was 5Gi: a 5g
		// heap (pre-touched at start) plus the JVM's own memory does not
		// fit in it. The fix raised the StatefulSet's memory limit (or keep
		// the heap at about half of it).
		name:   "real-wazuh-indexer-heap-raised-to-statefulset-memory-limit",
		source: "material: https://github.com/wazuh/wazuh-kubernetes/issues/306 (Indexer pods get OOMKilled when Java options set higher than 4GB: as soon as I go above 4GB in the OPENSEARCH_JAVA_OPTS ('-Xms4g -Xmx4g -Dlog4j2.formatMsgNoLookups=true'), like \"Xms5g -Xmx5g\", all pods are getting OOMKilled instantly after creation; resolution by the reporter: there is a limit on the StatefulSet level, which was only 5GB, that limited the member pods; after increasing it the OOMKills stopped). The StatefulSet as wazuh-kubernetes renders it at commit ed410c0 (wazuh/indexer_stack/wazuh-indexer/cluster/indexer-sts.yaml, 3 replicas, its init containers and mounts, storage class wazuh-storage), with the reporter's env var and the 5Gi limit in force; the requests are the eks overlay's. The thread has no log text (a screenshot of the pods), so the runs' logs are empty.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "wazuh/wazuh-indexer:4.3.9"
			labels := map[string]string{"app": "wazuh-indexer"}
			c11appHeadless(t, c, ns, "wazuh-indexer", labels, c4bPort("indexer-nodes", 9300, intstr.FromInt32(9300)))
			c4bService(t, c, ns, "indexer", labels, []corev1.ServicePort{c4bPort("indexer-rest", 9200, intstr.FromInt32(9200))})
			c4aConfigMap(t, c, ns, "indexer-conf", map[string]string{"opensearch.yml": strings.Join([]string{
				"cluster.name: ${CLUSTER_NAME}", "node.name: ${NODE_NAME}", "network.host: ${NETWORK_HOST}", "discovery.seed_hosts: wazuh-indexer-0.wazuh-indexer",
				"cluster.initial_master_nodes:", "  - wazuh-indexer-0", "", `node.max_local_storage_nodes: "3"`, "path.data: /var/lib/wazuh-indexer", "path.logs: /var/log/wazuh-indexer",
				"plugins.security.ssl.http.pemcert_filepath: /usr/share/wazuh-indexer/config/certs/node.pem",
				"plugins.security.ssl.http.pemkey_filepath: /usr/share/wazuh-indexer/config/certs/node-key.pem",
				"plugins.security.ssl.http.pemtrustedcas_filepath: /usr/share/wazuh-indexer/config/certs/root-ca.pem",
				"plugins.security.ssl.http.enabled: true", "plugins.security.allow_default_init_securityindex: true",
				"cluster.routing.allocation.disk.threshold_enabled: false", "compatibility.override_main_response_version: true"}, "\n") + "\n",
				"internal_users.yml": "---\n_meta:\n  type: \"internalusers\"\n  config_version: 2\n\nadmin:\n  hash: \"$2y$12$K/SpwjtB.wOHJ/Nc6GVRDuc1h0rM1DfvziFRNPtk27P.c4yDr9njO\"\n  reserved: true\n  backend_roles:\n  - \"admin\"\n"})
			certs := map[string]string{}
			for _, f := range []string{"root-ca.pem", "node.pem", "node-key.pem", "admin.pem", "admin-key.pem"} {
				certs[f] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
			}
			c8appSecret(t, c, ns, "indexer-certs", corev1.SecretTypeOpaque, certs)
			mount := func(file string) corev1.VolumeMount {
				return corev1.VolumeMount{Name: "indexer-certs", MountPath: "/usr/share/wazuh-indexer/config/certs/" + file, SubPath: file, ReadOnly: true}
			}
			spec := corev1.PodSpec{
				Volumes: []corev1.Volume{{Name: "indexer-certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "indexer-certs"}}},
					{Name: "indexer-conf", VolumeSource: c4aConfigMapSource("indexer-conf")}},
				InitContainers: []corev1.Container{
					{Name: "volume-mount-hack", Image: "busybox", Command: []string{"sh", "-c", "chown -R 1000:1000 /var/lib/wazuh-indexer"},
						Resources:    corev1.ResourceRequirements{Requests: c10appRes("50m", "128Mi"), Limits: c10appRes("100m", "256Mi")},
						VolumeMounts: []corev1.VolumeMount{{Name: "wazuh-indexer", MountPath: "/var/lib/wazuh-indexer"}}},
					{Name: "increase-the-vm-max-map-count", Image: "busybox", Command: []string{"sysctl", "-w", "vm.max_map_count=262144"}}},
				Containers: []corev1.Container{{Name: "wazuh-indexer", Image: image,
					Resources: corev1.ResourceRequirements{Requests: c10appRes("500m", "1Gi"), Limits: c10appRes("2", "5Gi")},
					Env: []corev1.EnvVar{{Name: "OPENSEARCH_JAVA_OPTS", Value: "-Xms5g -Xmx5g -Dlog4j2.formatMsgNoLookups=true"}, {Name: "CLUSTER_NAME", Value: "wazuh"},
						{Name: "NETWORK_HOST", Value: "0.0.0.0"}, {Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
						{Name: "DISCOVERY_SERVICE", Value: "wazuh-indexer"}, {Name: "KUBERNETES_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
						{Name: "DISABLE_INSTALL_DEMO_CONFIG", Value: "true"}},
					SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_CHROOT"}}},
					VolumeMounts: []corev1.VolumeMount{{Name: "wazuh-indexer", MountPath: "/var/lib/wazuh-indexer"},
						mount("node-key.pem"), mount("node.pem"), mount("root-ca.pem"), mount("admin.pem"), mount("admin-key.pem"),
						{Name: "indexer-conf", MountPath: "/usr/share/wazuh-indexer/config/opensearch.yml", SubPath: "opensearch.yml", ReadOnly: true},
						{Name: "indexer-conf", MountPath: "/usr/share/wazuh-indexer/plugins/opensearch-security/securityconfig/internal_users.yml", SubPath: "internal_users.yml", ReadOnly: true}},
					Ports: []corev1.ContainerPort{{Name: "indexer-rest", ContainerPort: 9200}, {Name: "indexer-nodes", ContainerPort: 9300}}}}}
			sts := c11appSts(t, c, ns, "wazuh-indexer", "wazuh-indexer", labels, 3, appsv1.OrderedReadyPodManagement, spec, c11appClaimTemplate("wazuh-indexer", "wazuh-storage", "10Gi"))
			c10appStsStatus(t, c, sts, 3, 0)
			var first *corev1.Pod
			for i := 0; i < 3; i++ {
				claim := fmt.Sprintf("wazuh-indexer-wazuh-indexer-%d", i)
				c11appClaim(t, c, ns, claim, "wazuh-storage", "kubernetes.io/aws-ebs", "10Gi",
					corev1.PersistentVolumeSource{AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: fmt.Sprintf("aws://eu-west-1a/vol-0c3e9a7f41d2b58%02d", i), FSType: "ext4"}})
				st := c11appCrash("wazuh-indexer", image, fmt.Sprintf("10.20.3.%d", 51+i), 137, "OOMKilled", int32(17-2*i))
				st.InitContainerStatuses = []corev1.ContainerStatus{c12appInitDone("volume-mount-hack", "busybox", 70*time.Minute), c12appInitDone("increase-the-vm-max-map-count", "busybox", 70*time.Minute)}
				p := c11appStsPod(t, c, sts, i, st)
				c.SetLogs(ns, p.Name, "wazuh-indexer", true, "")
				c.SetLogs(ns, p.Name, "wazuh-indexer", false, "")
				c8appBackOff(t, c, p, "wazuh-indexer", int32(70-5*i))
				if first == nil {
					first = p
				}
			}
			return []string{"pod/" + first.Name}
		},
		category: "OOMKilled",
		culprit:  []string{"OPENSEARCH_JAVA_OPTS", "5Gi"},
	},
	{
		// From 2.4 the official haproxy image runs as the unprivileged user
		// haproxy (USER haproxy in its Dockerfile), so a configuration that
		// binds port 80 fails to start its listeners and exits; it ran
		// under 2.3, whose image runs as root. The fix (the image
		// maintainers' answer) listens on a port above 1024 and maps it,
		// or allows the bind (net.ipv4.ip_unprivileged_port_start=0, the
		// NET_BIND_SERVICE capability) or runs as root.
		name:   "real-haproxy-2-4-image-user-cannot-bind-privileged-port",
		source: "material: https://github.com/haproxy/haproxy/issues/1394 (with HAProxy 2.4 the container always fails: [ALERT] (1) : Starting frontend http_frontend: cannot bind socket (Permission denied) [0.0.0.0:80] / [ALERT] (1) : [haproxy.main()] Some protocols failed to start their listeners! Exiting.; FROM haproxy:2.4-alpine with the haproxy.cfg quoted there (frontend http_frontend bind *:80, backend servers web1:80 and web2:80); it works with every version below 2.4; closed as invalid, a duplicate of the image's issue), https://github.com/docker-library/haproxy/issues/160 (2.3's Dockerfile has no USER for backwards compatibility, 2.4's has USER haproxy; the maintainer: with a kernel 4.11 or newer net.ipv4.ip_unprivileged_port_start=0 allows the privileged port), https://github.com/docker-library/haproxy/issues/162 (the image is fine, we explicitly only added the USER for 2.4 and up; if you need a privileged port, below 1024, see #160). The threads ran the container under Docker; here it is a Deployment running that image with that configuration mounted as its haproxy.cfg, and web1 and web2 are Services.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "haproxy:2.4-alpine"
			for i, web := range []string{"web1", "web2"} {
				l := map[string]string{"app": web}
				p := c12appReadyPod(t, c, ns, web+"-6d9c7b5f8-"+[]string{"x4k2p", "q8m3z"}[i], l, "web", "nginx:1.21-alpine", fmt.Sprintf("10.244.1.%d", 31+i), 5*24*time.Hour)
				c4bService(t, c, ns, web, l, []corev1.ServicePort{c4bPort("http", 80, intstr.FromInt32(80))})
				c4bSlice(t, c, ns, web, c4bSlicePort("http", 80), p)
			}
			c4aConfigMap(t, c, ns, "haproxy-config", map[string]string{"haproxy.cfg": strings.Join([]string{
				"global", "    daemon", "    maxconn 256", "",
				"defaults", "    mode http", "    timeout connect 5000s", "    timeout client 50000s", "    timeout server 50000s", "",
				"frontend http_frontend", "    bind *:80", "    default_backend http_backend", "",
				"backend http_backend", "    balance roundrobin", "    server server1 web1:80 check", "    server server2 web2:80 check"}, "\n") + "\n"})
			labels := map[string]string{"app": "haproxy"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "haproxy", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
					Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: 80}},
					VolumeMounts: []corev1.VolumeMount{{Name: "haproxy-config", MountPath: "/usr/local/etc/haproxy/haproxy.cfg", SubPath: "haproxy.cfg", ReadOnly: true}}}},
					Volumes: []corev1.Volume{{Name: "haproxy-config", VolumeSource: c4aConfigMapSource("haproxy-config")}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "haproxy", Replicas: 1, Template: &tmpl,
				PodStatus: c11appCrash("haproxy", image, "10.244.1.40", 1, "Error", 12)})
			p := pods[0]
			c4bService(t, c, ns, "haproxy", labels, []corev1.ServicePort{c4bPort("http", 80, intstr.FromString("http"))}, func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort })
			c4bSlice(t, c, ns, "haproxy", c4bSlicePort("http", 80), p)
			c.SetLogs(ns, p.Name, "haproxy", true, c5Lines(
				"[ALERT]    (1) : Starting frontend http_frontend: cannot bind socket (Permission denied) [0.0.0.0:80]",
				"[ALERT]    (1) : [haproxy.main()] Some protocols failed to start their listeners! Exiting.",
			))
			c.SetLogs(ns, p.Name, "haproxy", false, "")
			c8appBackOff(t, c, p, "haproxy", 53)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"haproxy:2.4-alpine", "0.0.0.0:80"},
	},
	{
		// MinIO keeps its configuration encrypted with the credentials it
		// was first started with, under .minio.sys on the data volume. The
		// reporter reinstalled stable/minio with a new accessKey and
		// secretKey on the same PersistentVolume, so the server cannot read
		// that configuration ("Invalid credentials") and the pod
		// crash-loops; with the default keys it starts. The fix: the keys
		// the data was written with, or remove .minio.sys (or a new volume).
		name:   "real-minio-new-keys-on-reused-volume-config-encrypted-with-old",
		source: "material: https://github.com/helm/charts/issues/19864 ([stable/minio] unable to set accessKey and/or secretKey: whether I change the accessKey and secretKey from values.yaml or set them with existingSecret the pod will CrashLoop, the custom values even show correctly in helm get notes minio, everything starts up fine when leaving accessKey and secretKey defaults; pod logs show: ERROR Unable to initialize server switching into safe-mode: Unable to initialize config system: Invalid credentials; Helm 3.0.2 / K3S v1.16.3-k3s.2, stable/minio 5.0.1; resolution by the reporter: since I was reusing the same PV, I was unaware that there was a hidden dir .minio.sys which contained encrypted configs created from the original accesskey and secretkey; I deleted .minio.sys/ and everything was fine). The Deployment, Secret and Service as stable/minio 5.0.1 renders them for release minio (image RELEASE.2019-12-30T05-45-39Z, command, probes, env); the reused volume is a k3s local-path volume kept from the earlier install.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "minio/minio:RELEASE.2019-12-30T05-45-39Z"
			c8appSecret(t, c, ns, "minio", corev1.SecretTypeOpaque, map[string]string{"accesskey": "js02admin", "secretkey": "Kx8vQ2mN4pR7sT1w"})
			c12appStaticClaim(t, c, ns, "minio", "pvc-9a1f3c52-4e7b-4d21-8c36-5b0e2f7d41a9-"+ns, "local-path", "10Gi", corev1.PersistentVolumeReclaimRetain,
				corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/rancher/k3s/storage/pvc-9a1f3c52-4e7b-4d21-8c36-5b0e2f7d41a9", Type: ptr(corev1.HostPathDirectoryOrCreate)}})
			labels := map[string]string{"app": "minio", "release": "minio"}
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "minio", Namespace: ns}})
			secretEnv := func(env, key string) corev1.EnvVar { return c8appSecretKey(env, "minio", key) }
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Name: "minio", Labels: labels,
				Annotations: map[string]string{"checksum/secrets": "8f14e45fceea167a5a36dedd4bea2543a1f0b5e6c3d7a9b2e4f6081c3d5e7f90", "checksum/config": "c4ca4238a0b923820dcc509a6f75849bb2b7e1f3a5c7d9e0f2a4b6c8d0e2f4a6"}},
				Spec: corev1.PodSpec{ServiceAccountName: "minio",
					Containers: []corev1.Container{{Name: "minio", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
						Command:      []string{"/bin/sh", "-ce", "/usr/bin/docker-entrypoint.sh minio -S /etc/minio/certs/ server /export"},
						VolumeMounts: []corev1.VolumeMount{{Name: "export", MountPath: "/export"}},
						Ports:        []corev1.ContainerPort{{Name: "service", ContainerPort: 9000}},
						Env:          []corev1.EnvVar{secretEnv("MINIO_ACCESS_KEY", "accesskey"), secretEnv("MINIO_SECRET_KEY", "secretkey"), {Name: "MINIO_BROWSER", Value: "on"}},
						LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/minio/health/live", Port: intstr.FromString("service"), Scheme: corev1.URISchemeHTTP}},
							InitialDelaySeconds: 5, PeriodSeconds: 30, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/minio/health/ready", Port: intstr.FromString("service")}},
							InitialDelaySeconds: 60, PeriodSeconds: 15, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
						Resources: corev1.ResourceRequirements{Requests: c10appRes("250m", "256Mi")}}},
					Volumes: []corev1.Volume{{Name: "export", VolumeSource: c4aClaimSource("minio")},
						{Name: "minio-user", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "minio"}}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "minio", Replicas: 1, Template: &tmpl,
				PodStatus: c11appCrash("minio", image, "10.42.0.58", 1, "Error", 9)})
			p := pods[0]
			c4bService(t, c, ns, "minio", labels, []corev1.ServicePort{c4bPort("http", 9000, intstr.FromInt32(9000))})
			c4bSlice(t, c, ns, "minio", c4bSlicePort("http", 9000), p)
			c.SetLogs(ns, p.Name, "minio", true, c5Lines("ERROR Unable to initialize server switching into safe-mode: Unable to initialize config system: Invalid credentials"))
			c.SetLogs(ns, p.Name, "minio", false, "")
			c8appBackOff(t, c, p, "minio", 31)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"/export", "MINIO_SECRET_KEY"},
	},
	{
		// Hydra 0.7 needs a system secret of at least 32 characters; given
		// an 8-character SYSTEM_SECRET it generates a random one at every
		// start. The first pod encrypted the OpenID Connect signing keys in
		// the shared PostgreSQL database with its random secret; every
		// other start (another replica, a restart) has a different one,
		// cannot decrypt the keys and exits. The fix is a SYSTEM_SECRET of
		// 32 characters or more, the same for every pod and every start.
		name:   "real-ory-hydra-short-system-secret-regenerated-per-pod",
		source: "material: https://github.com/ory/hydra/issues/430 (Kubernetes Helm chart: one of the pods constantly terminating with an exit status 1; logs: level=info msg=\"Connecting with postgres://*:*@authorization-postgresql:5432/hydra?sslmode=disable\" / msg=\"Connected to SQL!\" / level=warning msg=\"Expected system secret to be at least 32 characters long, got 8 characters.\" / msg=\"Generating a random system secret...\" / msg=\"Generated system secret: F&SFjKEDGRO-sgy(K>ns,U8x9aB(6T2%\" / msg=\"WARNING: DO NOT generate system secrets in production. The secret will be leaked to the logs.\" / msg=\"Applied 0 migrations postgres!\" / Could not fetch signing key for OpenID Connect; the working node's log is the same up to its own generated system secret), https://github.com/ory/hydra/issues/439 (a Kubernetes pod with Hydra and a database spins up fine the first time; kill the pod and bring it back up: the same warning, a generated secret, Could not fetch signing key for OpenID Connect; it only happens on a database where the migrations already ran), https://github.com/ory/hydra/issues/816 (the same again: the problem does indeed appear to be the SYSTEM_SECRET, a random one is generated during the first run so it is actually impossible to restart the server), the cause as later Hydra states it in https://github.com/ory/k8s/issues/369 (this is most likely because your secrets.system is not set or changed; it must be set and stay the same). The image tag is not in the threads (0.7 series, April 2017); the release, Secret and env names follow the chart's authorization-postgresql.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "oryd/hydra:v0.7.10"
			name := "authorization-hydra"
			pgLabels := map[string]string{"app": "authorization-postgresql"}
			pg := c12appReadyPod(t, c, ns, "authorization-postgresql-5c7d9f8b6-tq2lm", pgLabels, "authorization-postgresql", "postgres:9.6.2", "10.2.1.14", 9*24*time.Hour)
			c4bService(t, c, ns, "authorization-postgresql", pgLabels, []corev1.ServicePort{c4bPort("postgresql", 5432, intstr.FromString("postgresql"))})
			c4bSlice(t, c, ns, "authorization-postgresql", c4bSlicePort("postgresql", 5432), pg)
			c8appSecret(t, c, ns, name, corev1.SecretTypeOpaque, map[string]string{"system.secret": "hydra123", "database.url": "postgres://hydra:pw8Kq2zR@authorization-postgresql:5432/hydra?sslmode=disable"})
			labels := map[string]string{"app": name}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "hydra", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
					Args:  []string{"host", "--dangerous-force-http"},
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 4444}},
					Env: []corev1.EnvVar{c8appSecretKey("SYSTEM_SECRET", name, "system.secret"), c8appSecretKey("DATABASE_URL", name, "database.url"),
						{Name: "ISSUER", Value: "https://auth.example.com/"}, {Name: "CONSENT_URL", Value: "https://auth.example.com/consent"},
						{Name: "HTTPS_ALLOW_TERMINATION_FROM", Value: "0.0.0.0/0"}}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: name, Replicas: 2, Template: &tmpl,
				PodStatus: c11appCrash("hydra", image, "10.2.1.31", 1, "Error", 23)})
			working, failing := pods[0], pods[1]
			working.Status = c10appPod("10.2.1.30", 42*time.Minute, c10appCtr("hydra", image, true, 42*time.Minute, 0))
			working = c.SetStatus(t, working)
			c4bService(t, c, ns, name, labels, []corev1.ServicePort{c4bPort("http", 4444, intstr.FromString("http"))})
			c4bSlice(t, c, ns, name, c4bSlicePort("http", 4444), working, failing)
			hydraLog := func(at time.Time, secret string, tail ...string) string {
				ts := at.UTC().Format("2006-01-02T15:04:05Z")
				return c5Lines(append([]string{
					`time="` + ts + `" level=info msg="Connecting with postgres://*:*@authorization-postgresql:5432/hydra?sslmode=disable" `,
					`time="` + ts + `" level=info msg="Connected to SQL!" `,
					`time="` + ts + `" level=warning msg="Expected system secret to be at least 32 characters long, got 8 characters." `,
					`time="` + ts + `" level=info msg="Generating a random system secret..." `,
					`time="` + ts + `" level=info msg="Generated system secret: ` + secret + `" `,
					`time="` + ts + `" level=warning msg="WARNING: DO NOT generate system secrets in production. The secret will be leaked to the logs." `,
				}, tail...)...)
			}
			c.SetLogs(ns, working.Name, "hydra", false, hydraLog(time.Now().Add(-42*time.Minute), "3DP5IZWIk9#qT2v@Lm8xR&bN4cY7hJ1s"))
			c.SetLogs(ns, failing.Name, "hydra", true, hydraLog(time.Now().Add(-70*time.Second), "F&SFjKEDGRO-sgy(K>ns,U8x9aB(6T2%",
				`time="`+time.Now().Add(-70*time.Second).UTC().Format("2006-01-02T15:04:05Z")+`" level=info msg="Applied 0 migrations postgres!" `,
				"Could not fetch signing key for OpenID Connect"))
			c.SetLogs(ns, failing.Name, "hydra", false, "")
			c8appBackOff(t, c, failing, "hydra", 97)
			return []string{"pod/" + failing.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"SYSTEM_SECRET"},
	},
	{
		// Telegraf rejects a configuration naming a setting it does not
		// have: the agent table of the telegraf.conf the ConfigMap mounts
		// sets loglevel = "error", which is no agent setting, so Telegraf
		// stops at loading the file and the pod crash-loops. The fix
		// removes the line (the agent's settings are debug, quiet,
		// logtarget, logfile); the same configuration without it started
		// and ran the inputs in the thread.
		name:   "real-telegraf-agent-table-unknown-setting-in-mounted-config",
		source: "material: https://github.com/influxdata/telegraf/issues/13789 (the reporter's Kubernetes ConfigMap: data: telegraf.conf: [agent] logfile = \"/path/to/telegraf.log\" loglevel = \"error\" collection_jitter = \"0s\" debug = true flush_interval = \"10s\" ... [[processors.enum]] ... [[inputs.cisco_telemetry_mdt]] transport = \"tcp\"; the container's log: I! Using config file: /etc/telegraf/telegraf.conf / E! [telegraf] Error running agent: Error loading config file /etc/telegraf/telegraf.conf: line 1: configuration specified the fields [\"loglevel\"], but they weren't used; a maintainer asked for the configuration in force (cat /etc/telegraf/telegraf.conf), which has no loglevel and with which Telegraf started and ran the cisco_telemetry_mdt input). The image is not named there (the reporter tried a build for a fix); telegraf:1.27.4 is the release of that month. The Deployment, ConfigMap mount and Service are ours; the ConfigMap's content is the thread's, its cut-off input table completed with the listener's max_msg_size.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "telegraf:1.27.4"
			c4aConfigMap(t, c, ns, "telegraf", map[string]string{"telegraf.conf": strings.Join([]string{
				"[agent]",
				`  logfile = "/path/to/telegraf.log"`,
				`  loglevel = "error"`,
				`  collection_jitter = "0s"`,
				"  debug = true",
				`  flush_interval = "10s"`,
				`  flush_jitter = "0s"`,
				`  hostname = "$HOSTNAME"`,
				`  interval = "10s"`,
				"  metric_batch_size = 1000",
				"  metric_buffer_limit = 10000",
				"  omit_hostname = false",
				`  precision = ""`,
				"  quiet = false",
				"  round_interval = true",
				"[[processors.enum]]",
				"   [[processors.enum.mapping]]",
				`    dest = "status_code"`,
				`    field = "status"`,
				"    [processors.enum.mapping.value_mappings]",
				"        critical = 3",
				"        healthy = 1",
				"        problem = 2",
				"",
				" [[inputs.cisco_telemetry_mdt]]",
				`   transport = "tcp"`,
				`   service_address = ":57000"`,
				"   max_msg_size = 4000000",
			}, "\n") + "\n"})
			labels := map[string]string{"app.kubernetes.io/name": "telegraf", "app.kubernetes.io/instance": "telegraf"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "telegraf", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
					Env:          []corev1.EnvVar{{Name: "HOSTNAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
					Ports:        []corev1.ContainerPort{{Name: "mdt", ContainerPort: 57000}},
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/telegraf"}}}},
					Volumes: []corev1.Volume{{Name: "config", VolumeSource: c4aConfigMapSource("telegraf")}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "telegraf", Replicas: 1, Template: &tmpl,
				PodStatus: c11appCrash("telegraf", image, "10.244.2.61", 1, "Error", 8)})
			p := pods[0]
			c4bService(t, c, ns, "telegraf", labels, []corev1.ServicePort{c4bPort("mdt", 57000, intstr.FromString("mdt"))})
			c4bSlice(t, c, ns, "telegraf", c4bSlicePort("mdt", 57000), p)
			ts := time.Now().Add(-75 * time.Second).UTC().Format("2006-01-02T15:04:05Z")
			c.SetLogs(ns, p.Name, "telegraf", true, c5Lines(
				ts+" I! Using config file: /etc/telegraf/telegraf.conf",
				ts+` E! [telegraf] Error running agent: Error loading config file /etc/telegraf/telegraf.conf: line 1: configuration specified the fields ["loglevel"], but they weren't used`,
			))
			c.SetLogs(ns, p.Name, "telegraf", false, "")
			c8appBackOff(t, c, p, "telegraf", 29)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"loglevel"},
	},
	{
		// The Woodpecker agent with the Kubernetes backend runs each
		// pipeline step as pods and a workspace PVC in its namespace, with
		// the agent's ServiceAccount; the woodpecker-agent chart creates the
		// ServiceAccount but its Role and RoleBinding only with
		// serviceAccount.rbac.create (off by default), so every pipeline
		// fails: the agent may not create the PVC nor delete the pods. The
		// agent itself keeps running. The fix binds a Role with those verbs
		// (rbac.create=true).
		name:   "real-woodpecker-ci-kubernetes-backend-agent-lacks-role",
		source: "material: https://github.com/woodpecker-ci/woodpecker/issues/1696 (installed woodpecker next in the ci namespace with the kubernetes backend; I cannot run any pipeline, my agents give the error: {\"level\":\"info\",...\"message\":\"Starting Woodpecker agent with version 'next-ea95d5aa' and backend 'kubernetes' using platform 'linux/amd64' running up to 1 pipelines in parallel\"} / {\"level\":\"error\",\"ID\":\"1\",\"Repo\":\"project/source\",\"Pipeline\":\"1\",\"error\":\"pods \\\"wp-01gx1yvm3dw62np4dmpjbqkq16-0-clone-0\\\" is forbidden: User \\\"system:serviceaccount:ci:woodpecker-agent\\\" cannot delete resource \\\"pods\\\" in API group \\\"\\\" in the namespace \\\"ci\\\"\",...\"message\":\"could not destroy engine\"} / ... Step finished with exitcode 1, persistentvolumeclaims is forbidden: User \\\"system:serviceaccount:ci:woodpecker-agent\\\" cannot create resource \\\"persistentvolumeclaims\\\" ...), https://github.com/woodpecker-ci/helm/issues/10 (default service account has no permissions to create PVC: the same forbidden error on a fresh deployment with WOODPECKER_BACKEND kubernetes), https://github.com/woodpecker-ci/woodpecker/pull/1373 (add RBAC to the helm chart: a Role and RoleBinding, created only with serviceAccount.rbac.create=true, defaulted to inactive). The namespace ci of the thread is the scenario's here.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "woodpeckerci/woodpecker-agent:next"
			srvLabels := map[string]string{"app.kubernetes.io/name": "woodpecker-server", "app.kubernetes.io/instance": "woodpecker"}
			srv := c12appReadyPod(t, c, ns, "woodpecker-server-0", srvLabels, "woodpecker-server", "woodpeckerci/woodpecker-server:next", "10.42.3.12", 3*time.Hour)
			c4bService(t, c, ns, "woodpecker-server", srvLabels, []corev1.ServicePort{c4bPort("http", 80, intstr.FromInt32(8000)), c4bPort("grpc", 9000, intstr.FromInt32(9000))})
			c4bSlice(t, c, ns, "woodpecker-server", c4bSlicePort("grpc", 9000), srv)
			c8appSecret(t, c, ns, "woodpecker-secret", corev1.SecretTypeOpaque, map[string]string{"WOODPECKER_AGENT_SECRET": "1f3c5e7a9b2d4f6081a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7"})
			labels := map[string]string{"app.kubernetes.io/name": "woodpecker-agent", "app.kubernetes.io/instance": "woodpecker-agent"}
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "woodpecker-agent", Namespace: ns, Labels: labels}})
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{ServiceAccountName: "woodpecker-agent", Containers: []corev1.Container{{Name: "woodpecker-agent", Image: image, ImagePullPolicy: corev1.PullAlways,
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 3000, Protocol: corev1.ProtocolTCP}},
					Env: []corev1.EnvVar{{Name: "WOODPECKER_BACKEND", Value: "kubernetes"}, {Name: "WOODPECKER_BACKEND_K8S_NAMESPACE", Value: ns},
						{Name: "WOODPECKER_BACKEND_K8S_STORAGE_CLASS", Value: ""}, {Name: "WOODPECKER_BACKEND_K8S_STORAGE_RWX", Value: "true"},
						{Name: "WOODPECKER_BACKEND_K8S_VOLUME_SIZE", Value: "10G"}, {Name: "WOODPECKER_SERVER", Value: "woodpecker-server:9000"}},
					EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "woodpecker-secret"}}}}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "woodpecker-agent", Replicas: 1, Template: &tmpl,
				PodStatus: c10appPod("10.42.3.27", 2*time.Hour, c10appCtr("woodpecker-agent", image, true, 2*time.Hour, 0))})
			p := pods[0]
			user := "system:serviceaccount:" + ns + ":woodpecker-agent"
			start := time.Now().Add(-2 * time.Hour).UTC()
			var lines []string
			lines = append(lines, `{"level":"info","time":"`+start.Format(time.RFC3339)+`","message":"Starting Woodpecker agent with version 'next-ea95d5aa' and backend 'kubernetes' using platform 'linux/amd64' running up to 1 pipelines in parallel"}`)
			for i, id := range []string{"01gx1yvm3dw62np4dmpjbqkq16", "01gx2a9t7kq3m5c8w2r6ypz4hd", "01gx2f0b1n8v6s3e4x7c9qj2ka"} {
				at := time.Now().Add(-time.Duration(80-30*i) * time.Minute).UTC().Format(time.RFC3339)
				pvc := `rpc error: code = Unknown desc = Step finished with exitcode 1, persistentvolumeclaims is forbidden: User \"` + user + `\" cannot create resource \"persistentvolumeclaims\" in API group \"\" in the namespace \"` + ns + `\"`
				lines = append(lines,
					fmt.Sprintf(`{"level":"error","ID":"%d","Repo":"project/source","Pipeline":"%d","error":"pods \"wp-%s-0-clone-0\" is forbidden: User \"%s\" cannot delete resource \"pods\" in API group \"\" in the namespace \"%s\"","time":"%s","message":"could not destroy engine"}`, i+1, i+1, id, user, ns, at),
					`{"level":"error","error":"`+pvc+`","time":"`+at+`","message":"grpc error: wait(): code: Unknown: `+pvc+`"}`)
			}
			c.SetLogs(ns, p.Name, "woodpecker-agent", false, c5Lines(lines...))
			return []string{"pod/" + p.Name}
		},
		category: "RBAC/",
		culprit:  []string{"persistentvolumeclaims", "woodpecker-agent"},
	},
}
