package realnode

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// faults is the real-fault suite: each is produced by the real kubelet,
// containerd, scheduler or controller-manager, and triaged at several
// moments of its life.
var faults = []fault{
	{
		name:     "crashloop-envconfig",
		setup:    podSetup(shellPod("orders", `echo "starting orders v2.3.1"; echo "$(date -u '+%Y/%m/%d %H:%M:%S') config: required key DATABASE_URL missing value"; exit 1`)),
		moments:  crashMoments,
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"DATABASE_URL"},
	},
	{
		name:     "crashloop-envconfig-json",
		setup:    podSetup(shellPod("orders", `echo '{"level":"info","ts":1764140000.5,"msg":"starting orders","version":"2.3.1"}'; echo '{"level":"fatal","ts":1764140000.6,"caller":"orders/main.go:42","msg":"load config","error":"required key DATABASE_URL missing value"}'; exit 1`)),
		moments:  crashMoments,
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"DATABASE_URL"},
	},
	{
		name:     "crashloop-logfmt-refused",
		setup:    podSetup(shellPod("worker", `echo 'time=2026-11-26T07:00:00Z level=info msg="worker starting"'; echo 'time=2026-11-26T07:00:01Z level=error msg="connect to queue" err="dial tcp 10.0.0.42:5672: connect: connection refused"'; exit 1`)),
		moments:  crashMoments,
		category: "CrashLoop/Exit1/ConnectionRefused",
		culprit:  []string{"10.0.0.42:5672"},
	},
	{
		name:     "crashloop-go-panic",
		setup:    podSetup(shellPod("api", `echo 'panic: runtime error: invalid memory address or nil pointer dereference'; echo '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]'; echo; echo 'goroutine 1 [running]:'; echo 'main.(*Server).Start(0x0)'; echo '	/src/server.go:88 +0x1c'; exit 2`)),
		moments:  crashMoments,
		category: "CrashLoop/Exit2/Panic",
		culprit:  []string{"nil pointer dereference"},
	},
	{
		name: "oomkilled-with-sidecar",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("cache", `echo "warming cache"; exec tail /dev/zero`)(ns)
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("24Mi")}
			p.Spec.Containers = append(p.Spec.Containers, container("log-shipper", `echo "shipping logs"; exec sleep 3600`))
			return p
		}),
		moments: []moment{
			{"first OOM kill", lastTerminated("app", "OOMKilled")},
			{"back-off", waitingReason("app", "CrashLoopBackOff")},
			{"after restarts", restarts("app", 2)},
		},
		category: "OOMKilled",
		culprit:  []string{"container app"},
	},
	{
		name: "image-never-pull",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("api", `sleep 3600`)(ns)
			p.Spec.Containers[0].Image = "local/nope:1"
			return p
		}),
		moments: []moment{
			{"first sync", waitingReason("app", "ErrImageNeverPull")},
			{"repeated", eventCount("ErrImageNeverPull", 3)},
		},
		category: "ImagePull/NeverPull",
		culprit:  []string{"local/nope:1"},
	},
	{
		name: "image-registry-unreachable",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("api", `sleep 3600`)(ns)
			// A registry port on the node's own address where nothing
			// listens: the pull fails at the network level, inside the
			// node's namespace.
			p.Spec.Containers[0].Image = NodeIP + ":5999/shop/api:1.4.2"
			p.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
			return p
		}),
		moments: []moment{
			{"ErrImagePull", waitingReason("app", "ErrImagePull")},
			{"ImagePullBackOff", waitingReason("app", "ImagePullBackOff")},
		},
		category: "ImagePull/Unreachable",
		culprit:  []string{NodeIP + ":5999/shop/api:1.4.2"},
	},
	{
		name: "registry-manifest-unknown",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			startRegistry(t)
			p := shellPod("api", `sleep 3600`)(ns)
			p.Spec.Containers[0].Image = RegistryAddr + "/shop/api:9.9.9"
			p.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
			return createPod(ctx, t, cs, p)
		},
		moments:  pullMoments,
		category: "ImagePull/NotFound",
		culprit:  []string{RegistryAddr + "/shop/api:9.9.9"},
	},
	{
		name: "registry-auth-required",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			startRegistry(t)
			p := shellPod("api", `sleep 3600`)(ns)
			p.Spec.Containers[0].Image = RegistryAddr + "/private/api:1.0"
			p.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
			return createPod(ctx, t, cs, p)
		},
		moments:  pullMoments,
		category: "ImagePull/Auth",
		culprit:  []string{RegistryAddr + "/private/api:1.0"},
	},
	{
		name: "ephemeral-storage-eviction",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("scratch", `echo "writing scratch data"; dd if=/dev/zero of=/tmp/fill bs=1M count=16; exec sleep 3600`)(ns)
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("4Mi")}
			return p
		}),
		moments: []moment{
			{"evicted", eventCount("Evicted", 1)},
			{"later", podAge(40)},
		},
		category: "Evicted/EphemeralStorageLimit",
		culprit:  []string{"ephemeral-storage"},
	},
	{
		name: "readiness-failing",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("web", `echo "listening"; exec sleep 3600`)(ns)
			p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}},
				PeriodSeconds: 2, FailureThreshold: 1,
			}
			return p
		}),
		moments: []moment{
			{"first failure", eventCount("Unhealthy", 1)},
			{"repeated", eventCount("Unhealthy", 5)},
		},
		category: "Probe/Readiness",
		culprit:  []string{"app"},
	},
	{
		name: "liveness-failing",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("web", `echo "listening"; exec sleep 3600`)(ns)
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
				PeriodSeconds: 2, FailureThreshold: 2,
			}
			return p
		}),
		moments: []moment{
			{"first kill", restarts("app", 1)},
			{"after restarts", restarts("app", 2)},
		},
		category: "Probe/Liveness",
		culprit:  []string{"app"},
	},
	{
		name: "configmap-key-missing",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-config"},
				Data: map[string]string{"LOG_LEVEL": "info"}}, metav1.CreateOptions{})
			mustCreate(t, nil, err)
			p := shellPod("api", `sleep 3600`)(ns)
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DATABASE_URL", ValueFrom: &corev1.EnvVarSource{
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "shop-config"}, Key: "DATABASE_URL"}}}}
			return createPod(ctx, t, cs, p)
		},
		moments:  configErrorMoments,
		category: "CreateContainerConfigError/MissingConfigMapKey",
		culprit:  []string{"DATABASE_URL", "shop-config"},
	},
	{
		name: "secret-missing",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("api", `sleep 3600`)(ns)
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db-credentials"}, Key: "password"}}}}
			return p
		}),
		moments:  configErrorMoments,
		category: "CreateContainerConfigError/MissingSecret",
		culprit:  []string{"db-credentials"},
	},
	{
		name: "volume-configmap-missing",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("api", `sleep 3600`)(ns)
			p.Spec.Volumes = []corev1.Volume{{Name: "settings", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-settings"}}}}}
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "settings", MountPath: "/etc/app"}}
			return p
		}),
		moments: []moment{
			{"first FailedMount", eventCount("FailedMount", 1)},
			{"repeated", eventCount("FailedMount", 3)},
		},
		category: "",
		culprit:  []string{"app-settings"},
	},
	{
		name: "init-migration-fails",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("orders", `exec sleep 3600`)(ns)
			p.Spec.InitContainers = []corev1.Container{container("migrate",
				`echo "applying migration 0042_add_orders_index"; echo 'ERROR: migration 0042_add_orders_index failed: pq: relation "orders" does not exist'; exit 1`)}
			return p
		}),
		moments: []moment{
			{"first failure", initTerminated("migrate")},
			{"back-off", initWaiting("migrate", "CrashLoopBackOff")},
			{"after restarts", initRestarts("migrate", 2)},
		},
		category: "InitContainer/CrashLoop/Exit1",
		culprit:  []string{`relation "orders" does not exist`},
	},
	{
		name: "bad-command",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("api", "")(ns)
			p.Spec.Containers[0].Command = []string{"/app/server"}
			p.Spec.Containers[0].Args = []string{"--port=8080"}
			return p
		}),
		moments: []moment{
			{"first failure", anyTerminatedOrWaiting("app", "StartError", "RunContainerError", "CrashLoopBackOff")},
			{"after restarts", restarts("app", 2)},
		},
		category: "",
		culprit:  []string{"/app/server"},
	},
	{
		name:     "exit0-loop",
		setup:    podSetup(shellPod("report", `echo "report generated"; exit 0`)),
		moments:  crashMoments,
		category: "CrashLoop/Exit0",
		culprit:  []string{"app"},
	},
	{
		name: "insufficient-cpu",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("batch", `sleep 3600`)(ns)
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}
			return p
		}),
		moments:  unschedulableMoments,
		category: "Unschedulable",
		culprit:  []string{"cpu"},
	},
	{
		name: "nodeselector-unmatched",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("batch", `sleep 3600`)(ns)
			p.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
			return p
		}),
		moments:  unschedulableMoments,
		category: "Unschedulable",
		culprit:  []string{"disktype"},
	},
	{
		name: "rollout-bad-image",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			d := deployment("shop-api", 1, shellPod("x", `echo "serving"; exec sleep 3600`)(ns).Spec)
			d, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
			mustCreate(t, d, err)
			// The first revision becomes available; the second is stuck.
			waitAvailable(ctx, t, cs, ns, "shop-api")
			got, err := cs.AppsV1().Deployments(ns).Get(ctx, "shop-api", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got.Spec.Template.Spec.Containers[0].Image = "local/shop-api:2.0.0"
			if _, err := cs.AppsV1().Deployments(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			return "deployment/shop-api"
		},
		moments: []moment{
			{"new pod stuck", waitingReason("app", "ErrImageNeverPull")},
			{"repeated", eventCount("ErrImageNeverPull", 3)},
		},
		category: "ImagePull/NeverPull",
		culprit:  []string{"local/shop-api:2.0.0"},
	},
	{
		name: "rollout-crash-introduced",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			spec := shellPod("x", `[ -n "$DATABASE_URL" ] || { echo "$(date -u '+%Y/%m/%d %H:%M:%S') config: required key DATABASE_URL missing value"; exit 1; }; echo serving; exec sleep 3600`)(ns).Spec
			spec.Containers[0].Env = []corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgres://orders-db:5432/orders"}}
			d := deployment("checkout", 1, spec)
			_, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
			mustCreate(t, d, err)
			waitAvailable(ctx, t, cs, ns, "checkout")
			// Revision 2 drops the variable: its pods crash-loop while the
			// old pod keeps serving.
			got, err := cs.AppsV1().Deployments(ns).Get(ctx, "checkout", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got.Spec.Template.Spec.Containers[0].Env = nil
			if _, err := cs.AppsV1().Deployments(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			return "deployment/checkout"
		},
		moments: []moment{
			{"new pod failed", terminatedAfterRestart("app")},
			{"back-off", waitingReason("app", "CrashLoopBackOff")},
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"DATABASE_URL", "revision 2"},
	},
	{
		name: "service-selector-typo",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			spec := shellPod("x", `exec sleep 3600`)(ns).Spec
			d := deployment("checkout", 1, spec)
			d.Spec.Selector.MatchLabels = map[string]string{"app": "check-out"}
			d.Spec.Template.Labels = map[string]string{"app": "check-out"}
			_, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
			mustCreate(t, d, err)
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "checkout"}, Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "checkout"},
				Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
			}}
			_, err = cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
			mustCreate(t, svc, err)
			return "service/checkout"
		},
		moments: []moment{
			{"pods ready", readyPods(1)},
			{"later", podAge(15)},
		},
		category: "Service/NoEndpoints/SelectorMismatch",
		culprit:  []string{"app=checkout", "app=check-out"},
	},
	{
		name: "pvc-pending-no-class",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "orders-data"}, Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			}}
			_, err := cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{})
			mustCreate(t, pvc, err)
			p := shellPod("orders-db", `exec sleep 3600`)(ns)
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "orders-data"}}}}
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/db"}}
			return createPod(ctx, t, cs, p)
		},
		moments: []moment{
			{"first attempt", eventCount("FailedScheduling", 1)},
			{"pending a while", podAge(20)},
		},
		category: "PVC/Pending",
		culprit:  []string{"orders-data"},
	},
	{
		name: "statefulset-ordinal-stuck",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			spec := shellPod("x", `echo "opening /var/lib/db"; echo "FATAL: data directory /var/lib/db has wrong ownership"; exit 1`)(ns).Spec
			labels := map[string]string{"app": "db"}
			ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
				Replicas: ptr(int32(2)), ServiceName: "db",
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
			}}
			_, err := cs.AppsV1().StatefulSets(ns).Create(ctx, ss, metav1.CreateOptions{})
			mustCreate(t, ss, err)
			return "statefulset/db"
		},
		moments: []moment{
			{"first failure", anyTerminated("app")},
			{"back-off", waitingReason("app", "CrashLoopBackOff")},
		},
		category: "CrashLoop/Exit1/PermissionDenied",
		// Either ordinal: db-0 runs for an instant before it fails, which
		// is Ready enough for OrderedReady to create db-1, and at the
		// first failure db-1's crash may be the one the status shows.
		culprit: []string{"pod/db-", "/var/lib/db"},
	},
	{
		name: "init-waits-forever",
		setup: podSetup(func(ns string) *corev1.Pod {
			p := shellPod("orders", `exec sleep 3600`)(ns)
			p.Spec.InitContainers = []corev1.Container{container("wait-for-db",
				`until nc -z -w 1 orders-db 5432; do echo "waiting for orders-db:5432"; sleep 2; done`)}
			return p
		}),
		moments: []moment{
			{"waiting", initRunningFor("wait-for-db", 10)},
			{"still waiting", initRunningFor("wait-for-db", 30)},
		},
		// The namespace has no Service orders-db: that is what a fix must
		// address, not the init container's running time.
		category: "InitContainer/ServiceMissing",
		culprit:  []string{"wait-for-db", "orders-db:5432", "no Service orders-db"},
	},
	{
		name: "job-backoff-limit",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			spec := shellPod("x", `echo "processing batch 7"; echo "error: open /data/batch-7.csv: no such file or directory"; exit 1`)(ns).Spec
			spec.RestartPolicy = corev1.RestartPolicyNever
			j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "import-batch"}, Spec: batchv1.JobSpec{
				BackoffLimit: ptr(int32(1)),
				Template:     corev1.PodTemplateSpec{Spec: spec},
			}}
			_, err := cs.BatchV1().Jobs(ns).Create(ctx, j, metav1.CreateOptions{})
			mustCreate(t, j, err)
			return "job/import-batch"
		},
		moments: []moment{
			{"first pod failed", podsFailed(1)},
			{"backoff limit", eventCount("BackoffLimitExceeded", 1)},
		},
		// The Job's failure is context: the root cause is its pods' exit.
		category: "ContainerFailed/Exit1/MissingFile",
		culprit:  []string{"/data/batch-7.csv"},
	},
	{
		name: "quota-refusal",
		setup: func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
			_, err := cs.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods-cap"},
				Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}, metav1.CreateOptions{})
			mustCreate(t, nil, err)
			// The quota controller must have computed usage before the
			// admission can count against it.
			if err := poll(ctx, time.Minute, func() bool {
				q, err := cs.CoreV1().ResourceQuotas(ns).Get(ctx, "pods-cap", metav1.GetOptions{})
				return err == nil && q.Status.Hard != nil
			}); err != nil {
				t.Fatalf("quota status: %v", err)
			}
			d := deployment("shop-api", 3, shellPod("x", `echo "serving"; exec sleep 3600`)(ns).Spec)
			_, err = cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
			mustCreate(t, d, err)
			return "deployment/shop-api"
		},
		moments: []moment{
			{"first refusal", eventCount("FailedCreate", 1)},
			{"repeated", eventCount("FailedCreate", 4)},
		},
		category: "FailedCreate/Quota",
		culprit:  []string{"pods-cap"},
	},
}
