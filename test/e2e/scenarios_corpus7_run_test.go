package e2e

import (
	"fmt"
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

// A seventh batch, area "run": what happens once a container runs (probe
// failures the app's own log explains, OOM kills against the memory limit,
// init containers that never finish, sidecars that keep a Job alive,
// runtime start failures, evictions, a running container whose log repeats
// an error), with two healthy controls that look alarming. Each is rebuilt
// from public material (cited in source) and was run once against a fixed
// build: the comment above each says whether that first round hit.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_CORPUS7") != "" {
		register(c7run...)
	}
}

// c7runLines renders n records every step, the last a few seconds ago:
// each line of record is formatted with the record's time (in layout) and
// its index, in that order (use %[1]s for the time, %[2]d for the index).
func c7runLines(n int, step time.Duration, layout string, record ...string) string {
	var b strings.Builder
	start := time.Now().Add(-time.Duration(n) * step).UTC()
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i+1) * step)
		for _, r := range record {
			fmt.Fprintf(&b, r+"\n", at.Format(layout), i)
		}
	}
	return b.String()
}

// c7runStamp formats a time d ago with layout (UTC).
func c7runStamp(d time.Duration, layout string) string {
	return time.Now().Add(-d).UTC().Format(layout)
}

// c7runEvent records an event about pod p's container (or the pod when
// container is empty), first seen first ago.
func c7runEvent(t *testing.T, c *testcluster.Cluster, p *corev1.Pod, container, typ, reason, msg string, count int32, first time.Duration) {
	t.Helper()
	fp := ""
	if container != "" {
		fp = "spec.containers{" + container + "}"
	}
	c.Event(t, testcluster.EventSpec{Object: p, Type: typ, Reason: reason, Message: msg, Count: count,
		First: time.Now().Add(-first), FieldPath: fp})
}

func c7runCond(typ corev1.PodConditionType, status corev1.ConditionStatus, reason, msg string, ago time.Duration) corev1.PodCondition {
	return corev1.PodCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: wlAgo(ago)}
}

var c7run = []scenario{
	{
		// First round: MISS. Today: Probe/Liveness/ConnectionRefused (0.90)
		// "liveness probe of container agent finds nothing listening on port
		// 4050"; the previous instance's "starting" record with
		// HttpListenAddr "localhost:4050" is not used. Missing: when a probe
		// to the pod IP is refused, look in the container's log and args
		// for the address it listens on; a loopback bind (localhost or
		// 127.0.0.1 with the probed port) is the cause, not an absent
		// listener.
		//
		// The synthetic monitoring agent listens on localhost:4050 unless
		// told otherwise; the kubelet probes the pod IP, so both probes are
		// refused and the liveness probe restarts the agent until it
		// crash-loops. The agent's own start-up line prints the address.
		name:   "real-sm-agent-liveness-refused-listens-on-localhost",
		source: "https://github.com/grafana/synthetic-monitoring-agent/issues/393 (the default binding address of the agent is localhost:4050, causing the readiness and liveness requests sent by kubelet to fail and create a CrashLoopBackoff; fixed by --listen-address=\"0.0.0.0:4050\"; the container's sh -c args verbatim); the default HttpListenAddr \"localhost:4050\", the \"starting\" record with the config, \"shutting down\" and \"E: Got signal ...\" from cmd/synthetic-monitoring-agent/main.go; probes as in examples/kubernetes/deployment.yaml",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "grafana/synthetic-monitoring-agent:v0.14.3"
			c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sm-agent-1", Namespace: ns},
				StringData: map[string]string{"api-token": "glc_eyJvIjoiNzQ2MjE1IiwibiI6InNtLWFnZW50LTEifQ==", "api-server": "synthetic-monitoring-grpc-eu-west.grafana.net:443"}})
			probe := func(path string) *corev1.Probe {
				return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(4050), Scheme: corev1.URISchemeHTTP}},
					PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1}
			}
			secretEnv := func(name, key string) corev1.EnvVar {
				return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sm-agent-1"}, Key: key}}}
			}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "sm-agent-1"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: image,
					Command: []string{"sh", "-c"},
					Args:    []string{"/usr/local/bin/synthetic-monitoring-agent --api-server-address=${API_SERVER} --api-token=${API_TOKEN} --verbose=true"},
					Env:     []corev1.EnvVar{secretEnv("API_TOKEN", "api-token"), secretEnv("API_SERVER", "api-server")},
					Ports:   []corev1.ContainerPort{{Name: "http-metrics", ContainerPort: 4050, Protocol: corev1.ProtocolTCP}},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("500Mi")}},
					ReadinessProbe: probe("/ready"), LivenessProbe: probe("/")}}}}
			st := crashStatus("agent", 1, "Error", 6)
			st.ContainerStatuses[0].Image = image
			st.ContainerStatuses[0].ImageID = "docker.io/grafana/synthetic-monitoring-agent@sha256:5b1c"
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "sm-agent-1", Labels: map[string]string{"name": "sm-agent-1"}, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			ms := func(d time.Duration) int64 { return time.Now().Add(-d).UnixMilli() }
			prev := c5Lines(
				fmt.Sprintf(`{"level":"info","program":"synthetic-monitoring-agent","version":"v0.14.3","commit":"c0d9b5e","buildstamp":"2023-01-11T14:22:41Z","features":"","config":{"Debug":false,"Verbose":true,"ReportVersion":false,"GrpcApiServerAddr":"synthetic-monitoring-grpc-eu-west.grafana.net:443","GrpcInsecure":false,"ApiToken":"<redacted>","EnableChangeLogLevel":false,"EnableDisconnect":false,"EnablePProf":false,"HttpListenAddr":"localhost:4050","K6URI":"","K6BlacklistedIP":"10.0.0.0/8","SelectedPublisher":"v2"},"time":%d,"message":"starting"}`, ms(125*time.Second)),
				fmt.Sprintf(`{"level":"info","program":"synthetic-monitoring-agent","time":%d,"message":"disabling k6 checks"}`, ms(125*time.Second)),
				fmt.Sprintf(`{"level":"info","program":"synthetic-monitoring-agent","subsystem":"signal handler","signal":"terminated","time":%d,"message":"shutting down"}`, ms(62*time.Second)),
				"E: Got signal terminated",
			)
			c.SetLogs(ns, p.Name, "agent", true, prev)
			c.SetLogs(ns, p.Name, "agent", false, "")
			ip := p.Status.PodIP
			c7runEvent(t, c, p, "agent", corev1.EventTypeWarning, "Unhealthy", fmt.Sprintf(`Readiness probe failed: Get "http://%s:4050/ready": dial tcp %s:4050: connect: connection refused`, ip, ip), 41, 24*time.Minute)
			c7runEvent(t, c, p, "agent", corev1.EventTypeWarning, "Unhealthy", fmt.Sprintf(`Liveness probe failed: Get "http://%s:4050/": dial tcp %s:4050: connect: connection refused`, ip, ip), 18, 24*time.Minute)
			c7runEvent(t, c, p, "agent", corev1.EventTypeNormal, "Killing", "Container agent failed liveness probe, will be restarted", 6, 23*time.Minute)
			c7runEvent(t, c, p, "agent", corev1.EventTypeWarning, "BackOff", fmt.Sprintf("Back-off restarting failed container agent in pod %s_%s(%s)", p.Name, ns, p.UID), 12, 14*time.Minute)
			return []string{"deployment/sm-agent-1"}
		},
		category: "Probe/Liveness",
		culprit:  []string{"localhost:4050"},
	},
	{
		// First round: hit.
		//
		// Node's default heap on the node (4.3GiB) is above the container's
		// 4Gi memory limit: the GC does not run before the cgroup limit is
		// reached, and the kernel kills the API pod every few hours.
		name:   "real-gnomad-api-node-default-heap-above-4gi-limit-oomkilled",
		source: "https://github.com/broadinstitute/gnomad-browser/pull/1410 (gnomad-api-blue-775f4c6d7d-25fwx 1/1 Running 3 (23m ago) 22h; Last State: Terminated, Reason: OOMKilled, Exit Code: 137, Started 05:47:49, Finished 10:15:11; killed for reaching their memory limit (of 4GiB) while v8 heap_size_limit was 4345298944; fix: set a maximum for the JS heap below the container limit)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "us-docker.pkg.dev/exac-gnomad/gnomad/gnomad-api:2024-02-01-f3a9c21"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "gnomad-api", "deployment": "blue"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image,
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8000, Protocol: corev1.ProtocolTCP}},
					Env:   []corev1.EnvVar{{Name: "NODE_ENV", Value: "production"}, {Name: "PORT", Value: "8000"}},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("4Gi")},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}}}}}}
			last := &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", StartedAt: wlAgo(23*time.Minute + 4*time.Hour + 27*time.Minute), FinishedAt: wlAgo(23*time.Minute + time.Second), ContainerID: "containerd://6a0e"}
			st := wlReadyStatus("app", image, 22*time.Hour)
			st.ContainerStatuses[0].RestartCount = 3
			st.ContainerStatuses[0].State.Running.StartedAt = wlAgo(23 * time.Minute)
			st.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: last}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "gnomad-api-blue", Labels: map[string]string{"app": "gnomad-api", "deployment": "blue"}, Replicas: 1, Template: &tmpl, PodStatus: st})
			c.SetLogs(ns, pods[0].Name, "app", false, "")
			c.SetLogs(ns, pods[0].Name, "app", true, "")
			return []string{"pod/" + pods[0].Name}
		},
		category: "OOMKilled",
		culprit:  []string{"OOMKilled", "4Gi"},
	},
	{
		// First round: hit.
		//
		// The DefectDojo initializer Job runs the Cloud SQL proxy as a plain
		// container next to the initializer: the initializer finished, the
		// proxy serves on, the pod stays NotReady and the Job never
		// completes.
		name:   "real-job-defectdojo-initializer-cloudsql-proxy-keeps-running",
		source: "https://github.com/DefectDojo/django-DefectDojo/issues/7235 (with cloudsql.enabled the initializer Job isn't completed because the cloudsql-proxy sidecar is still running, its pod NotReady; GKE 1.23, chart 2.16.2); containers as in helm/defectdojo/templates/initializer-job.yaml (cloudsql-proxy: /cloud_sql_proxy -verbose=false -instances=...=tcp:5432; initializer: /entrypoint-initializer.sh; restartPolicy Never, backoffLimit 1); the proxy's v1 (gce-proxy 1.x) log lines as it prints them (Listening on 127.0.0.1:5432 for ..., Ready for new connections, New connection for \"...\", Client closed local connection on 127.0.0.1:...); https://github.com/GoogleCloudPlatform/cloud-sql-proxy/issues/143 (CronJob pods stay at 1/2 while the proxy keeps its connection open); the initializer's lines: docker/reach_database.sh (Waiting for database to be reachable) and Django's makemigrations/migrate output",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			proxyImage, appImage := "gcr.io/cloudsql-docker/gce-proxy:1.33.1", "defectdojo/defectdojo-django:2.16.2"
			instance := "dojo-prod-371209:us-central1:defectdojo"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"defectdojo.org/component": "initializer", "app.kubernetes.io/name": "defectdojo", "app.kubernetes.io/instance": "defectdojo"}},
				Spec: corev1.PodSpec{ServiceAccountName: "default", RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{
					{Name: "cloudsql-proxy", Image: proxyImage, Command: []string{"/cloud_sql_proxy"},
						Args:            []string{"-verbose=false", "-instances=" + instance + "=tcp:5432"},
						SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr(true)}},
					{Name: "initializer", Image: appImage, Command: []string{"/entrypoint-initializer.sh"},
						Env: []corev1.EnvVar{{Name: "DD_DATABASE_HOST", Value: "127.0.0.1"}, {Name: "DD_DATABASE_PORT", Value: "5432"}}},
				}}}
			started := 47 * time.Minute
			j := wlJob(t, c, ns, "defectdojo-initializer-2022-12-05-10-14", batchv1.JobSpec{BackoffLimit: ptr(int32(1)), TTLSecondsAfterFinished: ptr(int32(60)), Template: tmpl},
				batchv1.JobStatus{Active: 1, Ready: ptr(int32(0)), StartTime: ptr(wlAgo(started))})
			st := corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.2.38", StartTime: ptr(wlAgo(started)),
				Conditions: []corev1.PodCondition{
					c7runCond(corev1.PodScheduled, corev1.ConditionTrue, "", "", started),
					c7runCond(corev1.PodInitialized, corev1.ConditionTrue, "", "", started),
					c7runCond(corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [initializer]", 44*time.Minute),
					c7runCond(corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [initializer]", 44*time.Minute),
				},
				ContainerStatuses: []corev1.ContainerStatus{
					{Name: "cloudsql-proxy", Image: proxyImage, ImageID: "gcr.io/cloudsql-docker/gce-proxy@sha256:7c3d", ContainerID: "containerd://csp1",
						Ready: true, Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: wlAgo(started)}}},
					{Name: "initializer", Image: appImage, ImageID: "docker.io/defectdojo/defectdojo-django@sha256:91ab", ContainerID: "containerd://ini1",
						Started: ptr(false), State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
							StartedAt: wlAgo(started), FinishedAt: wlAgo(44 * time.Minute), ContainerID: "containerd://ini1"}}},
				}}
			p := wlJobPod(t, c, j, j.Name+"-8xq2w", st)
			layout := "2006/01/02 15:04:05"
			c.SetLogs(ns, p.Name, "cloudsql-proxy", false, c5Lines(
				c7runStamp(started, layout)+" Listening on 127.0.0.1:5432 for "+instance,
				c7runStamp(started, layout)+" Ready for new connections",
				c7runStamp(started-6*time.Second, layout)+` New connection for "`+instance+`"`,
				c7runStamp(started-9*time.Second, layout)+` New connection for "`+instance+`"`,
				c7runStamp(44*time.Minute, layout)+" Client closed local connection on 127.0.0.1:5432",
				c7runStamp(44*time.Minute, layout)+" Client closed local connection on 127.0.0.1:5432",
			))
			c.SetLogs(ns, p.Name, "initializer", false, c5Lines(
				"Waiting for database to be reachable ",
				"Making migrations",
				"No changes detected in app 'dojo'",
				"Migrating",
				"Operations to perform:",
				"  Apply all migrations: admin, auth, auditlog, authtoken, contenttypes, django_celery_results, dojo, sessions, sites, social_django, tagging, watson",
				"Running migrations:",
				"  No migrations to apply.",
				"Admin user: admin",
			))
			return []string{"job/" + j.Name}
		},
		category: "Job/Sidecar",
		culprit:  []string{"cloudsql-proxy"},
	},
	{
		// First round: MISS. Today: InitContainer/Running (0.70) "init
		// container vault-agent-init has been running for 23m0s without
		// finishing", culprit the trailing "backoff=5m0s" line. Missing:
		// join multi-line log records (hclog's "error=" with "  | "
		// continuation lines) and name the repeated ERROR record (auth
		// login 403 permission denied) as why the init container never
		// completes.
		//
		// The injected vault-agent-init cannot log in to Vault: every
		// auth/kubernetes/login is answered 403 permission denied, the agent
		// retries with back-off forever, and the pod stays Init:0/1.
		name:   "real-vault-agent-init-login-403-permission-denied",
		source: "https://github.com/hashicorp/vault-k8s/issues/308 (the vault-agent-init container: [INFO] auth.handler: authenticating / [ERROR] auth.handler: error authenticating: Error making API request. URL: PUT https://<vault>/v1/auth/kubernetes/login Code: 403. Errors: * permission denied backoff=4.65s; serviceAccountName: vault-auth, role secret_injector); the agent's start-up banner and sink/template lines as in https://github.com/hashicorp/vault/issues/19952 (Vault v1.12.1, pods stuck at vault-agent-init with 403 from /v1/auth/kubernetes/login)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "vault-auth", Namespace: ns}})
			vaultImage, appImage := "hashicorp/vault:1.12.1", "registry.example.com/payments/payments-api:1.8.0"
			agentArgs := []string{`echo ${VAULT_CONFIG?} | base64 -d > /home/vault/config.json && vault agent -config=/home/vault/config.json`}
			vaultEnv := []corev1.EnvVar{{Name: "VAULT_LOG_LEVEL", Value: "info"}, {Name: "VAULT_LOG_FORMAT", Value: "standard"},
				{Name: "VAULT_CONFIG", Value: "eyJhdXRvX2F1dGgiOnsibWV0aG9kIjp7InR5cGUiOiJrdWJlcm5ldGVzIiwibW91bnRfcGF0aCI6ImF1dGgva3ViZXJuZXRlcyIsImNvbmZpZyI6eyJyb2xlIjoic2VjcmV0X2luamVjdG9yIn19fX0="}}
			mounts := []corev1.VolumeMount{{Name: "home-init", MountPath: "/home/vault"}, {Name: "vault-secrets", MountPath: "/vault/secrets"}}
			tmpl := corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "payments-api"}, Annotations: map[string]string{
					"vault.hashicorp.com/agent-inject":                 "true",
					"vault.hashicorp.com/agent-inject-status":          "injected",
					"vault.hashicorp.com/role":                         "secret_injector",
					"vault.hashicorp.com/agent-inject-secret-app.json": "secret/data/payments/app"}},
				Spec: corev1.PodSpec{ServiceAccountName: "vault-auth",
					Volumes: []corev1.Volume{{Name: "home-init", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
						{Name: "home-sidecar", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
						{Name: "vault-secrets", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}},
					InitContainers: []corev1.Container{{Name: "vault-agent-init", Image: vaultImage, Command: []string{"/bin/sh", "-ec"}, Args: agentArgs, Env: vaultEnv, VolumeMounts: mounts}},
					Containers: []corev1.Container{
						{Name: "payments-api", Image: appImage, VolumeMounts: []corev1.VolumeMount{{Name: "vault-secrets", MountPath: "/vault/secrets"}}},
						{Name: "vault-agent", Image: vaultImage, Command: []string{"/bin/sh", "-ec"}, Args: agentArgs, Env: vaultEnv,
							VolumeMounts: []corev1.VolumeMount{{Name: "home-sidecar", MountPath: "/home/vault"}, {Name: "vault-secrets", MountPath: "/vault/secrets"}}},
					}}}
			since := 23 * time.Minute
			waiting := func(name, image string) corev1.ContainerStatus {
				return corev1.ContainerStatus{Name: name, Image: image, Started: ptr(false),
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}
			}
			st := corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.1.52", StartTime: ptr(wlAgo(since)),
				Conditions: []corev1.PodCondition{
					c7runCond(corev1.PodScheduled, corev1.ConditionTrue, "", "", since),
					c7runCond(corev1.PodInitialized, corev1.ConditionFalse, "ContainersNotInitialized", "containers with incomplete status: [vault-agent-init]", since),
					c7runCond(corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [payments-api vault-agent]", since),
					c7runCond(corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [payments-api vault-agent]", since),
				},
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "vault-agent-init", Image: vaultImage, ImageID: "docker.io/hashicorp/vault@sha256:6b0f", ContainerID: "containerd://va1",
					Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: wlAgo(since)}}}},
				ContainerStatuses: []corev1.ContainerStatus{waiting("payments-api", appImage), waiting("vault-agent", vaultImage)},
			}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "payments-api", Labels: map[string]string{"app": "payments-api"}, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			layout := "2006-01-02T15:04:05.000Z"
			var b strings.Builder
			b.WriteString(c5Lines("==> Vault agent started! Log data will stream in below:", "", "==> Vault agent configuration:", "",
				"                     Cgo: disabled",
				"               Log Level: info",
				"                 Version: Vault v1.12.1, built 2022-10-27T12:32:05Z",
				"             Version Sha: e34f8a14fb7a88af4640b09f3ddbb5646b946d9c", ""))
			t0 := since - 10*time.Second
			for _, l := range []string{
				"[INFO]  sink.file: creating file sink",
				"[INFO]  sink.file: file sink configured: path=/home/vault/.vault-token mode=-rw-r-----",
				"[INFO]  template.server: starting template server",
				"[INFO] (runner) creating new runner (dry: false, once: false)",
				"[INFO]  sink.server: starting sink server",
				"[INFO]  auth.handler: starting auth handler",
				"[INFO] (runner) creating watcher",
			} {
				fmt.Fprintf(&b, "%s %s\n", c7runStamp(t0, layout), l)
			}
			// Each attempt: authenticate, the 403 after the 30s request
			// timeout, a back-off growing to the agent's 5m cap.
			backoffs := []string{"4.65s", "7.82s", "16.3s", "31.07s", "1m4.5s", "2m8.12s", "4m11.6s", "5m0s", "5m0s"}
			at := t0
			for _, bo := range backoffs {
				d, _ := time.ParseDuration(bo)
				if at-30*time.Second < 0 {
					break
				}
				fmt.Fprintf(&b, "%s [INFO]  auth.handler: authenticating\n", c7runStamp(at, layout))
				at -= 30 * time.Second
				fmt.Fprintf(&b, "%s [ERROR] auth.handler: error authenticating:\n  error=\n  | Error making API request.\n  | \n  | URL: PUT https://vault.example.com/v1/auth/kubernetes/login\n  | Code: 403. Errors:\n  | \n  | * permission denied\n   backoff=%s\n", c7runStamp(at, layout), bo)
				at -= d
			}
			c.SetLogs(ns, p.Name, "vault-agent-init", false, b.String())
			c.Event(t, testcluster.EventSpec{Object: p, Type: corev1.EventTypeNormal, Reason: "Pulled", Message: `Container image "hashicorp/vault:1.12.1" already present on machine`, First: time.Now().Add(-since), FieldPath: "spec.initContainers{vault-agent-init}"})
			c.Event(t, testcluster.EventSpec{Object: p, Type: corev1.EventTypeNormal, Reason: "Created", Message: "Created container vault-agent-init", First: time.Now().Add(-since), FieldPath: "spec.initContainers{vault-agent-init}"})
			c.Event(t, testcluster.EventSpec{Object: p, Type: corev1.EventTypeNormal, Reason: "Started", Message: "Started container vault-agent-init", First: time.Now().Add(-since), FieldPath: "spec.initContainers{vault-agent-init}"})
			return []string{"pod/" + p.Name}
		},
		category: "InitContainer",
		culprit:  []string{"vault-agent-init", "permission denied"},
	},
	{
		// First round: MISS. Today: RunContainerError/MountTypeMismatch
		// (0.90) "a volume (usually a subPath) is mounted over a path of the
		// other type", culprit "container influxdb volumeMounts", neither the
		// path nor the volume named. Missing: take the mount target out of
		// the runtime's message (".../merged/etc/config.toml ... not a
		// directory") and match it to the volumeMount (ConfigMap volume
		// influxdb-config at /etc/config.toml, no subPath), naming both.
		//
		// The ConfigMap volume (a directory) is mounted at /etc/config.toml,
		// a file in the image: runc refuses to mount a directory onto a
		// file and the container never starts.
		name:   "real-influxdb-configmap-dir-mounted-over-config-toml-file",
		source: "https://github.com/rootsongjc/kubernetes-handbook/issues/218 (monitoring-influxdb, Kubernetes 1.10 / Docker 1.13: Error: failed to start container \"influxdb\": Error response from daemon: oci runtime error: ... mounting \".../volumes/kubernetes.io~configmap/influxdb-config\" to rootfs ... at \".../merged/etc/config.toml\" caused \"not a directory\" : Are you trying to mount a directory onto a file (or vice-versa)?); the mountPath /etc/config.toml from https://github.com/rootsongjc/kubernetes-handbook/pull/169, reverted by https://github.com/rootsongjc/kubernetes-handbook/pull/385 (mountPath: /etc/config.toml changed to /etc/, otherwise config.toml is not a directory); manifests/heapster/influxdb-deployment.yaml",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "k8s.gcr.io/heapster-influxdb-amd64:v1.1.1"
			c.Create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "influxdb-config", Namespace: ns}, Data: map[string]string{"config.toml": c5Lines(
				"reporting-disabled = true", "bind-address = \":8088\"", "[meta]", "  dir = \"/data/meta\"", "  retention-autocreate = true", "[data]", "  dir = \"/data/data\"", "  wal-dir = \"/data/wal\"", "[http]", "  enabled = true", "  bind-address = \":8086\"")}})
			labels := map[string]string{"task": "monitoring", "k8s-app": "influxdb"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "influxdb", Image: image,
					VolumeMounts: []corev1.VolumeMount{{Name: "influxdb-storage", MountPath: "/data"}, {Name: "influxdb-config", MountPath: "/etc/config.toml"}}}},
					Volumes: []corev1.Volume{{Name: "influxdb-storage", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "influxdb-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "influxdb-config"}}}}}}}
			st := crashStatus("influxdb", 128, "ContainerCannotRun", 5)
			st.ContainerStatuses[0].Image = image
			st.ContainerStatuses[0].ImageID = "docker-pullable://k8s.gcr.io/heapster-influxdb-amd64@sha256:3fa3"
			st.ContainerStatuses[0].ContainerID = "docker://4c1d8f2b7e90"
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "monitoring-influxdb", Labels: labels, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			oci := fmt.Sprintf(`oci runtime error: container_linux.go:247: starting container process caused "process_linux.go:364: container init caused \"rootfs_linux.go:54: mounting \\\"/var/lib/kubelet/pods/%s/volumes/kubernetes.io~configmap/influxdb-config\\\" to rootfs \\\"/var/lib/docker/overlay2/e50b7f32607a04096a36d2d4852a7d6fdf4d73324ab447a2f780d8b1c7f8efb2/merged\\\" at \\\"/var/lib/docker/overlay2/e50b7f32607a04096a36d2d4852a7d6fdf4d73324ab447a2f780d8b1c7f8efb2/merged/etc/config.toml\\\" caused \\\"not a directory\\\"\""`, p.UID)
			hint := " : Are you trying to mount a directory onto a file (or vice-versa)? Check if the specified host path exists and is the expected type"
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = oci + hint
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated.ContainerID = "docker://4c1d8f2b7e90"
			p.Status.ContainerStatuses[0].State.Waiting.Message = fmt.Sprintf("Back-off 2m40s restarting failed container=influxdb pod=%s_%s(%s)", p.Name, ns, p.UID)
			p = c.SetStatus(t, p)
			c.SetLogs(ns, p.Name, "influxdb", true, "")
			c.SetLogs(ns, p.Name, "influxdb", false, "")
			c7runEvent(t, c, p, "influxdb", corev1.EventTypeNormal, "Pulled", `Container image "`+image+`" already present on machine`, 6, 9*time.Minute)
			c7runEvent(t, c, p, "influxdb", corev1.EventTypeNormal, "Created", "Created container", 6, 9*time.Minute)
			c7runEvent(t, c, p, "influxdb", corev1.EventTypeWarning, "Failed", `Error: failed to start container "influxdb": Error response from daemon: `+oci+hint, 6, 9*time.Minute)
			c7runEvent(t, c, p, "influxdb", corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container", 27, 8*time.Minute)
			return []string{"pod/" + p.Name}
		},
		category: "RunContainerError",
		culprit:  []string{"/etc/config.toml", "not a directory"},
	},
	{
		// First round: hit.
		//
		// The worker writes its scratch data to an emptyDir with a 5Gi
		// sizeLimit; once it holds more, the kubelet evicts the pod, though
		// its memory is far below its limit.
		name:   "real-evicted-emptydir-scratch-exceeds-5gi-size-limit",
		source: "https://github.com/kubernetes/kubernetes/issues/116986 (comment 2023-11-08: pods were evicted even though memory usage was well below pod limits; the EmptyDir limit was 5 GB and when this limit was exceeded, Kubernetes evicted our pods); the kubelet's message \"Usage of EmptyDir volume %q exceeds the limit %q. \" (pkg/kubelet/eviction/eviction_manager.go, emptyDirMessageFmt) and the evicted pod's container state (Terminated, ContainerStatusUnknown, \"The container could not be located when the pod was terminated\", exit code 137) as in https://github.com/kubernetes/kubernetes/issues/122160",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.example.com/data/report-renderer:4.2.1"
			limit := resource.MustParse("5Gi")
			labels := map[string]string{"app": "report-renderer"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "renderer", Image: image,
					Env:          []corev1.EnvVar{{Name: "TMPDIR", Value: "/scratch"}},
					VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("2Gi")},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("3Gi")}}}},
					Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &limit}}}}}}
			msg := `Usage of EmptyDir volume "scratch" exceeds the limit "5Gi". `
			st := corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: msg, HostIP: "127.0.0.1", StartTime: ptr(wlAgo(3 * time.Hour)),
				Conditions: []corev1.PodCondition{c7runCond(corev1.DisruptionTarget, corev1.ConditionTrue, "TerminationByKubelet", msg, 12*time.Minute)},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "renderer", Image: image, ImageID: image + "@sha256:8e21", ContainerID: "containerd://rr1",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "ContainerStatusUnknown",
						Message: "The container could not be located when the pod was terminated", StartedAt: wlAgo(3 * time.Hour), FinishedAt: wlAgo(12 * time.Minute)}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "report-renderer", Labels: labels, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			c.SetLogs(ns, p.Name, "renderer", false, c5Lines(
				`{"level":"info","ts":"`+c7runStamp(3*time.Hour, time.RFC3339)+`","msg":"worker started","queue":"reports","concurrency":4}`,
				`{"level":"info","ts":"`+c7runStamp(40*time.Minute, time.RFC3339)+`","msg":"rendering","job":"q3-ledger-export","pages":18214}`,
			))
			c7runEvent(t, c, p, "", corev1.EventTypeWarning, "Evicted", msg, 1, 12*time.Minute)
			c7runEvent(t, c, p, "renderer", corev1.EventTypeNormal, "Killing", "Stopping container renderer", 1, 12*time.Minute)
			return []string{"pod/" + p.Name}
		},
		category: "Evicted",
		culprit:  []string{"scratch", "5Gi"},
	},
	{
		// First round: MISS. Today: PVC/Full (0.90) "container
		// prometheus-server keeps running but its writes fail: PVC
		// kubecost-prometheus-server (capacity 32Gi), mounted at /data, is
		// full": the right claim, but the Root cause section never quotes
		// the failing write ("write /data/wal/00009060: no space left on
		// device"). Missing: carry the decisive log line (the ENOSPC error
		// and its path) into the root cause, not only the evidence.
		//
		// Prometheus keeps running and scraping, but every append to its WAL
		// fails: the 32Gi volume mounted at /data is full.
		name:   "real-prometheus-wal-no-space-left-on-data-pvc",
		source: "https://github.com/StatCan/aaw/issues/1257 (kubecost prometheus: write to WAL: log samples: write /data/wal/00009060: no space left on device; df: /dev/sdf 31.2G 31.2G 0 100% /data; the /data PV (32GB) is full, retention 15 days); the scrape manager's record as in https://github.com/vmware-archive/kube-prod-runtime/issues/841 (level=warn ... caller=scrape.go:972 component=\"scrape manager\" scrape_pool=kubernetes-pods target=http://...:9102/metrics msg=\"append failed\" err=\"write to WAL: log samples: write data/wal/00000690: no space left on device\")",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "quay.io/prometheus/prometheus:v2.35.0"
			claim := "kubecost-prometheus-server"
			c.Create(t, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: ns},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: "pvc-5d1c2b7a-3f0e-4c11-9a57-0c3f8e2d1b64",
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("32Gi")}}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("32Gi")}}})
			labels := map[string]string{"app": "prometheus", "component": "server", "release": "kubecost"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "prometheus-server", Image: image,
					Args:         []string{"--storage.tsdb.retention.time=15d", "--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data", "--web.console.libraries=/etc/prometheus/console_libraries", "--web.console.templates=/etc/prometheus/consoles", "--web.enable-lifecycle"},
					Ports:        []corev1.ContainerPort{{ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
					VolumeMounts: []corev1.VolumeMount{{Name: "storage-volume", MountPath: "/data"}}}},
					Volumes: []corev1.Volume{{Name: "storage-volume", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}}}
			st := wlReadyStatus("prometheus-server", image, 19*24*time.Hour)
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "kubecost-prometheus-server", Labels: labels, Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			targets := []string{`scrape_pool=kubernetes-pods target=http://10.244.3.41:9102/metrics`, `scrape_pool=kubecost target=http://10.244.1.9:9003/metrics`, `scrape_pool=kubernetes-nodes-cadvisor target=https://kubernetes.default.svc:443/api/v1/nodes/fake-node/proxy/metrics/cadvisor`}
			var recs []string
			for _, tg := range targets {
				recs = append(recs, `level=warn ts=%[1]s caller=scrape.go:1274 component="scrape manager" `+tg+` msg="append failed" err="write to WAL: log samples: write /data/wal/00009060: no space left on device"`)
			}
			log := c5Lines(
				`ts=`+c7runStamp(19*24*time.Hour, "2006-01-02T15:04:05.000Z")+` caller=main.go:491 level=info msg="Starting Prometheus" version="(version=2.35.0, branch=HEAD, revision=6656cd29fe6ac92bab91ecec0fe162ef0f187654)"`,
				`ts=`+c7runStamp(19*24*time.Hour, "2006-01-02T15:04:05.000Z")+` caller=main.go:947 level=info msg="Server is ready to receive web requests."`,
			) + c7runLines(40, 15*time.Second, "2006-01-02T15:04:05.000Z", recs...)
			c.SetLogs(ns, p.Name, "prometheus-server", false, log)
			return []string{"pod/" + p.Name}
		},
		category: "PVC/Full",
		culprit:  []string{"no space left on device", "kubecost-prometheus-server"},
	},
	{
		// First round: hit.
		//
		// Healthy: ZooKeeper logs a WARN every 30s when a monitoring
		// integration connects and drops its session without closing it;
		// the ensemble serves, the pod has been Ready for six days.
		name:    "real-healthy-zookeeper-unable-to-read-additional-data-warn",
		source:  "https://github.com/newrelic/nri-kafka/issues/99 (Kafka generates WARN Unable to read additional data from client sessionid ..., likely client has closed socket each time the integration runs, because of a connection not properly closed; the WARN Connection request from old client and INFO Expiring session ..., timeout of 6000ms exceeded lines verbatim; Kafka 2.6.0)",
		healthy: true,
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "confluentinc/cp-zookeeper:6.0.1"
			layout := "2006-01-02 15:04:05,000"
			log := c5Lines(
				"["+c7runStamp(6*24*time.Hour, layout)+"] INFO binding to port 0.0.0.0/0.0.0.0:2181 (org.apache.zookeeper.server.NIOServerCnxnFactory)",
				"["+c7runStamp(6*24*time.Hour, layout)+"] INFO Created server with tickTime 2000 minSessionTimeout 4000 maxSessionTimeout 40000 datadir /var/lib/zookeeper/log/version-2 snapdir /var/lib/zookeeper/data/version-2 (org.apache.zookeeper.server.ZooKeeperServer)",
			) + c7runLines(60, 30*time.Second, layout,
				"[%[1]s] WARN Connection request from old client /10.244.2.17:5%[2]04d; will be dropped if server is in r-o mode (org.apache.zookeeper.server.ZooKeeperServer)",
				"[%[1]s] WARN Unable to read additional data from client sessionid 0x100015131a3%[2]04x, likely client has closed socket (org.apache.zookeeper.server.NIOServerCnxn)",
				"[%[1]s] INFO Expiring session 0x100015131a3%[2]04x, timeout of 6000ms exceeded (org.apache.zookeeper.server.ZooKeeperServer)",
			)
			c5Running(t, c, ns, "zookeeper-0", image, 6*24*time.Hour, log, func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "client", ContainerPort: 2181, Protocol: corev1.ProtocolTCP}}
			})
			return []string{"pod/zookeeper-0"}
		},
	},
	{
		// First round: MISS. Today: InitContainer/ContainerFailed/Exit137
		// (0.60) "init container cloud-sql-proxy failed with exit code 137
		// ... the pod stays Init:Error and its app containers never start",
		// though the Job is Complete and migrate exited 0. Missing: treat an
		// init container with restartPolicy Always as a sidecar: its
		// non-zero exit when the pod finishes (pod Succeeded, Job Complete)
		// is teardown, not a failure.
		//
		// Healthy: the migration Job runs the Cloud SQL proxy as a native
		// sidecar (an init container with restartPolicy Always). The
		// migration exited 0, the kubelet then stopped the proxy, which
		// exits 137 on SIGTERM; the Job is Complete.
		name:    "real-healthy-job-native-sidecar-cloud-sql-proxy-exit-137",
		source:  "https://github.com/kubernetes/kubectl/issues/1739 (a Job pod shows Completed while its sidecar init container with restartPolicy Always terminated in Error; answer: intended, sidecar containers are treated differently) and https://github.com/warpdotdev/oz-agent-worker/pull/118 (quoting the Kubernetes docs: exit codes different from 0 for sidecar containers are normal on Pod termination and should be generally ignored); the proxy as a native sidecar as in https://github.com/simple-container-com/api/pull/347; the v2 proxy's lines and exit code (Authorizing with Application Default Credentials, [instance] Listening on 127.0.0.1:5432, The proxy has started successfully and is ready for new connections!, SIGTERM signal received. Shuting down..., errSigTerm Code 137) from GoogleCloudPlatform/cloud-sql-proxy cmd/root.go and cmd/errors.go",
		healthy: true,
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			proxyImage, appImage := "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.1.0", "registry.example.com/shop/orders-migrations:2023.03.2"
			instance := "shop-prod-302114:europe-west1:orders"
			always := corev1.ContainerRestartPolicyAlways
			tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				InitContainers: []corev1.Container{{Name: "cloud-sql-proxy", Image: proxyImage, RestartPolicy: &always,
					Args: []string{"--port=5432", "--structured-logs=false", instance}, SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr(true)}}},
				Containers: []corev1.Container{{Name: "migrate", Image: appImage, Args: []string{"migrate"},
					Env: []corev1.EnvVar{{Name: "FLYWAY_URL", Value: "jdbc:postgresql://127.0.0.1:5432/orders"}}}}}}
			started, done := 2*time.Hour+4*time.Minute, 2*time.Hour+3*time.Minute
			j := wlJob(t, c, ns, "orders-migrate-2023-03-2", batchv1.JobSpec{BackoffLimit: ptr(int32(0)), Template: tmpl},
				batchv1.JobStatus{Succeeded: 1, Ready: ptr(int32(0)), Terminating: ptr(int32(0)), StartTime: ptr(wlAgo(started)), CompletionTime: ptr(wlAgo(done)),
					UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
					Conditions: []batchv1.JobCondition{
						{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: wlAgo(done), LastTransitionTime: wlAgo(done)},
						{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: wlAgo(done), LastTransitionTime: wlAgo(done)}}})
			st := corev1.PodStatus{Phase: corev1.PodSucceeded, HostIP: "127.0.0.1", PodIP: "10.244.1.63", StartTime: ptr(wlAgo(started)),
				Conditions: []corev1.PodCondition{
					c7runCond(corev1.PodScheduled, corev1.ConditionTrue, "", "", started),
					c7runCond(corev1.PodInitialized, corev1.ConditionTrue, "", "", started),
					c7runCond(corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted", "", done),
					c7runCond(corev1.PodReady, corev1.ConditionFalse, "PodCompleted", "", done),
				},
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "cloud-sql-proxy", Image: proxyImage, ImageID: "gcr.io/cloud-sql-connectors/cloud-sql-proxy@sha256:1b2e", ContainerID: "containerd://csp2",
					Started: ptr(false), State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error",
						StartedAt: wlAgo(started), FinishedAt: wlAgo(done), ContainerID: "containerd://csp2"}}}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "migrate", Image: appImage, ImageID: appImage + "@sha256:c4d0", ContainerID: "containerd://mig1",
					Started: ptr(false), State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
						StartedAt: wlAgo(started - 2*time.Second), FinishedAt: wlAgo(done + time.Second), ContainerID: "containerd://mig1"}}}},
			}
			p := wlJobPod(t, c, j, j.Name+"-k7d9s", st)
			layout := "2006/01/02 15:04:05"
			c.SetLogs(ns, p.Name, "cloud-sql-proxy", false, c5Lines(
				c7runStamp(started, layout)+" Authorizing with Application Default Credentials",
				c7runStamp(started, layout)+" ["+instance+"] Listening on 127.0.0.1:5432",
				c7runStamp(started, layout)+" The proxy has started successfully and is ready for new connections!",
				c7runStamp(started-3*time.Second, layout)+" ["+instance+"] accepted connection from 127.0.0.1:43118",
				"SIGTERM signal received. Shuting down...",
			))
			c.SetLogs(ns, p.Name, "migrate", false, c5Lines(
				"Flyway Community Edition 9.16.0 by Redgate",
				"See what's new here: https://flywaydb.org/documentation/learnmore/releaseNotes#9.16.0",
				"",
				"Database: jdbc:postgresql://127.0.0.1:5432/orders (PostgreSQL 14.7)",
				"Successfully validated 14 migrations (execution time 00:00.061s)",
				`Current version of schema "public": 12`,
				`Migrating schema "public" to version "13 - add orders created at index"`,
				`Migrating schema "public" to version "14 - backfill order totals"`,
				`Successfully applied 2 migrations to schema "public", now at version v14 (execution time 00:41.212s)`,
			))
			return []string{"job/" + j.Name}
		},
	},
}
