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

// The eleventh batch of real material, application side: start-up and
// runtime failures of widely used software (a time-series database, a chat
// server, a Galera cluster, a search engine and a search cluster, a
// tracing collector, a coordination service and a database each killed at
// a chart's memory preset, a CI server's operator-made pod, a web
// analytics server, a notebook hub, an analytics database) as their
// container logs and the cluster showed them in a public thread whose
// resolution names the cause. Registered only with
// KUBECTL_TRIAGE_REAL_MISSES set; the expectations were written from the
// threads before the first run.
//
// First round against ed8ea336 (built at deae5542, which adds only these
// files): 3 of 12, the Galera node refusing to bootstrap
// (safe_to_bootstrap=0, the log line names the env var), PostgreSQL
// OOMKilled at the nano preset's 192Mi and ClickHouse OOMKilled at 1Gi;
// they are captured into test/scenarios. One setup was corrected before
// it could be triaged: the Mattermost Deployment's template lacked the
// selector's label (the API server rejected it). Every miss had the right
// category prefix and missed the culprit. What the reports said instead:
//   - vmstorage: CrashLoop/Exit2/LockHeld "another instance on the same
//     volume holds the lock", quoting the panic line; neither claim
//     test-pvc nor the holder vmstorage-0 is named.
//   - Mattermost: CrashLoop/Exit1/PermissionDenied/ReadOnlyVolume, naming
//     Secret mattermost-mattermost-team-edition-config-json but as a
//     permission denial ("as the image's own user, no fsGroup"); not the
//     5.30.0 image (the old ReplicaSet's 5.29.1 runs) that now writes it.
//   - Meilisearch: CrashLoop/Exit1 quoting the database/engine version
//     line; the image v1.49.0 is not named.
//   - OpenSearch: CrashLoop/Exit1 with no log line at all;
//     OPENSEARCH_INITIAL_ADMIN_PASSWORD is not named.
//   - Jaeger: CrashLoop/Exit1/FatalError quoting "Failed to create span
//     writer ... unknown key [template]"; neither Elasticsearch 8.5.0
//     (the pod behind --es.server-urls) nor the collector's 1.41.
//   - ZooKeeper: OOMKilled at its limit 384Mi (the limit is named); not
//     ZOO_HEAP_SIZE=1024, the heap set above it.
//   - jenkins-operator: ContainerFailed/Exit1 quoting the last line ("Error:
//     A fatal exception has occurred") over "Unrecognized VM option
//     'UseCGroupMemoryLimitForHeap'"; neither JAVA_OPTS nor the jdk11
//     image.
//   - Plausible: Running/Errors/ErrorLine quoting the "[error] ... running
//     PlausibleWeb.Endpoint ... terminated" header of the crash report, not
//     the ArgumentError under it; SECRET_KEY_BASE is not named.
//   - JupyterHub: CrashLoop/Exit1 with no log line (the traceback's
//     "database is locked" is not read); claim hub-db-dir is not named.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c11appScenarios...)
		register(c11appScenarios2...)
	}
}

// c11appCrash is the status of a pod whose one container crash-loops
// (image, address ip) after its last run ended with code and reason.
func c11appCrash(container, image, ip string, code int32, reason string, restarts int32) corev1.PodStatus {
	st := crashStatus(container, code, reason, restarts)
	st.ContainerStatuses[0].Image = image
	st.ContainerStatuses[0].ImageID = image + "@sha256:11"
	st.PodIP, st.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	return st
}

// c11appClaim creates claim bound to a scenario-scoped volume of class,
// provisioned by provisioner from src, with access modes (ReadWriteOnce
// when none).
func c11appClaim(t *testing.T, c *testcluster.Cluster, ns, claim, class, provisioner, size string, src corev1.PersistentVolumeSource, modes ...corev1.PersistentVolumeAccessMode) {
	t.Helper()
	if len(modes) == 0 {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	c9kubeBoundClaim(t, c, ns, claim, "pvc-"+claim+"-"+ns, class, provisioner, size, modes, false, src)
}

// c11appCSI is a CSI volume source of driver.
func c11appCSI(driver, handle string) corev1.PersistentVolumeSource {
	return corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}}
}

// c11appSts creates StatefulSet name governed by Service svc, whose pods
// (labels, spec) each get a claim per template of claims.
func c11appSts(t *testing.T, c *testcluster.Cluster, ns, name, svc string, labels map[string]string, replicas int32, policy appsv1.PodManagementPolicyType, spec corev1.PodSpec, claims ...corev1.PersistentVolumeClaim) *appsv1.StatefulSet {
	t.Helper()
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(labels)},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr(replicas), ServiceName: svc, PodManagementPolicy: policy,
			Selector:             &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)}, Spec: spec},
			VolumeClaimTemplates: claims}}
	c.Create(t, sts)
	return sts
}

// c11appClaimTemplate is a volumeClaimTemplate name of class and size.
func c11appClaimTemplate(name, class, size string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr(class), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
}

// c11appStsPod creates ordinal i of sts with status, its claims named as
// the statefulset controller names them (template "data" of pod NAME-i is
// "data-NAME-i").
func c11appStsPod(t *testing.T, c *testcluster.Cluster, sts *appsv1.StatefulSet, i int, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	name := fmt.Sprintf("%s-%d", sts.Name, i)
	labels := maps.Clone(sts.Spec.Template.Labels)
	labels["statefulset.kubernetes.io/pod-name"] = name
	labels["apps.kubernetes.io/pod-index"] = fmt.Sprint(i)
	labels["controller-revision-hash"] = sts.Name + "-5d8f7c9b6"
	spec := *sts.Spec.Template.Spec.DeepCopy()
	spec.Hostname, spec.Subdomain, spec.NodeName = name, sts.Spec.ServiceName, c.NodeName
	for _, vct := range sts.Spec.VolumeClaimTemplates {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: vct.Name,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: vct.Name + "-" + name}}})
	}
	return c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sts.Namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{wlController("StatefulSet", sts)}}, Spec: spec, Status: status})
}

// c11appHeadless creates headless Service name (publishing not-ready
// addresses, as database charts do) with ports.
func c11appHeadless(t *testing.T, c *testcluster.Cluster, ns, name string, selector map[string]string, ports ...corev1.ServicePort) {
	t.Helper()
	c4bService(t, c, ns, name, selector, ports, func(s *corev1.Service) {
		s.Spec.ClusterIP = corev1.ClusterIPNone
		s.Spec.PublishNotReadyAddresses = true
	})
}

var c11appScenarios = []scenario{
	{
		// The victoria-metrics-cluster chart with vmstorage.replicaCount 2
		// and persistentVolume.existingClaim test-pvc (ReadWriteMany) mounts
		// the one claim into both pods; vmstorage locks its data directory,
		// so the second replica finds the lock of the first and panics at
		// start. The fix is one claim per pod (the chart's claim template).
		name:   "real-vmstorage-replicas-share-existing-claim-flock",
		source: "material: https://github.com/VictoriaMetrics/helm-charts/issues/1082 (vmstorage replicaCount: 2, persistentVolume.existingClaim: test-pvc, accessModes: ReadWriteMany, mountPath: /storage; all the pods use the same volume and fail with {\"level\":\"panic\",\"caller\":\"VictoriaMetrics/lib/fs/fs.go:345\",\"msg\":\"FATAL: cannot create lock file: cannot acquire lock on file \\\"/storage/flock.lock\\\": resource temporarily unavailable; make sure a single process has exclusive access to \\\"/storage\\\"\"}; the maintainer: vmstorage creates flock.lock so that it is the only process writing its data directory; resolved by using the PVC template, a claim per pod); the panic's goroutine trace as in https://github.com/VictoriaMetrics/VictoriaMetrics/issues/9883",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "victoriametrics/vmstorage:v1.101.0-cluster"
			name := "vmcluster-victoria-metrics-cluster-vmstorage"
			c11appClaim(t, c, ns, "test-pvc", "nfs-client", "cluster.local/nfs-subdir-external-provisioner", "500Gi",
				corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.20.0.15", Path: "/srv/nfs/monitoring-test-pvc"}}, corev1.ReadWriteMany)
			labels := map[string]string{"app": "vmstorage", "app.kubernetes.io/name": "victoria-metrics-cluster", "app.kubernetes.io/instance": "vmcluster"}
			c11appHeadless(t, c, ns, name, labels, c4bPort("http", 8482, intstr.FromString("http")), c4bPort("vminsert", 8400, intstr.FromString("vminsert")), c4bPort("vmselect", 8401, intstr.FromString("vmselect")))
			spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "vmstorage", Image: image,
				Args:           []string{"--retentionPeriod=1", "--storageDataPath=/storage", "--envflag.enable=true", "--envflag.prefix=VM_", "--loggerFormat=json"},
				Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8482}, {Name: "vminsert", ContainerPort: 8400}, {Name: "vmselect", ContainerPort: 8401}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("http")}}, InitialDelaySeconds: 5, PeriodSeconds: 15, TimeoutSeconds: 5, FailureThreshold: 3},
				LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")}}, InitialDelaySeconds: 30, PeriodSeconds: 30, TimeoutSeconds: 5, FailureThreshold: 10},
				VolumeMounts:   []corev1.VolumeMount{{Name: "vmstorage-volume", MountPath: "/storage"}}}},
				Volumes: []corev1.Volume{{Name: "vmstorage-volume", VolumeSource: c4aClaimSource("test-pvc")}}}
			sts := c11appSts(t, c, ns, name, name, labels, 2, appsv1.OrderedReadyPodManagement, spec)
			c10appStsStatus(t, c, sts, 2, 1)
			first := c11appStsPod(t, c, sts, 0, c10appPod("10.244.2.31", 26*time.Hour, c10appCtr("vmstorage", image, true, 26*time.Hour, 0)))
			c.SetLogs(ns, first.Name, "vmstorage", false, c5Lines(
				`{"ts":"`+time.Now().Add(-26*time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")+`","level":"info","caller":"VictoriaMetrics/app/vmstorage/main.go:107","msg":"opening storage at \"/storage\" with -retentionPeriod=1"}`,
				`{"ts":"`+time.Now().Add(-26*time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")+`","level":"info","caller":"VictoriaMetrics/app/vmstorage/main.go:142","msg":"successfully opened storage \"/storage\" in 0.412 seconds; partsCount: 0; blocksCount: 0; rowsCount: 0; sizeBytes: 0"}`,
			)+c4bStamps(4, 6*time.Hour, "2006-01-02T15:04:05.000Z", `{"ts":"%s","level":"info","caller":"VictoriaMetrics/lib/storage/partition.go:1133","msg":"merged 12 parts with 1412844 rows in 0.214 seconds; partition small/2024_06"}`+"\n"))
			st := c11appCrash("vmstorage", image, "10.244.2.32", 2, "Error", 27)
			second := c11appStsPod(t, c, sts, 1, st)
			at := time.Now().Add(-90 * time.Second).UTC().Format("2006-01-02T15:04:05.000Z")
			c.SetLogs(ns, second.Name, "vmstorage", true, c5Lines(
				`{"ts":"`+at+`","level":"info","caller":"VictoriaMetrics/lib/logger/flag.go:20","msg":"command-line flags"}`,
				`{"ts":"`+at+`","level":"info","caller":"VictoriaMetrics/lib/logger/flag.go:20","msg":"  -envflag.enable=\"true\""}`,
				`{"ts":"`+at+`","level":"info","caller":"VictoriaMetrics/lib/logger/flag.go:20","msg":"  -envflag.prefix=\"VM_\""}`,
				`{"ts":"`+at+`","level":"info","caller":"VictoriaMetrics/lib/logger/flag.go:20","msg":"  -loggerFormat=\"json\""}`,
				`{"ts":"`+at+`","level":"info","caller":"VictoriaMetrics/lib/logger/flag.go:20","msg":"  -retentionPeriod=\"1\""}`,
				`{"ts":"`+at+`","level":"info","caller":"VictoriaMetrics/lib/logger/flag.go:20","msg":"  -storageDataPath=\"/storage\""}`,
				`{"ts":"`+at+`","level":"info","caller":"VictoriaMetrics/app/vmstorage/main.go:107","msg":"opening storage at \"/storage\" with -retentionPeriod=1"}`,
				`{"ts":"`+at+`","level":"panic","caller":"VictoriaMetrics/lib/fs/fs.go:345","msg":"FATAL: cannot create lock file: cannot acquire lock on file \"/storage/flock.lock\": resource temporarily unavailable; make sure a single process has exclusive access to \"/storage\""}`,
				`panic: FATAL: cannot create lock file: cannot acquire lock on file "/storage/flock.lock": resource temporarily unavailable; make sure a single process has exclusive access to "/storage"`,
				``,
				`goroutine 1 [running]:`,
				`github.com/VictoriaMetrics/VictoriaMetrics/lib/logger.logMessage({0xc049df, 0x5}, {0x400014e180, 0xb6}, 0x4)`,
				`	github.com/VictoriaMetrics/VictoriaMetrics/lib/logger/logger.go:315 +0x960`,
			))
			c.SetLogs(ns, second.Name, "vmstorage", false, "")
			c8appBackOff(t, c, second, "vmstorage", 118)
			return []string{"pod/" + second.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"test-pvc", "vmstorage-0"},
	},
	{
		// Mattermost 5.30 rewrites (pretty-prints) config.json at start; the
		// mattermost-team-edition chart mounts config.json from a Secret,
		// which is read-only, so 5.30.0 exits where 5.29.1 ran. The fix the
		// chart took copies the file to a writable emptyDir in an init
		// container (or the config moves to the database).
		name:   "real-mattermost-5-30-config-json-on-read-only-secret",
		source: "material: https://github.com/mattermost/mattermost/issues/16725 (upgrading from 5.29.1 to 5.30.0 mattermost refuses to start because config.json is mounted on a read-only Secret, not a writable PersistentVolume; \"Error: failed to load configuration: unable to load on store creation: failed to persist: failed to write file: open /mattermost/config/config.json: read-only file system\" followed by the command's usage), https://github.com/mattermost/mattermost-helm/issues/203 (mattermost-team-edition: images >= 5.30 fail so, 5.29.1 starts), https://github.com/mattermost/mattermost-helm/pull/213 (Mattermost pretty-prints config.json since 5.30 so it must be writable; copy it from the k8s Secret to an emptyDir in an initContainer)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "mattermost-mattermost-team-edition"
			secret := name + "-config-json"
			c8appSecret(t, c, ns, secret, corev1.SecretTypeOpaque, map[string]string{"config.json": `{"ServiceSettings":{"SiteURL":"https://chat.example.org","ListenAddress":":8065"},"SqlSettings":{"DriverName":"mysql","DataSource":"mattermost:Rg7sW2qk@tcp(mattermost-mysql:3306)/mattermost?charset=utf8mb4,utf8&readTimeout=30s&writeTimeout=30s"},"FileSettings":{"Directory":"/mattermost/data/"},"PluginSettings":{"Directory":"/mattermost/plugins/","ClientDirectory":"/mattermost/client/plugins"}}`})
			tmpl := func(tag string) corev1.PodTemplateSpec {
				return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "mattermost-team-edition", Image: "mattermost/mattermost-team-edition:" + tag,
						Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8065}},
						LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/api/v4/system/ping", Port: intstr.FromString("http")}}, InitialDelaySeconds: 90, PeriodSeconds: 15, TimeoutSeconds: 5},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/api/v4/system/ping", Port: intstr.FromString("http")}}, InitialDelaySeconds: 15, PeriodSeconds: 15, TimeoutSeconds: 5},
						VolumeMounts: []corev1.VolumeMount{{Name: "config-json", MountPath: "/mattermost/config/config.json", SubPath: "config.json"},
							{Name: "mattermost-data", MountPath: "/mattermost/data"}, {Name: "mattermost-plugins", MountPath: "/mattermost/plugins"}}}},
						Volumes: []corev1.Volume{{Name: "config-json", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}},
							{Name: "mattermost-data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
							{Name: "mattermost-plugins", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}
			}
			p := c4aRollout(t, c, ns, name, tmpl("5.29.1"), tmpl("5.30.0"), 1, c5Lines(
				"Error: failed to load configuration: unable to load on store creation: failed to persist: failed to write file: open /mattermost/config/config.json: read-only file system",
				"Usage:",
				"  mattermost [flags]",
				"  mattermost [command]",
				"",
				"Available Commands:",
				"  channel     Management of channels",
				"  command     Management of slash commands",
				"  config      Configuration",
				"  export      Export data from Mattermost",
				"  group       Management of groups",
				"  help        Help about any command",
				"  import      Import data.",
				"  integrity   Check database data integrity",
				"  jobserver   Start the Mattermost job server",
				"  ldap        LDAP related utilities",
				"  license     Licensing commands",
				"  logs        Display logs in a human-readable format",
				"  permissions Management of the Permissions system",
				"  plugin      Management of plugins",
				"  reset       Reset the database to initial state",
				"",
				"Flags:",
				"  -c, --config string     Configuration file to use.",
				"  -h, --help              help for mattermost",
				"",
				`Use "mattermost [command] --help" for more information about a command.`,
			))
			c4bService(t, c, ns, name, map[string]string{"app": name}, []corev1.ServicePort{c4bPort("mattermost-team-edition", 8065, intstr.FromString("http"))})
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"mattermost-mattermost-team-edition-config-json", "5.30.0"},
	},
	{
		// A Meilisearch engine refuses a database written by another
		// version: the StatefulSet's image moved to v1.49.0 while the data
		// on its claim was written by 1.48.2, so meilisearch-0 exits at
		// every start. The fix is --experimental-dumpless-upgrade (migrate
		// in place) or a dump and reimport.
		name:   "real-meilisearch-v1-49-image-on-1-48-2-database",
		source: "material: https://github.com/uberswe/createmod.com/pull/1479 (prod search is degraded: meilisearch-0 has been in CrashLoopBackOff since the v1.49 image landed, refusing to start on a v1.48.2 database: \"Error: Your database version (1.48.2) is incompatible with your current engine version (1.49.0).\"; fix: --experimental-dumpless-upgrade so Meilisearch migrates the database in place at boot), the log shape as in https://github.com/meilisearch/meilisearch/issues/5534 (ERROR meilisearch: error=Your database version (...) is incompatible with your current engine version (...). To migrate data between Meilisearch versions, please follow our guide on https://www.meilisearch.com/docs/learn/update_and_migration/updating.)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "getmeili/meilisearch:v1.49.0"
			labels := map[string]string{"app.kubernetes.io/name": "meilisearch", "app.kubernetes.io/part-of": "createmod"}
			c8appSecret(t, c, ns, "meilisearch-master-key", corev1.SecretTypeOpaque, map[string]string{"MEILI_MASTER_KEY": "f3b9c2e7a1d84b6f9e0c5a7d2b8e4f1a"})
			c11appHeadless(t, c, ns, "meilisearch", labels, c4bPort("http", 7700, intstr.FromString("http")))
			spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "meilisearch", Image: image,
				Env: []corev1.EnvVar{{Name: "MEILI_ENV", Value: "production"}, {Name: "MEILI_DB_PATH", Value: "/meili_data/data.ms"}, {Name: "MEILI_NO_ANALYTICS", Value: "true"},
					c8appSecretKey("MEILI_MASTER_KEY", "meilisearch-master-key", "MEILI_MASTER_KEY")},
				Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 7700}},
				ReadinessProbe: c4aHTTPProbe("/health", 7700, corev1.URISchemeHTTP),
				LivenessProbe:  c4aHTTPProbe("/health", 7700, corev1.URISchemeHTTP),
				Resources:      corev1.ResourceRequirements{Requests: c10appRes("100m", "512Mi"), Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}},
				VolumeMounts:   []corev1.VolumeMount{{Name: "data", MountPath: "/meili_data"}}}}}
			sts := c11appSts(t, c, ns, "meilisearch", "meilisearch", labels, 1, appsv1.OrderedReadyPodManagement, spec, c11appClaimTemplate("data", "hcloud-volumes", "10Gi"))
			c11appClaim(t, c, ns, "data-meilisearch-0", "hcloud-volumes", "csi.hetzner.cloud", "10Gi", c11appCSI("csi.hetzner.cloud", "100654321"))
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, ReadyReplicas: 0, AvailableReplicas: 0, CurrentReplicas: 0, UpdatedReplicas: 1,
				CurrentRevision: "meilisearch-6d9f8b7c54", UpdateRevision: "meilisearch-5d8f7c9b6", CollisionCount: ptr(int32(0))}
			c.SetObjectStatus(t, sts)
			p := c11appStsPod(t, c, sts, 0, c11appCrash("meilisearch", image, "10.0.3.41", 1, "Error", 63))
			at := time.Now().Add(-70 * time.Second).UTC().Format("2006-01-02T15:04:05.000000Z")
			c.SetLogs(ns, p.Name, "meilisearch", true, c5Lines(
				at+" ERROR meilisearch: error=Your database version (1.48.2) is incompatible with your current engine version (1.49.0).",
				"",
				"To migrate data between Meilisearch versions, please follow our guide on https://www.meilisearch.com/docs/learn/update_and_migration/updating.",
				"Error: Your database version (1.48.2) is incompatible with your current engine version (1.49.0).",
				"",
				"To migrate data between Meilisearch versions, please follow our guide on https://www.meilisearch.com/docs/learn/update_and_migration/updating.",
			))
			c.SetLogs(ns, p.Name, "meilisearch", false, "")
			c8appBackOff(t, c, p, "meilisearch", 270)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"1.48.2", "v1.49.0"},
	},
	{
		// The Jaeger operator's collector 1.41 creates its index templates
		// in the legacy format, which Elasticsearch 8 rejects ("unknown key
		// [template] in the template"); the cluster it points at runs
		// 8.5.0, so the collector exits at start. Jaeger 1.41 does not
		// support ES 8; the workaround is --es.version=7 with
		// --es.create-index-templates=false, the fix a Jaeger with ES 8
		// support (or ES 7).
		name:   "real-jaeger-collector-1-41-against-elasticsearch-8-5-0",
		source: "material: https://github.com/StatCan/aaw/issues/1505 (the Jaeger Collector, a component created by the operator, fails with \"msg\":\"Failed to create span writer\",\"error\":\"elastic: Error 400 (Bad Request): unknown key [template] in the template\"; the latest release of Jaeger (1.41) does not yet support ES v8.x+, and their Elasticsearch instance is v8.5.0), https://github.com/jaegertracing/jaeger/issues/3571 (Elasticsearch 8.x support; collector start-up errors worked around with --es.version=7 --es.create-index-templates=false), https://github.com/jaegertracing/jaeger-operator/issues/1801 (the same parse_exception \"unknown key [template] in the template\" after Elasticsearch was updated to 8.0.0). In the thread Elasticsearch ran in another namespace (elastic-monitoring-es-http.monitoring-system.svc); here it runs in the collector's.",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			esImage, image := "docker.elastic.co/elasticsearch/elasticsearch:8.5.0", "jaegertracing/jaeger-collector:1.41.0"
			esLabels := map[string]string{"common.k8s.elastic.co/type": "elasticsearch", "elasticsearch.k8s.elastic.co/cluster-name": "elastic-monitoring",
				"elasticsearch.k8s.elastic.co/statefulset-name": "elastic-monitoring-es-default", "elasticsearch.k8s.elastic.co/version": "8.5.0"}
			c11appHeadless(t, c, ns, "elastic-monitoring-es-default", esLabels, c4bPort("http", 9200, intstr.FromInt32(9200)))
			esSpec := corev1.PodSpec{Containers: []corev1.Container{{Name: "elasticsearch", Image: esImage,
				Ports:          []corev1.ContainerPort{{Name: "https", ContainerPort: 9200}, {Name: "transport", ContainerPort: 9300}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"bash", "-c", "/mnt/elastic-internal/scripts/readiness-probe-script.sh"}}}, PeriodSeconds: 5, TimeoutSeconds: 5, FailureThreshold: 3},
				VolumeMounts:   []corev1.VolumeMount{{Name: "elasticsearch-data", MountPath: "/usr/share/elasticsearch/data"}}}}}
			es := c11appSts(t, c, ns, "elastic-monitoring-es-default", "elastic-monitoring-es-default", esLabels, 1, appsv1.ParallelPodManagement, esSpec, c11appClaimTemplate("elasticsearch-data", "managed-csi", "100Gi"))
			c11appClaim(t, c, ns, "elasticsearch-data-elastic-monitoring-es-default-0", "managed-csi", "disk.csi.azure.com", "100Gi", c11appCSI("disk.csi.azure.com", "/subscriptions/0f3e/resourceGroups/aaw-dev/providers/Microsoft.Compute/disks/pvc-es-0"))
			c10appStsStatus(t, c, es, 1, 1)
			esPod := c11appStsPod(t, c, es, 0, c10appPod("10.3.12.40", 6*24*time.Hour, c10appCtr("elasticsearch", esImage, true, 6*24*time.Hour, 0)))
			started := time.Now().Add(-6 * 24 * time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
			c.SetLogs(ns, esPod.Name, "elasticsearch", false, c5Lines(
				`{"@timestamp":"`+started+`", "log.level": "INFO", "message":"version[8.5.0], pid[82], build[docker/c94b4700cda13820dad5aa74fae6db185ca5c304/2022-10-24T16:54:16.433628434Z], OS[Linux/5.4.0-1098-azure/amd64], JVM[Oracle Corporation/OpenJDK 64-Bit Server VM/19/19+36-2238]", "ecs.version": "1.2.0","service.name":"ES_ECS","event.dataset":"elasticsearch.server","process.thread.name":"main","log.logger":"org.elasticsearch.node.Node","elasticsearch.node.name":"elastic-monitoring-es-default-0","elasticsearch.cluster.name":"elastic-monitoring"}`,
				`{"@timestamp":"`+started+`", "log.level": "INFO", "message":"started {elastic-monitoring-es-default-0}{8cGd2TwoS9yJYV7cbAUQ6Q}{10.3.12.40}{10.3.12.40:9300}{cdfhilmrstw}", "ecs.version": "1.2.0","service.name":"ES_ECS","event.dataset":"elasticsearch.server","process.thread.name":"main","log.logger":"org.elasticsearch.node.Node","elasticsearch.node.name":"elastic-monitoring-es-default-0","elasticsearch.cluster.name":"elastic-monitoring"}`,
			))
			svc := c4bService(t, c, ns, "elastic-monitoring-es-http", map[string]string{"common.k8s.elastic.co/type": "elasticsearch", "elasticsearch.k8s.elastic.co/cluster-name": "elastic-monitoring"},
				[]corev1.ServicePort{c4bPort("https", 9200, intstr.FromInt32(9200))})
			c4bSlice(t, c, ns, svc.Name, c4bSlicePort("https", 9200), esPod)
			c8appSecret(t, c, ns, "elastic-monitoring-es-elastic-user", corev1.SecretTypeOpaque, map[string]string{"elastic": "7Hq2Rk9Lm4Pz"})
			labels := map[string]string{"app": "jaeger", "app.kubernetes.io/component": "collector", "app.kubernetes.io/instance": "simple-prod",
				"app.kubernetes.io/managed-by": "jaeger-operator", "app.kubernetes.io/name": "simple-prod-collector", "app.kubernetes.io/part-of": "jaeger"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"prometheus.io/port": "14269", "prometheus.io/scrape": "true", "sidecar.istio.io/inject": "false"}},
				Spec: corev1.PodSpec{ServiceAccountName: "default", Containers: []corev1.Container{{Name: "jaeger-collector", Image: image,
					Args: []string{"--collector.grpc.tls.cert=/etc/tls-config/tls.crt", "--collector.grpc.tls.enabled=true", "--collector.grpc.tls.key=/etc/tls-config/tls.key",
						"--es.num-replicas=0", "--es.num-shards=1", "--es.server-urls=https://elastic-monitoring-es-http:9200", "--es.tls.enabled=true", "--es.tls.skip-host-verify=true",
						"--es.username=elastic", "--sampling.strategies-file=/etc/jaeger/sampling/sampling.json"},
					Env: []corev1.EnvVar{{Name: "SPAN_STORAGE_TYPE", Value: "elasticsearch"}, {Name: "COLLECTOR_ZIPKIN_HOST_PORT", Value: ":9411"}, {Name: "COLLECTOR_OTLP_ENABLED", Value: "true"},
						c8appSecretKey("ES_PASSWORD", "elastic-monitoring-es-elastic-user", "elastic")},
					Ports: []corev1.ContainerPort{{Name: "zipkin", ContainerPort: 9411}, {Name: "c-tchan-trft", ContainerPort: 14267}, {Name: "c-binary-trft", ContainerPort: 14268},
						{Name: "admin-http", ContainerPort: 14269}, {Name: "grpc", ContainerPort: 14250}, {Name: "grpc-otlp", ContainerPort: 4317}, {Name: "http-otlp", ContainerPort: 4318}},
					LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(14269)}}, InitialDelaySeconds: 5, PeriodSeconds: 15, FailureThreshold: 5},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(14269)}}, InitialDelaySeconds: 1},
					VolumeMounts: []corev1.VolumeMount{{Name: "simple-prod-sampling-configuration-volume", MountPath: "/etc/jaeger/sampling", ReadOnly: true},
						{Name: "simple-prod-collector-tls-config-volume", MountPath: "/etc/tls-config", ReadOnly: true}}}},
					Volumes: []corev1.Volume{{Name: "simple-prod-sampling-configuration-volume", VolumeSource: c4aConfigMapSource("simple-prod-sampling-configuration")},
						{Name: "simple-prod-collector-tls-config-volume", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "simple-prod-collector-headless-tls"}}}}}}
			c4aConfigMap(t, c, ns, "simple-prod-sampling-configuration", map[string]string{"sampling": `{"default_strategy":{"param":1,"type":"probabilistic"}}`})
			c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "simple-prod-collector-headless-tls", Namespace: ns}, Type: corev1.SecretTypeTLS,
				Data: map[string][]byte{"tls.crt": []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), "tls.key": []byte("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n")}})
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "simple-prod-collector", Replicas: 1, Template: &tmpl, PodStatus: c11appCrash("jaeger-collector", image, "10.3.14.77", 1, "Error", 9)})
			p := pods[0]
			ts := float64(time.Now().Add(-80*time.Second).UnixMilli()) / 1000
			c.SetLogs(ns, p.Name, "jaeger-collector", true, c5Lines(
				fmt.Sprintf(`{"level":"info","ts":%.7f,"caller":"flags/service.go:119","msg":"Mounting metrics handler on admin server","route":"/metrics"}`, ts),
				fmt.Sprintf(`{"level":"info","ts":%.7f,"caller":"flags/service.go:125","msg":"Mounting expvar handler on admin server","route":"/debug/vars"}`, ts),
				fmt.Sprintf(`{"level":"info","ts":%.7f,"caller":"flags/admin.go:129","msg":"Mounting health check on admin server","route":"/"}`, ts),
				fmt.Sprintf(`{"level":"info","ts":%.7f,"caller":"flags/admin.go:143","msg":"Starting admin HTTP server","http-addr":":14269"}`, ts),
				fmt.Sprintf(`{"level":"info","ts":%.7f,"caller":"flags/admin.go:121","msg":"Admin server started","http.host-port":"[::]:14269","health-status":"unavailable"}`, ts),
				fmt.Sprintf(`{"level":"fatal","ts":%.7f,"caller":"./main.go:107","msg":"Failed to create span writer","error":"elastic: Error 400 (Bad Request): unknown key [template] in the template [type=parse_exception]","stacktrace":"main.main.func1\n\t./main.go:107\ngithub.com/spf13/cobra.(*Command).execute\n\tgithub.com/spf13/cobra@v1.6.1/command.go:916\ngithub.com/spf13/cobra.(*Command).ExecuteC\n\tgithub.com/spf13/cobra@v1.6.1/command.go:1044\ngithub.com/spf13/cobra.(*Command).Execute\n\tgithub.com/spf13/cobra@v1.6.1/command.go:968\nmain.main\n\t./main.go:178\nruntime.main\n\truntime/proc.go:250"}`, ts+0.41),
			))
			c.SetLogs(ns, p.Name, "jaeger-collector", false, "")
			c8appBackOff(t, c, p, "jaeger-collector", 36)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"8.5.0", "1.41"},
	},
}
