package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func init() { register(containerScenarios...) }

// Container scenarios: each state is what the kubelet (statuses, events
// with the container's fieldPath, logs) would have left on the API server.

// ctCrashPod creates a bare pod "name" crash-looping with exit code and
// the previous instance's log.
func ctCrashPod(t *testing.T, c *testcluster.Cluster, ns, name string, code int32, reason, log string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Status = crashStatus("app", code, reason, 6)
	}}, mutate...)...))
	c.SetLogs(ns, name, "app", true, log)
	c.SetLogs(ns, name, "app", false, "")
	c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 27, First: time.Now().Add(-25 * time.Minute), FieldPath: "spec.containers{app}",
		Message: fmt.Sprintf("Back-off restarting failed container app in pod %s_%s(%s)", name, ns, p.UID)})
	return p
}

// ctEvent records a kubelet event about one container of a pod.
func ctEvent(t *testing.T, c *testcluster.Cluster, p *corev1.Pod, container, typ, reason, msg string, count int32) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: p, Type: typ, Reason: reason, Message: msg, Count: count,
		First: time.Now().Add(-20 * time.Minute), FieldPath: "spec.containers{" + container + "}"})
}

// ctRunningNotReady is a pod whose container runs but is not Ready.
func ctRunningNotReady(container, image string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.21", StartTime: ptr(minutesAgo(30)),
		Conditions: notReadyConditions(),
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:02", ContainerID: "containerd://r1",
			Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(29)}}}},
	}
}

// ctWaiting is a pod whose container waits with reason and message.
func ctWaiting(container, image, reason, message string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.22", StartTime: ptr(minutesAgo(20)),
		Conditions: notReadyConditions(),
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}},
	}
}

func ctHTTPProbe(path string, port intstr.IntOrString) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: port, Scheme: corev1.URISchemeHTTP}},
		PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1}
}

func ctPullStatus(image, reason, message string) corev1.PodStatus {
	return ctWaiting("app", image, reason, message)
}

var containerScenarios = []scenario{
	// Crash loops classified by exit code and log line.
	{
		name: "container-exit127-command-not-found",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "server", 127, "Error", "exec /app/server: no such file or directory\n", func(p *corev1.Pod) {
				p.Spec.Containers[0].Command = []string{"/app/server"}
			})
			return []string{"pod/server"}
		},
		category: "CrashLoop/Exit127/CommandNotFound",
		culprit:  []string{"container app", "/app/server"},
	},
	{
		name: "container-exit127-shell-not-found",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "migrator", 127, "Error", "running migrations\n/bin/sh: 1: flyway: not found\n", func(p *corev1.Pod) {
				p.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "flyway migrate"}
			})
			return []string{"pod/migrator"}
		},
		category: "CrashLoop/Exit127/CommandNotFound",
		culprit:  []string{"flyway: not found"},
	},
	{
		name: "container-exit139-segfault",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "imgproc", 139, "Error", "loading libvips 8.15\nSegmentation fault (core dumped)\n")
			return []string{"pod/imgproc"}
		},
		category: "CrashLoop/Exit139/Segfault",
		culprit:  []string{"container app", "Segmentation fault"},
	},
	{
		name: "container-exit137-sigkill-not-oom",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "batcher", 137, "Error", "processing batch 17 of 40\n", func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}
			})
			return []string{"pod/batcher"}
		},
		category: "CrashLoop/Exit137",
		culprit:  []string{"container app", "SIGKILL"},
	},
	{
		name: "container-panic-stack-trace",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "orders", 2, "Error", "listening on :8080\n"+
				"panic: runtime error: invalid memory address or nil pointer dereference\n"+
				"[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6b2f1a]\n\n"+
				"goroutine 1 [running]:\nmain.(*Store).Load(0x0)\n\t/src/store.go:42 +0x1a\nmain.main()\n\t/src/main.go:19 +0x85\n")
			return []string{"pod/orders"}
		},
		category: "CrashLoop/Exit2/Panic",
		culprit:  []string{"panic: runtime error: invalid memory address"},
	},
	{
		name: "container-permission-denied",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "store", 1, "Error", "initialising data dir\nError: mkdir /var/lib/store/wal: permission denied\n", func(p *corev1.Pod) {
				p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr(int64(10001))}
			})
			return []string{"pod/store"}
		},
		category: "CrashLoop/Exit1/PermissionDenied",
		culprit:  []string{"/var/lib/store/wal"},
	},
	{
		name: "container-address-in-use",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "gateway", 1, "Error", "starting gateway\nError: listen tcp 0.0.0.0:8080: bind: address already in use\n")
			return []string{"pod/gateway"}
		},
		category: "CrashLoop/Exit1/AddressInUse",
		culprit:  []string{"address already in use"},
	},
	{
		name: "container-exec-format-error",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "pricing", 255, "Error", "exec /usr/local/bin/pricing: exec format error\n")
			return []string{"pod/pricing"}
		},
		category: "CrashLoop/Exit255/ExecFormat",
		culprit:  []string{"exec format error"},
	},
	{
		name: "container-exit0-restart-always",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			ctCrashPod(t, c, ns, "oneshot", 0, "Completed", "report generated\n", func(p *corev1.Pod) {
				p.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "generate-report"}
			})
			return []string{"pod/oneshot"}
		},
		category: "CrashLoop/Exit0",
		culprit:  []string{"container app command/args"},
	},
	{
		name: "container-stale-pull-event-current-crash",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.example.com/shop/cart:3.2.0"
			p := ctCrashPod(t, c, ns, "cart", 1, "Error", "connecting to cache\nError: dial tcp 10.96.12.7:6379: connect: connection refused\n", func(p *corev1.Pod) {
				p.Spec.Containers[0].Image = image
			})
			// Three hours ago the first pull failed; the image has long been pulled since.
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "Failed", Count: 2, FieldPath: "spec.containers{app}",
				First: time.Now().Add(-4 * time.Hour), Last: time.Now().Add(-3 * time.Hour),
				Message: `Failed to pull image "` + image + `": rpc error: code = NotFound desc = failed to pull and unpack image "` + image + `": not found`})
			return []string{"pod/cart"}
		},
		category: "CrashLoop/Exit1/ConnectionRefused",
		culprit:  []string{"10.96.12.7:6379"},
	},

	// OOM in a sidecar only.
	{
		name: "container-oomkilled-sidecar",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("api", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "log-shipper", Image: "fluent/fluent-bit:3.1",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}}})
				st := crashStatus("log-shipper", 137, "OOMKilled", 9)
				st.ContainerStatuses = append([]corev1.ContainerStatus{{Name: "app", Image: "busybox:1.36", Ready: true, Started: ptr(true),
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(29)}}}}, st.ContainerStatuses...)
				p.Status = st
			}))
			c.SetLogs(ns, "api", "app", false, "serving\n")
			return []string{"pod/api"}
		},
		category: "OOMKilled",
		culprit:  []string{"container log-shipper", "32Mi"},
	},

	// Probes.
	{
		name: "container-liveness-port-mismatch",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := ctCrashPod(t, c, ns, "web", 137, "Error", "server listening on :3000\nreceived SIGTERM, shutting down\n", func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 3000, Protocol: corev1.ProtocolTCP}}
				p.Spec.Containers[0].LivenessProbe = ctHTTPProbe("/healthz", intstr.FromInt32(8080))
			})
			ctEvent(t, c, p, "app", "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8080/healthz": dial tcp 10.244.0.11:8080: connect: connection refused`, 18)
			ctEvent(t, c, p, "app", "Normal", "Killing", "Container app failed liveness probe, will be restarted", 6)
			return []string{"pod/web"}
		},
		category: "Probe/Liveness/PortMismatch",
		culprit:  []string{"livenessProbe.httpGet.port", "8080", "3000"},
	},
	{
		name: "container-liveness-timeout-deployment",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "search"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "search", Image: "shop/search:5.0.1",
					Ports:         []corev1.ContainerPort{{Name: "http", ContainerPort: 9200, Protocol: corev1.ProtocolTCP}},
					LivenessProbe: ctHTTPProbe("/_health", intstr.FromString("http"))}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "search", Template: tmpl, PodStatus: crashStatus("search", 143, "Error", 4)})
			for _, p := range pods {
				c.SetLogs(ns, p.Name, "search", true, "index warm-up 62%\nreceived SIGTERM, stopping\n")
				ctEvent(t, c, p, "search", "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:9200/_health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, 12)
				ctEvent(t, c, p, "search", "Normal", "Killing", "Container search failed liveness probe, will be restarted", 4)
			}
			return []string{"deploy/search"}
		},
		category: "Probe/Liveness/Timeout",
		culprit:  []string{"livenessProbe.timeoutSeconds (1s)", "container search"},
	},
	{
		name: "container-startup-probe-too-short",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := ctCrashPod(t, c, ns, "ledger", 143, "Error", "Starting Ledger using Java 21\nInitializing Spring context...\n", func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
				p.Spec.Containers[0].StartupProbe = ctHTTPProbe("/actuator/health/liveness", intstr.FromInt32(8080))
			})
			ctEvent(t, c, p, "app", "Warning", "Unhealthy", `Startup probe failed: Get "http://10.244.0.11:8080/actuator/health/liveness": dial tcp 10.244.0.11:8080: connect: connection refused`, 15)
			ctEvent(t, c, p, "app", "Normal", "Killing", "Container app failed startup probe, will be restarted", 5)
			return []string{"pod/ledger"}
		},
		category: "Probe/Startup/ConnectionRefused",
		culprit:  []string{"startupProbe.failureThreshold", "3 × 10s"},
	},
	{
		name: "container-readiness-named-port-missing",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := c.CreatePod(t, simplePod("catalog", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
				p.Spec.Containers[0].ReadinessProbe = ctHTTPProbe("/ready", intstr.FromString("metrics"))
				p.Status = ctRunningNotReady("app", "busybox:1.36")
			}))
			c.SetLogs(ns, "catalog", "app", false, "serving on :8080\n")
			ctEvent(t, c, p, "app", "Warning", "Unhealthy", `Readiness probe errored: strconv.Atoi: parsing "metrics": invalid syntax`, 170)
			return []string{"pod/catalog"}
		},
		category: "Probe/Readiness/NamedPortMissing",
		culprit:  []string{"readinessProbe.httpGet.port", "metrics", "http=8080"},
	},
	{
		name: "container-readiness-503",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := c.CreatePod(t, simplePod("checkout", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
				p.Spec.Containers[0].ReadinessProbe = ctHTTPProbe("/ready", intstr.FromString("http"))
				p.Status = ctRunningNotReady("app", "busybox:1.36")
			}))
			c.SetLogs(ns, "checkout", "app", false, "serving on :8080\nready check: payments upstream unavailable\n")
			ctEvent(t, c, p, "app", "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 90)
			return []string{"pod/checkout"}
		},
		category: "Probe/Readiness/Unhealthy",
		culprit:  []string{"readinessProbe", "GET /ready"},
	},

	// Init containers.
	{
		name: "container-init-crashloop",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("billing", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "shop/billing-migrate:7"}}
				p.Status = corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.31", StartTime: ptr(minutesAgo(30)),
					Conditions: []corev1.PodCondition{
						{Type: corev1.PodInitialized, Status: corev1.ConditionFalse, Reason: "ContainersNotInitialized", Message: "containers with incomplete status: [migrate]", LastTransitionTime: minutesAgo(30)},
						{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [app]", LastTransitionTime: minutesAgo(30)},
						{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(30)},
					},
					InitContainerStatuses: []corev1.ContainerStatus{{Name: "migrate", Image: "shop/billing-migrate:7", RestartCount: 5,
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 2m40s restarting failed container=migrate"}},
						LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
							StartedAt: minutesAgo(2), FinishedAt: minutesAgo(2)}}}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "busybox:1.36",
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}},
				}
			}))
			c.SetLogs(ns, "billing", "migrate", true, "applying migration 0042_invoices\nError: dial tcp 10.96.0.15:5432: connect: connection refused\n")
			c.SetLogs(ns, "billing", "migrate", false, "")
			return []string{"pod/billing"}
		},
		category: "InitContainer/CrashLoop/Exit1/ConnectionRefused",
		culprit:  []string{"init container migrate", "10.96.0.15:5432", "Init:CrashLoopBackOff"},
	},

	// The kubelet refuses to create the container.
	{
		name: "container-config-missing-configmap-key",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.Create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config", Namespace: ns}, Data: map[string]string{"log_level": "info", "PORT": "8080"}})
			msg := fmt.Sprintf("couldn't find key LOG_LEVEL in ConfigMap %s/app-config", ns)
			p := c.CreatePod(t, simplePod("reports", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "LOG_LEVEL", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}, Key: "LOG_LEVEL"}}}}
				p.Status = ctWaiting("app", "busybox:1.36", "CreateContainerConfigError", msg)
			}))
			ctEvent(t, c, p, "app", "Warning", "Failed", "Error: "+msg, 14)
			return []string{"pod/reports"}
		},
		category: "CreateContainerConfigError/MissingConfigMapKey",
		culprit:  []string{"configmap app-config key LOG_LEVEL", "env LOG_LEVEL", "log_level"},
	},
	{
		name: "container-config-missing-configmap",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			msg := `configmap "feature-flags" not found`
			p := c.CreatePod(t, simplePod("flags", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "feature-flags"}}}}
				p.Status = ctWaiting("app", "busybox:1.36", "CreateContainerConfigError", msg)
			}))
			ctEvent(t, c, p, "app", "Warning", "Failed", "Error: "+msg, 21)
			return []string{"pod/flags"}
		},
		category: "CreateContainerConfigError/MissingConfigMap",
		culprit:  []string{"configmap feature-flags (missing)", "envFrom"},
	},
	{
		name: "container-config-run-as-non-root",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := c.CreatePod(t, simplePod("hardened", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Image = "nginx:1.27"
				p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr(true)}
			}))
			// The kubelet's message names the pod by name_namespace(uid).
			msg := fmt.Sprintf(`container has runAsNonRoot and image will run as root (pod: "hardened_%s(%s)", container: app)`, ns, p.UID)
			p.Status = ctWaiting("app", "nginx:1.27", "CreateContainerConfigError", msg)
			p = c.SetStatus(t, p)
			ctEvent(t, c, p, "app", "Warning", "Failed", "Error: "+msg, 12)
			return []string{"pod/hardened"}
		},
		category: "CreateContainerConfigError/RunAsNonRoot",
		culprit:  []string{"runAsNonRoot", "nginx:1.27"},
	},
	{
		name: "container-config-missing-secret",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			msg := `secret "db-creds" not found`
			p := c.CreatePod(t, simplePod("accounts", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "db-creds"}, Key: "password"}}}}
				p.Status = ctWaiting("app", "busybox:1.36", "CreateContainerConfigError", msg)
			}))
			ctEvent(t, c, p, "app", "Warning", "Failed", "Error: "+msg, 9)
			return []string{"pod/accounts"}
		},
		category: "CreateContainerConfigError/MissingSecret",
		culprit:  []string{"secret db-creds (missing)", "env DB_PASSWORD"},
	},
	{
		name: "container-config-missing-secret-key",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			// The Secret exists with other keys; kubectl-triage must not read it.
			c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-creds", Namespace: ns}, StringData: map[string]string{"username": "app", "pass": "hunter2-planted-secret"}})
			msg := fmt.Sprintf("couldn't find key password in Secret %s/db-creds", ns)
			p := c.CreatePod(t, simplePod("ledger-api", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "db-creds"}, Key: "password"}}}}
				p.Status = ctWaiting("app", "busybox:1.36", "CreateContainerConfigError", msg)
			}))
			ctEvent(t, c, p, "app", "Warning", "Failed", "Error: "+msg, 9)
			return []string{"pod/ledger-api"}
		},
		category: "CreateContainerConfigError/MissingSecretKey",
		culprit:  []string{"secret db-creds key password", "env DB_PASSWORD"},
	},
	{
		name: "container-run-executable-not-found",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			msg := `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "gunicorn": executable file not found in $PATH: unknown`
			p := c.CreatePod(t, simplePod("pyapi", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Command = []string{"gunicorn", "app:app"}
				st := crashStatus("app", 128, "StartError", 4)
				st.ContainerStatuses[0].LastTerminationState.Terminated.Message = msg
				p.Status = st
			}))
			ctEvent(t, c, p, "app", "Warning", "Failed", "Error: "+msg, 5)
			return []string{"pod/pyapi"}
		},
		category: "RunContainerError/ExecutableNotFound",
		culprit:  []string{`command "gunicorn app:app"`},
	},

	// Image pulls.
	{
		name: "container-imagepull-auth-missing-pull-secret",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "ghcr.io/acme/private-api:2.0.1"
			p := c.CreatePod(t, simplePod("private", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Image = image
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "ghcr-creds"}}
				p.Status = ctPullStatus(image, "ImagePullBackOff", `Back-off pulling image "`+image+`"`)
			}))
			ctEvent(t, c, p, "app", "Warning", "Failed", `Failed to pull image "`+image+`": failed to pull and unpack image "`+image+`": failed to resolve reference "`+image+
				`": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Aacme%2Fprivate-api%3Apull&service=ghcr.io: 401 Unauthorized`, 4)
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedToRetrieveImagePullSecret", Count: 11,
				Message: "Unable to retrieve some image pull secrets (ghcr-creds); attempting to pull the image may not succeed."})
			return []string{"pod/private"}
		},
		category: "ImagePull/Auth/MissingPullSecret",
		culprit:  []string{"ghcr-creds", "ghcr.io/acme/private-api:2.0.1"},
	},
	{
		name: "container-imagepull-registry-unreachable",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.corp.example:5000/shop/api:1.4.2"
			p := c.CreatePod(t, simplePod("internal", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Image = image
				p.Status = ctPullStatus(image, "ErrImagePull", `failed to pull and unpack image "`+image+`": failed to resolve reference "`+image+
					`": failed to do request: Head "https://registry.corp.example:5000/v2/shop/api/manifests/1.4.2": dial tcp: lookup registry.corp.example on 10.96.0.10:53: no such host`)
			}))
			ctEvent(t, c, p, "app", "Warning", "Failed", `Failed to pull image "`+image+`": failed to pull and unpack image "`+image+`": failed to resolve reference "`+image+
				`": failed to do request: Head "https://registry.corp.example:5000/v2/shop/api/manifests/1.4.2": dial tcp: lookup registry.corp.example on 10.96.0.10:53: no such host`, 3)
			return []string{"pod/internal"}
		},
		category: "ImagePull/Unreachable",
		culprit:  []string{"registry.corp.example:5000/shop/api:1.4.2"},
	},
	{
		name: "container-imagepull-invalid-name",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "Shop/API:latest"
			msg := `Failed to apply default image tag "` + image + `": couldn't parse image name "` + image + `": invalid reference format: repository name (library/Shop/API) must be lowercase`
			p := c.CreatePod(t, simplePod("typo", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Image = image
				p.Status = ctPullStatus(image, "InvalidImageName", msg)
			}))
			ctEvent(t, c, p, "app", "Warning", "InspectFailed", msg, 8)
			return []string{"pod/typo"}
		},
		category: "ImagePull/InvalidName",
		culprit:  []string{"Shop/API:latest"},
	},

	// Evictions and deletions.
	{
		name: "container-evicted-ephemeral-storage-limit",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			msg := `Container app exceeded its local ephemeral storage limit "2Gi". `
			p := c.CreatePod(t, simplePod("scratch", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("2Gi")}
				p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: msg, HostIP: "127.0.0.1", StartTime: ptr(minutesAgo(90)),
					Conditions: []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "TerminationByKubelet", Message: msg, LastTransitionTime: minutesAgo(12)}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "busybox:1.36",
						State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: minutesAgo(90), FinishedAt: minutesAgo(12)}}}}}
			}))
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "Evicted", Message: msg, First: time.Now().Add(-12 * time.Minute)})
			return []string{"pod/scratch"}
		},
		category: "Evicted/EphemeralStorageLimit",
		culprit:  []string{"container app", "ephemeral-storage (2Gi)"},
	},
	{
		name: "container-stuck-terminating-finalizer",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("leased", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Finalizers = []string{"example.com/release-lease"}
				p.Status = corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", StartTime: ptr(minutesAgo(60)),
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "busybox:1.36",
						State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: minutesAgo(60), FinishedAt: minutesAgo(1)}}}}}
			}))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Client.CoreV1().Pods(ns).Delete(ctx, "leased", metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
				t.Fatalf("delete pod: %v", err)
			}
			return []string{"pod/leased"}
		},
		category: "Terminating/Finalizer",
		culprit:  []string{"example.com/release-lease"},
	},
	{
		name: "container-stuck-terminating-node-gone",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("orphan", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.NodeName = "worker-gone-7"
				p.Status = corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "10.0.3.7", StartTime: ptr(minutesAgo(300)),
					Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "NodeNotReady", LastTransitionTime: minutesAgo(60)}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "busybox:1.36", Ready: false,
						State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(300)}}}}}
			}))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// A graceful deletion waits for the kubelet of worker-gone-7,
			// which no longer exists: once the grace period is over the pod
			// is stuck.
			if err := c.Client.CoreV1().Pods(ns).Delete(ctx, "orphan", metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(1))}); err != nil {
				t.Fatalf("delete pod: %v", err)
			}
			time.Sleep(2 * time.Second)
			return []string{"pod/orphan"}
		},
		category: "Terminating/NodeUnavailable",
		culprit:  []string{"node worker-gone-7 (gone)"},
	},

	// A crash whose cause is a ConfigMap the pod imports.
	{
		name: "container-crash-configmap-missing-key",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.Create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "inventory-env", Namespace: ns},
				Data: map[string]string{"DATABASE_HOST": "db.shop.svc", "PORT": "8080"}})
			tmpl := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "inventory"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "inventory", Image: "shop/inventory:4.2.0",
					EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "inventory-env"}}}}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "inventory", Template: tmpl, PodStatus: crashStatus("inventory", 1, "Error", 5)})
			for _, p := range pods {
				c.SetLogs(ns, p.Name, "inventory", true, "inventory 4.2.0 starting\nFATAL config: required env DATABASE_URL is empty\n")
			}
			return []string{"deploy/inventory"}
		},
		category: "ConfigMap/MissingKey",
		culprit:  []string{"configmap inventory-env key DATABASE_URL", "envFrom"},
	},
}
