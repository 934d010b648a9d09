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
}
