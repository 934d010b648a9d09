package investigate

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Builders for container scenarios; they extend pod()/crashing() from
// investigate_test.go.

func TestContainerRules(t *testing.T) {
	const liveKill = "Container app failed liveness probe, will be restarted"
	refused8080 := `Liveness probe failed: Get "http://10.244.0.11:8080/healthz": dial tcp 10.244.0.11:8080: connect: connection refused`
	tests := []struct {
		name         string
		bundle       *bundle.Bundle
		wantCategory string
		wantCulprit  []string
		wantTitle    []string
		minConf      float64
		notCurrent   bool
	}{
		// Crash loops classified by their log line (logs.go table).
		{
			name:         "exit 127 exec no such file",
			bundle:       podBundle(pod("api", crashing(127, "Error")), withLogs(true, "exec /app/server: no such file or directory\n")),
			wantCategory: "CrashLoop/Exit127/CommandNotFound",
			wantTitle:    []string{"command /app/server", "does not exist in the image"},
			minConf:      0.9,
		},
		{
			name:         "exit 127 shell not found",
			bundle:       podBundle(pod("api", crashing(127, "Error")), withLogs(true, "/bin/sh: 1: ./start.sh: not found\n")),
			wantCategory: "CrashLoop/Exit127/CommandNotFound",
			wantTitle:    []string{"./start.sh"},
		},
		{
			name:         "exec format error",
			bundle:       podBundle(pod("api", crashing(1, "Error")), withLogs(true, "exec /usr/local/bin/api: exec format error\n")),
			wantCategory: "CrashLoop/Exit1/ExecFormat",
			wantTitle:    []string{"architecture", "/usr/local/bin/api"},
		},
		{
			name:         "exit 139 segfault line",
			bundle:       podBundle(pod("api", crashing(139, "Error")), withLogs(true, "starting\nSegmentation fault (core dumped)\n")),
			wantCategory: "CrashLoop/Exit139/Segfault",
			wantTitle:    []string{"segmentation fault"},
		},
		{
			name:         "exit 139 without a log line",
			bundle:       podBundle(pod("api", crashing(139, "Error")), withLogs(true, "starting\n")),
			wantCategory: "CrashLoop/Exit139",
			wantTitle:    []string{"SIGSEGV"},
		},
		{
			name:         "exit 126 permission denied",
			bundle:       podBundle(pod("api", crashing(126, "Error")), withLogs(true, "/bin/sh: /app/run.sh: Permission denied\n")),
			wantCategory: "CrashLoop/Exit126/PermissionDenied",
			wantTitle:    []string{"/app/run.sh"},
		},
		{
			// The runtime records an OOM kill as Error when it handles the
			// exit first (seen on the real node): at a memory limit with no
			// other sender, the OOM killer is the likely one.
			name:         "exit 137 without OOMKilled and without probes, at a memory limit",
			bundle:       podBundle(pod("api", crashing(137, "Error"))),
			wantCategory: "OOMKilled/Unrecorded",
			wantTitle:    []string{"SIGKILL", "memory limit 64Mi", "most likely the kernel OOM killer"},
		},
		{
			name: "exit 137 without OOMKilled and without a memory limit",
			bundle: podBundle(pod("api", crashing(137, "Error"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Limits = nil
			})),
			wantCategory: "CrashLoop/Exit137",
			wantTitle:    []string{"SIGKILL", "no memory limit"},
		},
		{
			name: "exit 137 after the kubelet's Killing",
			bundle: podBundle(pod("api", crashing(137, "Error")), withEvents(corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "api.killing", Namespace: "shop"},
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "api", Namespace: "shop", UID: "uid-api", FieldPath: "spec.containers{app}"},
				Type:           "Normal", Reason: "Killing", Message: "Stopping container app", Count: 1,
				FirstTimestamp: ts(-2 * time.Minute), LastTimestamp: ts(-2 * time.Minute)})),
			wantCategory: "CrashLoop/Exit137",
			wantTitle:    []string{"not an OOM kill", "Killing: Stopping container app"},
		},
		{
			name:         "exit 143 sigterm",
			bundle:       podBundle(pod("api", crashing(143, "Error"))),
			wantCategory: "CrashLoop/Exit143",
			wantTitle:    []string{"SIGTERM"},
		},
		// Init containers and one-shot failures.
		{
			name: "init container crash loop names it and its line",
			bundle: podBundle(pod("api", func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "shop/migrate:1"}}
				p.Status.Phase = corev1.PodPending
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "migrate", RestartCount: 4,
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: ts(-time.Minute)}}}}
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
			}), func(b *bundle.Bundle) {
				b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: "api", Container: "migrate", Init: true, Previous: true,
					Text: "Error: dial tcp 10.96.0.15:5432: connect: connection refused\n"})
			}),
			wantCategory: "InitContainer/CrashLoop/Exit1/ConnectionRefused",
			wantCulprit:  []string{"init container migrate", "connection refused"},
			wantTitle:    []string{"init container migrate", "Init:CrashLoopBackOff", "10.96.0.15:5432"},
		},
		{
			name: "init container failed once under restartPolicy Never",
			bundle: podBundle(pod("job-x", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				p.Spec.InitContainers = []corev1.Container{{Name: "fetch", Image: "curl"}}
				p.Status.Phase = corev1.PodFailed
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "fetch",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error", FinishedAt: ts(-time.Minute)}}}}
			}), func(b *bundle.Bundle) {
				b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: "job-x", Container: "fetch", Init: true, Text: "curl: (6) Could not resolve host: config.internal\n"})
			}),
			wantCategory: "InitContainer/ContainerFailed/Exit2/DNS",
			wantTitle:    []string{"init container fetch failed", "Init:Error"},
		},
		{
			name: "app container failed once under restartPolicy Never",
			bundle: podBundle(pod("task", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				p.Status.Phase = corev1.PodFailed
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: ts(-time.Minute)}}}}
			}), withLogs(false, "FATAL: OUTPUT_BUCKET is not set\n")),
			wantCategory: "ContainerFailed/Exit1/MissingEnv",
			wantTitle:    []string{"failed with exit code 1", "OUTPUT_BUCKET"},
		},
		// Probes: liveness (probe output table, port comparison).
		{
			name: "liveness port mismatch beats the crash loop",
			bundle: podBundle(pod("web", crashing(137, "Error"), withCtrPorts(ctrPort("http", 3000)), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080)))),
				withLogs(true, "listening on :3000\nerror: shutting down on signal\n"),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", refused8080, 9), ctrEvent(pod("web"), "Normal", "Killing", liveKill, 3))),
			wantCategory: "Probe/Liveness/PortMismatch",
			wantCulprit:  []string{"livenessProbe.httpGet.port", "8080", "3000"},
			wantTitle:    []string{"liveness probe of container app", "3 time(s)"},
			minConf:      0.9,
		},
		{
			name:         "liveness port mismatch without events is probable",
			bundle:       podBundle(pod("web", crashing(137, "Error"), withCtrPorts(ctrPort("http", 3000)), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080))))),
			wantCategory: "Probe/Liveness/PortMismatch",
			wantCulprit:  []string{"8080", "3000"},
			minConf:      0.6,
		},
		{
			name: "liveness 404 names the path",
			bundle: podBundle(pod("web", crashing(143, "Error"), withCtrPorts(ctrPort("http", 8080)), withLiveness(httpGetProbe("/health", intstr.FromString("http")))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 404", 12),
					ctrEvent(pod("web"), "Normal", "Killing", liveKill, 4))),
			wantCategory: "Probe/Liveness/PathNotFound",
			wantCulprit:  []string{"livenessProbe.httpGet.path", "/health"},
			minConf:      0.9,
		},
		{
			name: "liveness 401 needs auth",
			bundle: podBundle(pod("web", crashing(143, "Error"), withLiveness(httpGetProbe("/admin/health", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 401", 12))),
			wantCategory: "Probe/Liveness/AuthRequired",
		},
		{
			name: "liveness 500 app unhealthy with its log line",
			bundle: podBundle(pod("web", crashing(137, "Error"), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080)))),
				withLogs(true, "health: database check failed: dial tcp 10.0.0.9:5432: connect: connection refused\n"),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 12),
					ctrEvent(pod("web"), "Normal", "Killing", liveKill, 4))),
			wantCategory: "Probe/Liveness/Unhealthy",
			wantTitle:    []string{"reports itself unhealthy"},
		},
		{
			name: "liveness 302 other status",
			bundle: podBundle(pod("web", crashing(143, "Error"), withLiveness(httpGetProbe("/", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 400", 3))),
			wantCategory: "Probe/Liveness/HTTPStatus",
		},
		{
			name: "liveness timeout names timeoutSeconds",
			bundle: podBundle(pod("web", crashing(137, "Error"), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, 7),
					ctrEvent(pod("web"), "Normal", "Killing", liveKill, 2))),
			wantCategory: "Probe/Liveness/Timeout",
			wantCulprit:  []string{"timeoutSeconds (1s)"},
		},
		{
			name: "liveness connection refused on a declared port: not started yet",
			bundle: podBundle(pod("web", crashing(137, "Error"), withCtrPorts(ctrPort("http", 8080)), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", refused8080, 9), ctrEvent(pod("web"), "Normal", "Killing", liveKill, 3))),
			wantCategory: "Probe/Liveness/ConnectionRefused",
			wantCulprit:  []string{"initialDelaySeconds 0"},
		},
		{
			name: "liveness connection reset",
			bundle: podBundle(pod("web", crashing(137, "Error"), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8443)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8443/healthz": read tcp 10.244.0.1:40000->10.244.0.11:8443: read: connection reset by peer`, 3))),
			wantCategory: "Probe/Liveness/ConnectionReset",
		},
		{
			name: "liveness no route to host",
			bundle: podBundle(pod("web", crashing(137, "Error"), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8080/healthz": dial tcp 10.244.0.11:8080: connect: no route to host`, 3))),
			wantCategory: "Probe/Liveness/Unreachable",
		},
		{
			name: "liveness exec probe command fails",
			bundle: podBundle(pod("web", crashing(137, "Error"), withLiveness(&corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}}})),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory", 6),
					ctrEvent(pod("web"), "Normal", "Killing", liveKill, 2))),
			wantCategory: "Probe/Liveness/CommandFailed",
			wantTitle:    []string{"cat /tmp/healthy"},
		},
		{
			name: "liveness failure output matching nothing",
			bundle: podBundle(pod("web", crashing(137, "Error"), withLiveness(httpGetProbe("/healthz", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", "Liveness probe failed: something odd", 3))),
			wantCategory: "Probe/Liveness/Failed",
		},
		{
			name: "startup probe too short",
			bundle: podBundle(pod("jvm", crashing(143, "Error"), withCtrPorts(ctrPort("http", 8080)), withStartup(httpGetProbe("/ready", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("jvm"), "Warning", "Unhealthy", `Startup probe failed: Get "http://10.244.0.11:8080/ready": dial tcp 10.244.0.11:8080: connect: connection refused`, 30),
					ctrEvent(pod("jvm"), "Normal", "Killing", "Container app failed startup probe, will be restarted", 3))),
			wantCategory: "Probe/Startup/ConnectionRefused",
			wantCulprit:  []string{"startupProbe.failureThreshold"},
			wantTitle:    []string{"startup probe"},
		},
		{
			name: "tcp liveness on an undeclared port",
			bundle: podBundle(pod("db", crashing(137, "Error"), withCtrPorts(ctrPort("pg", 5432)), withLiveness(&corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(5433)}}})),
				withEvents(ctrEvent(pod("db"), "Warning", "Unhealthy", "Liveness probe failed: dial tcp 10.244.0.11:5433: connect: connection refused", 9), ctrEvent(pod("db"), "Normal", "Killing", liveKill, 3))),
			wantCategory: "Probe/Liveness/PortMismatch",
			wantCulprit:  []string{"livenessProbe.tcpSocket.port", "5433", "pg=5432"},
		},
		// Readiness.
		{
			name: "grpc readiness NOT_SERVING",
			bundle: podBundle(pod("rpc", runningNotReady, withCtrPorts(ctrPort("grpc", 9090)), withReadiness(&corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090}}})),
				withEvents(ctrEvent(pod("rpc"), "Warning", "Unhealthy", `Readiness probe failed: service unhealthy (responded with "NOT_SERVING")`, 12))),
			wantCategory: "Probe/Readiness/Unhealthy",
			wantTitle:    []string{"NOT_SERVING", "gRPC health check on port 9090"},
		},
		{
			name: "readiness named port missing",
			bundle: podBundle(pod("web", runningNotReady, withCtrPorts(ctrPort("http", 8080)), withReadiness(httpGetProbe("/ready", intstr.FromString("metrics")))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", `Readiness probe errored: strconv.Atoi: parsing "metrics": invalid syntax`, 40))),
			wantCategory: "Probe/Readiness/NamedPortMissing",
			wantCulprit:  []string{"readinessProbe.httpGet.port", "metrics", "http=8080"},
			minConf:      0.95,
		},
		{
			name:         "readiness named port missing without events",
			bundle:       podBundle(pod("web", runningNotReady, withCtrPorts(ctrPort("http", 8080)), withReadiness(httpGetProbe("/ready", intstr.FromString("metrics"))))),
			wantCategory: "Probe/Readiness/NamedPortMissing",
			minConf:      0.85,
		},
		{
			name: "readiness 503 is the app's answer",
			bundle: podBundle(pod("web", runningNotReady, withCtrPorts(ctrPort("http", 8080)), withReadiness(httpGetProbe("/ready", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30))),
			wantCategory: "Probe/Readiness/Unhealthy",
			wantTitle:    []string{"not Ready"},
		},
		{
			name: "readiness probe on an undeclared port",
			bundle: podBundle(pod("web", runningNotReady, withCtrPorts(ctrPort("http", 3000)), withReadiness(httpGetProbe("/ready", intstr.FromInt32(8080)))),
				withEvents(ctrEvent(pod("web"), "Warning", "Unhealthy", `Readiness probe failed: Get "http://10.244.0.11:8080/ready": dial tcp 10.244.0.11:8080: connect: connection refused`, 30))),
			wantCategory: "Probe/Readiness/PortMismatch",
			wantCulprit:  []string{"8080", "3000"},
		},
		// CreateContainerConfigError (configErrors table and verification).
		{
			name: "configmap key missing, verified with the collected ConfigMap and a near key",
			bundle: podBundle(configErrorPod("couldn't find key LOG_LEVEL in ConfigMap shop/app-config", envFromCMKey("app-config", "LOG_LEVEL", false)),
				withCMs(cmWith("app-config", map[string]string{"log_level": "info", "PORT": "8080"}))),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
			wantCulprit:  []string{"configmap app-config key LOG_LEVEL", "env LOG_LEVEL", "log_level"},
			minConf:      0.95,
		},
		{
			name: "configmap key in binaryData",
			bundle: podBundle(configErrorPod("couldn't find key cert in ConfigMap shop/app-config", envFromCMKey("app-config", "cert", false)),
				func(b *bundle.Bundle) {
					b.ConfigMaps = append(b.ConfigMaps, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config", Namespace: "shop"}, BinaryData: map[string][]byte{"cert": []byte("x")}})
				}),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
			wantCulprit:  []string{"binaryData"},
		},
		{
			name: "configmap key present now: the kubelet will retry",
			bundle: podBundle(configErrorPod("couldn't find key LOG_LEVEL in ConfigMap shop/app-config", envFromCMKey("app-config", "LOG_LEVEL", false)),
				withCMs(cmWith("app-config", map[string]string{"LOG_LEVEL": "info"}))),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
		},
		{
			name:         "configmap key, ConfigMap not collected",
			bundle:       podBundle(configErrorPod("couldn't find key LOG_LEVEL in ConfigMap shop/app-config", envFromCMKey("app-config", "LOG_LEVEL", false))),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
			minConf:      0.9,
		},
		{
			name: "configmap missing, verified 404",
			bundle: podBundle(configErrorPod(`configmap "app-config" not found`, func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}
			}), ctrMissing("ConfigMap", "app-config")),
			wantCategory: "CreateContainerConfigError/MissingConfigMap",
			wantCulprit:  []string{"configmap app-config (missing)", "envFrom"},
			minConf:      0.95,
		},
		{
			name:         "configmap missing but exists now",
			bundle:       podBundle(configErrorPod(`configmap "app-config" not found`), withCMs(cmWith("app-config", nil))),
			wantCategory: "CreateContainerConfigError/MissingConfigMap",
		},
		{
			name: "secret key missing: never read, the kubelet says so",
			bundle: podBundle(configErrorPod("couldn't find key password in Secret shop/db-creds", func(p *corev1.Pod) {
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "db-creds"}, Key: "password"}}}}
			})),
			wantCategory: "CreateContainerConfigError/MissingSecretKey",
			wantCulprit:  []string{"secret db-creds key password", "env DB_PASSWORD"},
			minConf:      0.9,
		},
		{
			name: "secret missing via a volume",
			bundle: podBundle(configErrorPod(`secret "tls" not found`, func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "certs", MountPath: "/etc/tls"}}
			})),
			wantCategory: "CreateContainerConfigError/MissingSecret",
			wantCulprit:  []string{"secret tls (missing)", "volume certs", "/etc/tls"},
		},
		{
			name:         "runAsNonRoot with a root image",
			bundle:       podBundle(configErrorPod(`container has runAsNonRoot and image will run as root (pod: "api_shop(uid-api)", container: app)`)),
			wantCategory: "CreateContainerConfigError/RunAsNonRoot",
			wantCulprit:  []string{"runAsNonRoot"},
		},
		{
			name:         "runAsNonRoot with a named user",
			bundle:       podBundle(configErrorPod(`container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root (pod: "api_shop(uid-api)", container: app)`)),
			wantCategory: "CreateContainerConfigError/NonNumericUser",
			wantTitle:    []string{`"app"`},
		},
		{
			name:         "config error matching no row",
			bundle:       podBundle(configErrorPod("failed to prepare subPath for volumeMount \"data\" of container \"app\"")),
			wantCategory: "CreateContainerConfigError/Other",
		},
		// Runtime errors (runtimeFailures table).
		{
			name:         "executable not in PATH",
			bundle:       podBundle(pod("api", runtimeWaiting("RunContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "gunicorn": executable file not found in $PATH: unknown`))),
			wantCategory: "RunContainerError/ExecutableNotFound",
			wantTitle:    []string{`"gunicorn"`},
			minConf:      0.95,
		},
		{
			name: "start error in the last termination",
			bundle: podBundle(pod("api", crashing(128, "StartError"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Command = []string{"/app/start.sh"}
				p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app/start.sh": permission denied: unknown`
			})),
			wantCategory: "RunContainerError/ExecPermission",
			wantCulprit:  []string{`command "/app/start.sh"`},
		},
		{
			name: "exec format error names the node architecture",
			bundle: podBundle(pod("api", runtimeWaiting("RunContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/server": exec format error: unknown`)),
				func(b *bundle.Bundle) {
					b.Nodes[0].Status.NodeInfo = corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "arm64"}
				}),
			wantCategory: "RunContainerError/ExecFormat",
			wantTitle:    []string{"linux/arm64"},
		},
		{
			name: "subPath file mounted onto a directory",
			bundle: podBundle(pod("api", runtimeWaiting("RunContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error mounting "/var/lib/kubelet/pods/uid/volume-subpaths/config/app/0" to rootfs at "/etc/app": mount /var/lib/kubelet/pods/uid/volume-subpaths/config/app/0:/etc/app (via /proc/self/fd/6), flags: 0x5001: not a directory: unknown: Are you trying to mount a directory onto a file (or vice-versa)?`),
				func(p *corev1.Pod) {
					p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app", SubPath: "app.yaml"}}
				})),
			wantCategory: "RunContainerError/MountTypeMismatch",
			wantCulprit:  []string{"volumeMount config", `subPath "app.yaml"`},
		},
		{
			name:         "mount failure of another kind",
			bundle:       podBundle(pod("api", runtimeWaiting("RunContainerError", `error mounting "/var/lib/kubelet/x" to rootfs at "/data": permission denied`))),
			wantCategory: "RunContainerError/MountFailed",
		},
		{
			name:         "no command specified",
			bundle:       podBundle(pod("api", runtimeWaiting("CreateContainerError", `failed to generate container "abc" spec: failed to generate spec: no command specified`))),
			wantCategory: "CreateContainerError/NoCommand",
		},
		{
			name:         "container name reserved",
			bundle:       podBundle(pod("api", runtimeWaiting("CreateContainerError", `failed to reserve container name "app_api_shop_uid_1": name "app_api_shop_uid_1" is reserved for "4c2a"`))),
			wantCategory: "CreateContainerError/NameConflict",
		},
		{
			name:         "runtime error matching no row",
			bundle:       podBundle(pod("api", runtimeWaiting("CreateContainerError", `context deadline exceeded`))),
			wantCategory: "CreateContainerError/Other",
		},
		// A crash whose missing value comes from a ConfigMap that lacks it.
		{
			name: "crash on a variable the envFrom ConfigMap lacks",
			bundle: podBundle(pod("api", crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-env"}}}}
			}), withLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), withCMs(cmWith("api-env", map[string]string{"DATABASE_HOST": "db", "PORT": "8080"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"configmap api-env key DATABASE_URL", "envFrom"},
			minConf:      0.9,
		},
		{
			name: "crash on an optional configMapKeyRef whose key is missing",
			bundle: podBundle(pod("api", crashing(1, "Error"), envFromCMKey("api-env", "DATABASE_URL", true)),
				withLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), withCMs(cmWith("api-env", map[string]string{"PORT": "8080"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"env DATABASE_URL (configMapKeyRef, optional)"},
		},
		{
			name: "crash on an empty ConfigMap value",
			bundle: podBundle(pod("api", crashing(1, "Error"), envFromCMKey("api-env", "DATABASE_URL", true)),
				withLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), withCMs(cmWith("api-env", map[string]string{"DATABASE_URL": ""}))),
			wantCategory: "ConfigMap/EmptyValue",
		},
		{
			name: "crash on an optional ConfigMap that does not exist",
			bundle: podBundle(pod("api", crashing(1, "Error"), envFromCMKey("api-env", "DATABASE_URL", true)),
				withLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), ctrMissing("ConfigMap", "api-env")),
			wantCategory: "ConfigMap/Missing",
		},
		{
			name: "crash on a file the mounted ConfigMap lacks",
			bundle: podBundle(pod("api", crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-config"}}}}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/api"}}
			}), withLogs(true, "open /etc/api/config.yaml: no such file or directory\n"), withCMs(cmWith("api-config", map[string]string{"config.yml": "a: 1"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"configmap api-config key config.yaml", "volume config mounted at /etc/api", "config.yml"},
		},
		{
			name: "crash on a file projected by items from a missing key",
			bundle: podBundle(pod("api", crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "api-config"}, Items: []corev1.KeyToPath{{Key: "settings", Path: "config.yaml"}}}}}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/api"}}
			}), withLogs(true, "open /etc/api/config.yaml: no such file or directory\n"), withCMs(cmWith("api-config", map[string]string{"other": "x"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"key settings"},
		},
		// Evictions.
		{
			name:         "evicted for its own ephemeral-storage limit",
			bundle:       podBundle(pod("api", evictedWith(`Container app exceeded its local ephemeral storage limit "1Gi". `))),
			wantCategory: "Evicted/EphemeralStorageLimit",
			wantCulprit:  []string{"limits.ephemeral-storage (1Gi)"},
		},
		{
			name:         "evicted for the pod's total ephemeral-storage limit",
			bundle:       podBundle(pod("api", evictedWith("Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. "))),
			wantCategory: "Evicted/EphemeralStorageLimit",
		},
		{
			name:         "evicted for an emptyDir over its size limit",
			bundle:       podBundle(pod("api", evictedWith(`Usage of EmptyDir volume "cache" exceeds the limit "512Mi". `))),
			wantCategory: "Evicted/EmptyDirLimit",
			wantCulprit:  []string{"volume cache", "512Mi"},
		},
		{
			name:         "evicted with an unknown message",
			bundle:       podBundle(pod("api", evictedWith("Preempted for a critical pod."))),
			wantCategory: "Evicted/Other",
		},
		// Stuck terminating.
		{
			name:         "terminating held by a finalizer",
			bundle:       podBundle(pod("api", deletedAgo(time.Hour, "example.com/cleanup"))),
			wantCategory: "Terminating/Finalizer",
			wantCulprit:  []string{"example.com/cleanup"},
			minConf:      0.9,
		},
		{
			name:         "terminating on a node that is gone",
			bundle:       podBundle(pod("api", deletedAgo(time.Hour)), func(b *bundle.Bundle) { b.Nodes = nil }, ctrMissing("Node", "node-1")),
			wantCategory: "Terminating/NodeUnavailable",
			wantCulprit:  []string{"node node-1 (gone)"},
		},
		{
			name: "terminating on a node that could not be read (404)",
			bundle: podBundle(pod("api", deletedAgo(time.Hour)), func(b *bundle.Bundle) {
				b.Nodes = nil
				b.Problems = append(b.Problems, bundle.Problem{What: "node node-1", Error: `nodes "node-1" not found`})
			}),
			wantCategory: "Terminating/NodeUnavailable",
		},
		// Image pull authentication, split by pull secret.
		{
			name: "pull secret named by the pod does not exist",
			bundle: podBundle(pod("api", waiting("ImagePullBackOff", `Back-off pulling image "registry.example.com/shop/api:1.4.2"`), func(p *corev1.Pod) {
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
			}), withEvents(
				event(pod("api"), "Warning", "Failed", `Failed to pull image "registry.example.com/shop/api:1.4.2": failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized`, 3),
				event(pod("api"), "Warning", "FailedToRetrieveImagePullSecret", "Unable to retrieve some image pull secrets (regcred); attempting to pull the image may not succeed.", 5))),
			wantCategory: "ImagePull/Auth/MissingPullSecret",
			wantCulprit:  []string{"imagePullSecrets regcred (Secret not found)"},
			minConf:      0.95,
		},
		{
			name: "no pull secret on the pod or its ServiceAccount",
			bundle: podBundle(pod("api", waiting("ErrImagePull", `failed to pull and unpack image "registry.example.com/shop/api:1.4.2": failed to authorize: 401 Unauthorized`)),
				func(b *bundle.Bundle) {
					b.ServiceAccounts = []*corev1.ServiceAccount{{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "shop"}}}
				}),
			wantCategory: "ImagePull/Auth/NoPullSecret",
			wantCulprit:  []string{"none on serviceaccount default"},
		},
		{
			name: "pull secret from the ServiceAccount is refused",
			bundle: podBundle(pod("api", waiting("ErrImagePull", `failed to pull and unpack image "registry.example.com/shop/api:1.4.2": failed to authorize: 401 Unauthorized`)),
				func(b *bundle.Bundle) {
					b.ServiceAccounts = []*corev1.ServiceAccount{{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "shop"}, ImagePullSecrets: []corev1.LocalObjectReference{{Name: "old-token"}}}}
				}),
			wantCategory: "ImagePull/Auth/WrongCredentials",
			wantCulprit:  []string{"old-token"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Investigate(tt.bundle, Options{IncidentID: "test", Agent: "builtin", Now: now})
			if err := report.Validate(r.Markdown()); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			checkRootCause(t, r, rootCauseWant{tt.wantCategory, tt.wantCulprit, tt.wantTitle, tt.minConf}, "")
			for _, a := range r.Actions {
				for _, cmd := range a.Commands {
					if strings.Contains(cmd, "%!") {
						t.Errorf("malformed command %q", cmd)
					}
				}
			}
		})
	}
}
