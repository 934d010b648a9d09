package pod_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

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
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(127, "Error")), bundletest.WithLogs(true, "exec /app/server: no such file or directory\n")),
			wantCategory: "CrashLoop/Exit127/CommandNotFound",
			wantTitle:    []string{"command /app/server", "does not exist in the image"},
			minConf:      0.9,
		},
		{
			name:         "exit 127 shell not found",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(127, "Error")), bundletest.WithLogs(true, "/bin/sh: 1: ./start.sh: not found\n")),
			wantCategory: "CrashLoop/Exit127/CommandNotFound",
			wantTitle:    []string{"./start.sh"},
		},
		{
			name:         "exec format error",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")), bundletest.WithLogs(true, "exec /usr/local/bin/api: exec format error\n")),
			wantCategory: "CrashLoop/Exit1/ExecFormat",
			wantTitle:    []string{"architecture", "/usr/local/bin/api"},
		},
		{
			name:         "exit 139 segfault line",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(139, "Error")), bundletest.WithLogs(true, "starting\nSegmentation fault (core dumped)\n")),
			wantCategory: "CrashLoop/Exit139/Segfault",
			wantTitle:    []string{"segmentation fault"},
		},
		{
			name:         "exit 139 without a log line",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(139, "Error")), bundletest.WithLogs(true, "starting\n")),
			wantCategory: "CrashLoop/Exit139",
			wantTitle:    []string{"SIGSEGV"},
		},
		{
			name:         "exit 126 permission denied",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(126, "Error")), bundletest.WithLogs(true, "/bin/sh: /app/run.sh: Permission denied\n")),
			wantCategory: "CrashLoop/Exit126/PermissionDenied",
			wantTitle:    []string{"/app/run.sh"},
		},
		{
			// The runtime records an OOM kill as Error when it handles the
			// exit first (seen on the real node): at a memory limit with no
			// other sender, the OOM killer is the likely one.
			name:         "exit 137 without OOMKilled and without probes, at a memory limit",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(137, "Error"))),
			wantCategory: "OOMKilled/Unrecorded",
			wantTitle:    []string{"SIGKILL", "memory limit 64Mi", "most likely the kernel OOM killer"},
		},
		{
			name: "exit 137 without OOMKilled and without a memory limit",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(137, "Error"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Limits = nil
			})),
			wantCategory: "CrashLoop/Exit137",
			wantTitle:    []string{"SIGKILL", "no memory limit"},
		},
		{
			name: "exit 137 after the kubelet's Killing",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(137, "Error")), bundletest.WithEvents(corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "api.killing", Namespace: "shop"},
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "api", Namespace: "shop", UID: "uid-api", FieldPath: "spec.containers{app}"},
				Type:           "Normal", Reason: "Killing", Message: "Stopping container app", Count: 1,
				FirstTimestamp: bundletest.TS(-2 * time.Minute), LastTimestamp: bundletest.TS(-2 * time.Minute)})),
			wantCategory: "CrashLoop/Exit137",
			wantTitle:    []string{"not an OOM kill", "Killing: Stopping container app"},
		},
		{
			name:         "exit 143 sigterm",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(143, "Error"))),
			wantCategory: "CrashLoop/Exit143",
			wantTitle:    []string{"SIGTERM"},
		},
		// Init containers and one-shot failures.
		{
			name: "init container crash loop names it and its line",
			bundle: bundletest.PodBundle(bundletest.Pod("api", func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "shop/migrate:1"}}
				p.Status.Phase = corev1.PodPending
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "migrate", RestartCount: 4,
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: bundletest.TS(-time.Minute)}}}}
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
			bundle: bundletest.PodBundle(bundletest.Pod("job-x", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				p.Spec.InitContainers = []corev1.Container{{Name: "fetch", Image: "curl"}}
				p.Status.Phase = corev1.PodFailed
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "fetch",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error", FinishedAt: bundletest.TS(-time.Minute)}}}}
			}), func(b *bundle.Bundle) {
				b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: "job-x", Container: "fetch", Init: true, Text: "curl: (6) Could not resolve host: config.internal\n"})
			}),
			wantCategory: "InitContainer/ContainerFailed/Exit2/DNS",
			wantTitle:    []string{"init container fetch failed", "Init:Error"},
		},
		{
			name: "app container failed once under restartPolicy Never",
			bundle: bundletest.PodBundle(bundletest.Pod("task", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				p.Status.Phase = corev1.PodFailed
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: bundletest.TS(-time.Minute)}}}}
			}), bundletest.WithLogs(false, "FATAL: OUTPUT_BUCKET is not set\n")),
			wantCategory: "ContainerFailed/Exit1/MissingEnv",
			wantTitle:    []string{"failed with exit code 1", "OUTPUT_BUCKET"},
		},
		// Probes: liveness (probe output table, port comparison).
		{
			name: "liveness port mismatch beats the crash loop",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithCtrPorts(bundletest.CtrPort("http", 3000)), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080)))),
				bundletest.WithLogs(true, "listening on :3000\nerror: shutting down on signal\n"),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", refused8080, 9), bundletest.CtrEvent(bundletest.Pod("web"), "Normal", "Killing", liveKill, 3))),
			wantCategory: "Probe/Liveness/PortMismatch",
			wantCulprit:  []string{"livenessProbe.httpGet.port", "8080", "3000"},
			wantTitle:    []string{"liveness probe of container app", "3 time(s)"},
			minConf:      0.9,
		},
		{
			name:         "liveness port mismatch without events is probable",
			bundle:       bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithCtrPorts(bundletest.CtrPort("http", 3000)), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080))))),
			wantCategory: "Probe/Liveness/PortMismatch",
			wantCulprit:  []string{"8080", "3000"},
			minConf:      0.6,
		},
		{
			name: "liveness 404 names the path",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(143, "Error"), bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithLiveness(bundletest.HTTPGetProbe("/health", intstr.FromString("http")))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 404", 12),
					bundletest.CtrEvent(bundletest.Pod("web"), "Normal", "Killing", liveKill, 4))),
			wantCategory: "Probe/Liveness/PathNotFound",
			wantCulprit:  []string{"livenessProbe.httpGet.path", "/health"},
			minConf:      0.9,
		},
		{
			name: "liveness 401 needs auth",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(143, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/admin/health", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 401", 12))),
			wantCategory: "Probe/Liveness/AuthRequired",
		},
		{
			name: "liveness 500 app unhealthy with its log line",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080)))),
				bundletest.WithLogs(true, "health: database check failed: dial tcp 10.0.0.9:5432: connect: connection refused\n"),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 12),
					bundletest.CtrEvent(bundletest.Pod("web"), "Normal", "Killing", liveKill, 4))),
			wantCategory: "Probe/Liveness/Unhealthy",
			wantTitle:    []string{"reports itself unhealthy"},
		},
		{
			name: "liveness 302 other status",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(143, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 400", 3))),
			wantCategory: "Probe/Liveness/HTTPStatus",
		},
		{
			name: "liveness timeout names timeoutSeconds",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, 7),
					bundletest.CtrEvent(bundletest.Pod("web"), "Normal", "Killing", liveKill, 2))),
			wantCategory: "Probe/Liveness/Timeout",
			wantCulprit:  []string{"timeoutSeconds (1s)"},
		},
		{
			name: "liveness connection refused on a declared port: not started yet",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", refused8080, 9), bundletest.CtrEvent(bundletest.Pod("web"), "Normal", "Killing", liveKill, 3))),
			wantCategory: "Probe/Liveness/ConnectionRefused",
			wantCulprit:  []string{"initialDelaySeconds 0"},
		},
		{
			name: "liveness connection reset",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8443)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8443/healthz": read tcp 10.244.0.1:40000->10.244.0.11:8443: read: connection reset by peer`, 3))),
			wantCategory: "Probe/Liveness/ConnectionReset",
		},
		{
			name: "liveness no route to host",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8080/healthz": dial tcp 10.244.0.11:8080: connect: no route to host`, 3))),
			wantCategory: "Probe/Liveness/Unreachable",
		},
		{
			name: "liveness exec probe command fails",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithLiveness(&corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}}})),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory", 6),
					bundletest.CtrEvent(bundletest.Pod("web"), "Normal", "Killing", liveKill, 2))),
			wantCategory: "Probe/Liveness/CommandFailed",
			wantTitle:    []string{"cat /tmp/healthy"},
		},
		{
			name: "liveness failure output matching nothing",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithLiveness(bundletest.HTTPGetProbe("/healthz", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", "Liveness probe failed: something odd", 3))),
			wantCategory: "Probe/Liveness/Failed",
		},
		{
			name: "startup probe too short",
			bundle: bundletest.PodBundle(bundletest.Pod("jvm", bundletest.Crashing(143, "Error"), bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithStartup(bundletest.HTTPGetProbe("/ready", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("jvm"), "Warning", "Unhealthy", `Startup probe failed: Get "http://10.244.0.11:8080/ready": dial tcp 10.244.0.11:8080: connect: connection refused`, 30),
					bundletest.CtrEvent(bundletest.Pod("jvm"), "Normal", "Killing", "Container app failed startup probe, will be restarted", 3))),
			wantCategory: "Probe/Startup/ConnectionRefused",
			wantCulprit:  []string{"startupProbe.failureThreshold"},
			wantTitle:    []string{"startup probe"},
		},
		{
			name: "tcp liveness on an undeclared port",
			bundle: bundletest.PodBundle(bundletest.Pod("db", bundletest.Crashing(137, "Error"), bundletest.WithCtrPorts(bundletest.CtrPort("pg", 5432)), bundletest.WithLiveness(&corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(5433)}}})),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("db"), "Warning", "Unhealthy", "Liveness probe failed: dial tcp 10.244.0.11:5433: connect: connection refused", 9), bundletest.CtrEvent(bundletest.Pod("db"), "Normal", "Killing", liveKill, 3))),
			wantCategory: "Probe/Liveness/PortMismatch",
			wantCulprit:  []string{"livenessProbe.tcpSocket.port", "5433", "pg=5432"},
		},
		// Readiness.
		{
			name: "grpc readiness NOT_SERVING",
			bundle: bundletest.PodBundle(bundletest.Pod("rpc", bundletest.RunningNotReady, bundletest.WithCtrPorts(bundletest.CtrPort("grpc", 9090)), bundletest.WithReadiness(&corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090}}})),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("rpc"), "Warning", "Unhealthy", `Readiness probe failed: service unhealthy (responded with "NOT_SERVING")`, 12))),
			wantCategory: "Probe/Readiness/Unhealthy",
			wantTitle:    []string{"NOT_SERVING", "gRPC health check on port 9090"},
		},
		{
			name: "readiness named port missing",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.RunningNotReady, bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithReadiness(bundletest.HTTPGetProbe("/ready", intstr.FromString("metrics")))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", `Readiness probe errored: strconv.Atoi: parsing "metrics": invalid syntax`, 40))),
			wantCategory: "Probe/Readiness/NamedPortMissing",
			wantCulprit:  []string{"readinessProbe.httpGet.port", "metrics", "http=8080"},
			minConf:      0.95,
		},
		{
			name:         "readiness named port missing without events",
			bundle:       bundletest.PodBundle(bundletest.Pod("web", bundletest.RunningNotReady, bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithReadiness(bundletest.HTTPGetProbe("/ready", intstr.FromString("metrics"))))),
			wantCategory: "Probe/Readiness/NamedPortMissing",
			minConf:      0.85,
		},
		{
			name: "readiness 503 is the app's answer",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.RunningNotReady, bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithReadiness(bundletest.HTTPGetProbe("/ready", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30))),
			wantCategory: "Probe/Readiness/Unhealthy",
			wantTitle:    []string{"not Ready"},
		},
		{
			name: "readiness probe on an undeclared port",
			bundle: bundletest.PodBundle(bundletest.Pod("web", bundletest.RunningNotReady, bundletest.WithCtrPorts(bundletest.CtrPort("http", 3000)), bundletest.WithReadiness(bundletest.HTTPGetProbe("/ready", intstr.FromInt32(8080)))),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("web"), "Warning", "Unhealthy", `Readiness probe failed: Get "http://10.244.0.11:8080/ready": dial tcp 10.244.0.11:8080: connect: connection refused`, 30))),
			wantCategory: "Probe/Readiness/PortMismatch",
			wantCulprit:  []string{"8080", "3000"},
		},
		// CreateContainerConfigError (configErrors table and verification).
		{
			name: "configmap key missing, verified with the collected ConfigMap and a near key",
			bundle: bundletest.PodBundle(bundletest.ConfigErrorPod("couldn't find key LOG_LEVEL in ConfigMap shop/app-config", bundletest.EnvFromCMKey("app-config", "LOG_LEVEL", false)),
				bundletest.WithCMs(bundletest.CMWith("app-config", map[string]string{"log_level": "info", "PORT": "8080"}))),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
			wantCulprit:  []string{"configmap app-config key LOG_LEVEL", "env LOG_LEVEL", "log_level"},
			minConf:      0.95,
		},
		{
			name: "configmap key in binaryData",
			bundle: bundletest.PodBundle(bundletest.ConfigErrorPod("couldn't find key cert in ConfigMap shop/app-config", bundletest.EnvFromCMKey("app-config", "cert", false)),
				func(b *bundle.Bundle) {
					b.ConfigMaps = append(b.ConfigMaps, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config", Namespace: "shop"}, BinaryData: map[string][]byte{"cert": []byte("x")}})
				}),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
			wantCulprit:  []string{"binaryData"},
		},
		{
			name: "configmap key present now: the kubelet will retry",
			bundle: bundletest.PodBundle(bundletest.ConfigErrorPod("couldn't find key LOG_LEVEL in ConfigMap shop/app-config", bundletest.EnvFromCMKey("app-config", "LOG_LEVEL", false)),
				bundletest.WithCMs(bundletest.CMWith("app-config", map[string]string{"LOG_LEVEL": "info"}))),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
		},
		{
			name:         "configmap key, ConfigMap not collected",
			bundle:       bundletest.PodBundle(bundletest.ConfigErrorPod("couldn't find key LOG_LEVEL in ConfigMap shop/app-config", bundletest.EnvFromCMKey("app-config", "LOG_LEVEL", false))),
			wantCategory: "CreateContainerConfigError/MissingConfigMapKey",
			minConf:      0.9,
		},
		{
			name: "configmap missing, verified 404",
			bundle: bundletest.PodBundle(bundletest.ConfigErrorPod(`configmap "app-config" not found`, func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}
			}), bundletest.CtrMissing("ConfigMap", "app-config")),
			wantCategory: "CreateContainerConfigError/MissingConfigMap",
			wantCulprit:  []string{"configmap app-config (missing)", "envFrom"},
			minConf:      0.95,
		},
		{
			name:         "configmap missing but exists now",
			bundle:       bundletest.PodBundle(bundletest.ConfigErrorPod(`configmap "app-config" not found`), bundletest.WithCMs(bundletest.CMWith("app-config", nil))),
			wantCategory: "CreateContainerConfigError/MissingConfigMap",
		},
		{
			name: "secret key missing: never read, the kubelet says so",
			bundle: bundletest.PodBundle(bundletest.ConfigErrorPod("couldn't find key password in Secret shop/db-creds", func(p *corev1.Pod) {
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "db-creds"}, Key: "password"}}}}
			})),
			wantCategory: "CreateContainerConfigError/MissingSecretKey",
			wantCulprit:  []string{"secret db-creds key password", "env DB_PASSWORD"},
			minConf:      0.9,
		},
		{
			name: "secret missing via a volume",
			bundle: bundletest.PodBundle(bundletest.ConfigErrorPod(`secret "tls" not found`, func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "certs", MountPath: "/etc/tls"}}
			})),
			wantCategory: "CreateContainerConfigError/MissingSecret",
			wantCulprit:  []string{"secret tls (missing)", "volume certs", "/etc/tls"},
		},
		{
			name:         "runAsNonRoot with a root image",
			bundle:       bundletest.PodBundle(bundletest.ConfigErrorPod(`container has runAsNonRoot and image will run as root (pod: "api_shop(uid-api)", container: app)`)),
			wantCategory: "CreateContainerConfigError/RunAsNonRoot",
			wantCulprit:  []string{"runAsNonRoot"},
		},
		{
			name:         "runAsNonRoot with a named user",
			bundle:       bundletest.PodBundle(bundletest.ConfigErrorPod(`container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root (pod: "api_shop(uid-api)", container: app)`)),
			wantCategory: "CreateContainerConfigError/NonNumericUser",
			wantTitle:    []string{`"app"`},
		},
		{
			name:         "config error matching no row",
			bundle:       bundletest.PodBundle(bundletest.ConfigErrorPod("failed to prepare subPath for volumeMount \"data\" of container \"app\"")),
			wantCategory: "CreateContainerConfigError/Other",
		},
		// Runtime errors (runtimeFailures table).
		{
			name:         "executable not in PATH",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("RunContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "gunicorn": executable file not found in $PATH: unknown`))),
			wantCategory: "RunContainerError/ExecutableNotFound",
			wantTitle:    []string{`"gunicorn"`},
			minConf:      0.95,
		},
		{
			name: "start error in the last termination",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(128, "StartError"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Command = []string{"/app/start.sh"}
				p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app/start.sh": permission denied: unknown`
			})),
			wantCategory: "RunContainerError/ExecPermission",
			wantCulprit:  []string{`command "/app/start.sh"`},
		},
		{
			name: "exec format error names the node architecture",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("RunContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/server": exec format error: unknown`)),
				func(b *bundle.Bundle) {
					b.Nodes[0].Status.NodeInfo = corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "arm64"}
				}),
			wantCategory: "RunContainerError/ExecFormat",
			wantTitle:    []string{"linux/arm64"},
		},
		{
			name: "subPath file mounted onto a directory",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("RunContainerError", `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error mounting "/var/lib/kubelet/pods/uid/volume-subpaths/config/app/0" to rootfs at "/etc/app": mount /var/lib/kubelet/pods/uid/volume-subpaths/config/app/0:/etc/app (via /proc/self/fd/6), flags: 0x5001: not a directory: unknown: Are you trying to mount a directory onto a file (or vice-versa)?`),
				func(p *corev1.Pod) {
					p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app", SubPath: "app.yaml"}}
				})),
			wantCategory: "RunContainerError/MountTypeMismatch",
			wantCulprit:  []string{"volumeMount config", `subPath "app.yaml"`},
		},
		{
			// The older runc wording (https://github.com/SaraAlert/SaraAlert/issues/331):
			// the rootfs named, quotes escaped, the target the longest
			// mountPath it ends with.
			name: "directory mounted onto a file, older runc wording",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("RunContainerError", `oci runtime error: container_linux.go:247: starting container process caused "process_linux.go:359: container init caused \"rootfs_linux.go:54: mounting \\\"/var/lib/kubelet/pods/uid/volumes/kubernetes.io~configmap/nginx-conf\\\" to rootfs \\\"/var/lib/docker/aufs/mnt/0c1f\\\" at \\\"/var/lib/docker/aufs/mnt/0c1f/etc/nginx/nginx.conf\\\" caused \\\"not a directory\\\"\""`),
				func(p *corev1.Pod) {
					p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/etc"}, {Name: "nginx-conf", MountPath: "/etc/nginx/nginx.conf"}}
					p.Spec.Volumes = []corev1.Volume{{Name: "nginx-conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "nginx-conf"}}}}}
				})),
			wantCategory: "RunContainerError/MountTypeMismatch",
			wantCulprit:  []string{"volumeMount nginx-conf (ConfigMap nginx-conf)", "/etc/nginx/nginx.conf", `"not a directory"`},
		},
		{
			name:         "mount failure of another kind",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("RunContainerError", `error mounting "/var/lib/kubelet/x" to rootfs at "/data": permission denied`))),
			wantCategory: "RunContainerError/MountFailed",
		},
		{
			name:         "no command specified",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("CreateContainerError", `failed to generate container "abc" spec: failed to generate spec: no command specified`))),
			wantCategory: "CreateContainerError/NoCommand",
		},
		{
			name:         "container name reserved",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("CreateContainerError", `failed to reserve container name "app_api_shop_uid_1": name "app_api_shop_uid_1" is reserved for "4c2a"`))),
			wantCategory: "CreateContainerError/NameConflict",
		},
		{
			name:         "runtime error matching no row",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.RuntimeWaiting("CreateContainerError", `context deadline exceeded`))),
			wantCategory: "CreateContainerError/Other",
		},
		// A crash whose missing value comes from a ConfigMap that lacks it.
		{
			name: "crash on a variable the envFrom ConfigMap lacks",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-env"}}}}
			}), bundletest.WithLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), bundletest.WithCMs(bundletest.CMWith("api-env", map[string]string{"DATABASE_HOST": "db", "PORT": "8080"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"configmap api-env key DATABASE_URL", "envFrom"},
			minConf:      0.9,
		},
		{
			name: "crash on an optional configMapKeyRef whose key is missing",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error"), bundletest.EnvFromCMKey("api-env", "DATABASE_URL", true)),
				bundletest.WithLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), bundletest.WithCMs(bundletest.CMWith("api-env", map[string]string{"PORT": "8080"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"env DATABASE_URL (configMapKeyRef, optional)"},
		},
		{
			name: "crash on an empty ConfigMap value",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error"), bundletest.EnvFromCMKey("api-env", "DATABASE_URL", true)),
				bundletest.WithLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), bundletest.WithCMs(bundletest.CMWith("api-env", map[string]string{"DATABASE_URL": ""}))),
			wantCategory: "ConfigMap/EmptyValue",
		},
		{
			name: "crash on an optional ConfigMap that does not exist",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error"), bundletest.EnvFromCMKey("api-env", "DATABASE_URL", true)),
				bundletest.WithLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), bundletest.CtrMissing("ConfigMap", "api-env")),
			wantCategory: "ConfigMap/Missing",
		},
		{
			name: "crash on a file the mounted ConfigMap lacks",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-config"}}}}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/api"}}
			}), bundletest.WithLogs(true, "open /etc/api/config.yaml: no such file or directory\n"), bundletest.WithCMs(bundletest.CMWith("api-config", map[string]string{"config.yml": "a: 1"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"configmap api-config key config.yaml", "volume config mounted at /etc/api", "config.yml"},
		},
		{
			name: "crash on a file projected by items from a missing key",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "api-config"}, Items: []corev1.KeyToPath{{Key: "settings", Path: "config.yaml"}}}}}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/api"}}
			}), bundletest.WithLogs(true, "open /etc/api/config.yaml: no such file or directory\n"), bundletest.WithCMs(bundletest.CMWith("api-config", map[string]string{"other": "x"}))),
			wantCategory: "ConfigMap/MissingKey",
			wantCulprit:  []string{"key settings"},
		},
		// Evictions.
		{
			name:         "evicted for its own ephemeral-storage limit",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.EvictedWith(`Container app exceeded its local ephemeral storage limit "1Gi". `))),
			wantCategory: "Evicted/EphemeralStorageLimit",
			wantCulprit:  []string{"limits.ephemeral-storage (1Gi)"},
		},
		{
			name:         "evicted for the pod's total ephemeral-storage limit",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.EvictedWith("Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. "))),
			wantCategory: "Evicted/EphemeralStorageLimit",
		},
		{
			name:         "evicted for an emptyDir over its size limit",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.EvictedWith(`Usage of EmptyDir volume "cache" exceeds the limit "512Mi". `))),
			wantCategory: "Evicted/EmptyDirLimit",
			wantCulprit:  []string{"volume cache", "512Mi"},
		},
		{
			name:         "evicted with an unknown message",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.EvictedWith("Preempted for a critical pod."))),
			wantCategory: "Evicted/Other",
		},
		// Stuck terminating.
		{
			name:         "terminating held by a finalizer",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.DeletedAgo(time.Hour, "example.com/cleanup"))),
			wantCategory: "Terminating/Finalizer",
			wantCulprit:  []string{"example.com/cleanup"},
			minConf:      0.9,
		},
		{
			name:         "terminating on a node that is gone",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.DeletedAgo(time.Hour)), func(b *bundle.Bundle) { b.Nodes = nil }, bundletest.CtrMissing("Node", "node-1")),
			wantCategory: "Terminating/NodeUnavailable",
			wantCulprit:  []string{"node node-1 (gone)"},
		},
		{
			name: "terminating on a node that could not be read (404)",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.DeletedAgo(time.Hour)), func(b *bundle.Bundle) {
				b.Nodes = nil
				b.Problems = append(b.Problems, bundle.Problem{What: "node node-1", Error: `nodes "node-1" not found`})
			}),
			wantCategory: "Terminating/NodeUnavailable",
		},
		// Image pull authentication, split by pull secret.
		{
			name: "pull secret named by the pod does not exist",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ImagePullBackOff", `Back-off pulling image "registry.example.com/shop/api:1.4.2"`), func(p *corev1.Pod) {
				p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
			}), bundletest.WithEvents(
				bundletest.Event(bundletest.Pod("api"), "Warning", "Failed", `Failed to pull image "registry.example.com/shop/api:1.4.2": failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized`, 3),
				bundletest.Event(bundletest.Pod("api"), "Warning", "FailedToRetrieveImagePullSecret", "Unable to retrieve some image pull secrets (regcred); attempting to pull the image may not succeed.", 5))),
			wantCategory: "ImagePull/Auth/MissingPullSecret",
			wantCulprit:  []string{"imagePullSecrets regcred (Secret not found)"},
			minConf:      0.95,
		},
		{
			name: "no pull secret on the pod or its ServiceAccount",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ErrImagePull", `failed to pull and unpack image "registry.example.com/shop/api:1.4.2": failed to authorize: 401 Unauthorized`)),
				func(b *bundle.Bundle) {
					b.ServiceAccounts = []*corev1.ServiceAccount{{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "shop"}}}
				}),
			wantCategory: "ImagePull/Auth/NoPullSecret",
			wantCulprit:  []string{"none on serviceaccount default"},
		},
		{
			name: "pull secret from the ServiceAccount is refused",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ErrImagePull", `failed to pull and unpack image "registry.example.com/shop/api:1.4.2": failed to authorize: 401 Unauthorized`)),
				func(b *bundle.Bundle) {
					b.ServiceAccounts = []*corev1.ServiceAccount{{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "shop"}, ImagePullSecrets: []corev1.LocalObjectReference{{Name: "old-token"}}}}
				}),
			wantCategory: "ImagePull/Auth/WrongCredentials",
			wantCulprit:  []string{"old-token"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := investigate.Investigate(tt.bundle, investigate.Options{IncidentID: "test", Agent: "builtin", Now: bundletest.Now})
			if err := report.Validate(r.Markdown()); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			investigatetest.CheckRootCause(t, r, investigatetest.RootCause{Category: tt.wantCategory, Culprit: tt.wantCulprit, Title: tt.wantTitle, MinConf: tt.minConf}, "")
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
