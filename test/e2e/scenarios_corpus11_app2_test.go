package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The eleventh batch, continued (see scenarios_corpus11_app_test.go).

// c11appBitnamiPreset is a Bitnami chart's resourcesPreset as its
// _resources.tpl renders it (cpu and memory requests, then limits).
func c11appBitnamiPreset(reqCPU, reqMem, limCPU, limMem string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(reqCPU), corev1.ResourceMemory: resource.MustParse(reqMem), corev1.ResourceEphemeralStorage: resource.MustParse("50Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limCPU), corev1.ResourceMemory: resource.MustParse(limMem), corev1.ResourceEphemeralStorage: resource.MustParse("2Gi")}}
}

// c11appOOMRunning is a container running again (Ready) after its last run
// was OOMKilled finished ago, restarted restarts times.
func c11appOOMRunning(name, image string, since, finished time.Duration, restarts int32) corev1.ContainerStatus {
	s := c10appCtr(name, image, true, since, restarts)
	s.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
		StartedAt: wlAgo(finished + 3*time.Hour), FinishedAt: wlAgo(finished), ContainerID: "containerd://" + name + "-oom"}}
	return s
}

// c11appBitnamiBanner is the banner a Bitnami image prints at start, at.
func c11appBitnamiBanner(app, repo string, at time.Time) []string {
	s := app + " " + at.UTC().Format("15:04:05.00") + " "
	return []string{s + "INFO  ==> ", s + "INFO  ==> Welcome to the Bitnami " + app + " container",
		s + "INFO  ==> Subscribe to project updates by watching https://github.com/bitnami/" + repo,
		s + "INFO  ==> Submit issues and feature requests at https://github.com/bitnami/" + repo + "/issues", s + "INFO  ==> "}
}

var c11appScenarios2 = []scenario{
	{
		// The Bitnami ClickHouse chart runs its ZooKeeper with
		// resourcesPreset micro (a 384Mi memory limit) while the ZooKeeper
		// chart's heapSize 1024 gives the JVM a 1024 MB heap: the JVM grows
		// past the limit and the kernel kills it, again and again. The fix
		// raised the limit to 1536Mi (heap plus headroom).
		name:   "real-zookeeper-heap-1024-above-micro-preset-384mi-oomkilled",
		source: "material: https://github.com/langfuse/langfuse-terraform-aws/pull/12 (OOM restarts on zookeeper pods, functional but constant eventual crashes: the Bitnami ClickHouse chart v8.0.5 sets zookeeper.resourcesPreset micro, a 384Mi memory limit, and its Bitnami ZooKeeper chart v13.7.4 sets the JVM max heap to 1024 (heapSize: 1024); the JVM keeps growing until the container limit, is OOM killed and restarts; the fix bumps the container limit to 1536Mi to allow the full heap plus headroom); the preset's values as the Bitnami common chart renders micro (requests 250m/256Mi, limits 375m/384Mi); the heap reaches the JVM through the chart's ZOO_HEAP_SIZE env var",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/bitnami/zookeeper:3.9.3"
			name := "langfuse-zookeeper"
			labels := map[string]string{"app.kubernetes.io/name": "zookeeper", "app.kubernetes.io/instance": "langfuse", "app.kubernetes.io/component": "zookeeper"}
			c11appHeadless(t, c, ns, name+"-headless", labels, c4bPort("tcp-client", 2181, intstr.FromString("client")), c4bPort("tcp-follower", 2888, intstr.FromString("follower")), c4bPort("tcp-election", 3888, intstr.FromString("election")))
			c4bService(t, c, ns, name, labels, []corev1.ServicePort{c4bPort("tcp-client", 2181, intstr.FromString("client"))})
			c4aConfigMap(t, c, ns, name+"-scripts", map[string]string{"setup.sh": "#!/bin/bash\n\n# Execute entrypoint as usual after obtaining ZOO_SERVER_ID\n# check ZOO_SERVER_ID in persistent volume via myid\n# if not present, set based on POD hostname\nif [[ -f \"/bitnami/zookeeper/data/myid\" ]]; then\n    export ZOO_SERVER_ID=\"$(cat /bitnami/zookeeper/data/myid)\"\nelse\n    HOSTNAME=\"$(hostname -s)\"\n    if [[ $HOSTNAME =~ (.*)-([0-9]+)$ ]]; then\n        ORD=${BASH_REMATCH[2]}\n        export ZOO_SERVER_ID=\"$((ORD + 1 ))\"\n    else\n        echo \"Failed to get index from hostname $HOSTNAME\"\n        exit 1\n    fi\nfi\nexec /entrypoint.sh /run.sh\n"})
			var servers []string
			for i := 0; i < 3; i++ {
				servers = append(servers, fmt.Sprintf("%s-%d.%s-headless.%s.svc.cluster.local:2888:3888::%d", name, i, name, ns, i+1))
			}
			health := func() *corev1.Probe {
				return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/bash", "-ec", "ZOO_HC_TIMEOUT=3 /opt/bitnami/scripts/zookeeper/healthcheck.sh"}}},
					InitialDelaySeconds: 5, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 6}
			}
			spec := corev1.PodSpec{ServiceAccountName: name, SecurityContext: &corev1.PodSecurityContext{FSGroup: ptr(int64(1001))},
				Containers: []corev1.Container{{Name: "zookeeper", Image: image, Command: []string{"/scripts/setup.sh"},
					Env: []corev1.EnvVar{{Name: "BITNAMI_DEBUG", Value: "false"}, {Name: "ZOO_DATA_LOG_DIR", Value: ""}, {Name: "ZOO_PORT_NUMBER", Value: "2181"},
						{Name: "ZOO_TICK_TIME", Value: "2000"}, {Name: "ZOO_INIT_LIMIT", Value: "10"}, {Name: "ZOO_SYNC_LIMIT", Value: "5"}, {Name: "ZOO_PRE_ALLOC_SIZE", Value: "65536"},
						{Name: "ZOO_SNAPCOUNT", Value: "100000"}, {Name: "ZOO_MAX_CLIENT_CNXNS", Value: "60"}, {Name: "ZOO_4LW_COMMANDS_WHITELIST", Value: "srvr, mntr, ruok"},
						{Name: "ZOO_LISTEN_ALLIPS_ENABLED", Value: "no"}, {Name: "ZOO_AUTOPURGE_INTERVAL", Value: "1"}, {Name: "ZOO_AUTOPURGE_RETAIN_COUNT", Value: "10"},
						{Name: "ZOO_MAX_SESSION_TIMEOUT", Value: "40000"}, {Name: "ZOO_SERVERS", Value: strings.Join(servers, " ")}, {Name: "ZOO_ENABLE_AUTH", Value: "no"},
						{Name: "ALLOW_ANONYMOUS_LOGIN", Value: "yes"}, {Name: "ZOO_ENABLE_QUORUM_AUTH", Value: "no"}, {Name: "ZOO_HEAP_SIZE", Value: "1024"},
						{Name: "ZOO_LOG_LEVEL", Value: "ERROR"}, {Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
					Ports:          []corev1.ContainerPort{{Name: "client", ContainerPort: 2181}, {Name: "follower", ContainerPort: 2888}, {Name: "election", ContainerPort: 3888}},
					Resources:      c11appBitnamiPreset("250m", "256Mi", "375m", "384Mi"),
					LivenessProbe:  health(),
					ReadinessProbe: health(),
					VolumeMounts: []corev1.VolumeMount{{Name: "empty-dir", MountPath: "/tmp", SubPath: "tmp-dir"}, {Name: "empty-dir", MountPath: "/opt/bitnami/zookeeper/conf", SubPath: "app-conf-dir"},
						{Name: "empty-dir", MountPath: "/opt/bitnami/zookeeper/logs", SubPath: "app-logs-dir"}, {Name: "scripts", MountPath: "/scripts/setup.sh", SubPath: "setup.sh"},
						{Name: "data", MountPath: "/bitnami/zookeeper"}}}},
				Volumes: []corev1.Volume{{Name: "empty-dir", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					{Name: "scripts", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name + "-scripts"}, DefaultMode: ptr(int32(0o755))}}}}}
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
			sts := c11appSts(t, c, ns, name, name+"-headless", labels, 3, appsv1.ParallelPodManagement, spec, c11appClaimTemplate("data", "gp3", "8Gi"))
			c10appStsStatus(t, c, sts, 3, 3)
			var pods []*corev1.Pod
			for i, r := range []struct {
				restarts int32
				since    time.Duration
			}{{14, 38 * time.Minute}, {11, 71 * time.Minute}, {13, 19 * time.Minute}} {
				c11appClaim(t, c, ns, fmt.Sprintf("data-%s-%d", name, i), "gp3", "ebs.csi.aws.com", "8Gi", c11appCSI("ebs.csi.aws.com", fmt.Sprintf("vol-05d1f7be3c9a42e%02d", i)))
				p := c11appStsPod(t, c, sts, i, c10appPod(fmt.Sprintf("10.0.41.%d", 60+i), 2*24*time.Hour, c11appOOMRunning("zookeeper", image, r.since, r.since+5*time.Second, r.restarts)))
				start := time.Now().Add(-r.since)
				zk := func(ms int, lvl, msg string) string {
					return start.Add(time.Duration(ms)*time.Millisecond).UTC().Format("2006-01-02 15:04:05,000") + fmt.Sprintf(" [myid:%d] - %s", i+1, lvl) + msg
				}
				banner := c11appBitnamiBanner("zookeeper", "containers", start)
				s := "zookeeper " + start.UTC().Format("15:04:05.00") + " "
				c.SetLogs(ns, p.Name, "zookeeper", false, c5Lines(append(banner,
					s+"INFO  ==> ** Starting ZooKeeper setup **",
					s+"WARN  ==> You have set the environment variable ALLOW_ANONYMOUS_LOGIN=yes. For safety reasons, do not use this flag in a production environment.",
					s+"INFO  ==> Initializing ZooKeeper...",
					s+"INFO  ==> No injected configuration file found, creating default config files...",
					s+"INFO  ==> Deploying ZooKeeper with persisted data...",
					s+"INFO  ==> ** ZooKeeper setup finished! **",
					"",
					s+"INFO  ==> ** Starting ZooKeeper **",
					"/opt/bitnami/java/bin/java",
					"ZooKeeper JMX enabled by default",
					"Using config: /opt/bitnami/zookeeper/bin/../conf/zoo.cfg",
					zk(2400, "INFO  [QuorumPeer[myid="+fmt.Sprint(i+1)+"](plain=[0:0:0:0:0:0:0:0]:2181)(secure=disabled):o.a.z.s.q.Learner@695] - ", "Learner received UPTODATE message"),
				)...))
				c.SetLogs(ns, p.Name, "zookeeper", true, c5Lines(append(c11appBitnamiBanner("zookeeper", "containers", start.Add(-3*time.Hour)),
					"zookeeper "+start.Add(-3*time.Hour).UTC().Format("15:04:05.00")+" INFO  ==> ** Starting ZooKeeper **",
					"/opt/bitnami/java/bin/java",
					"ZooKeeper JMX enabled by default",
					"Using config: /opt/bitnami/zookeeper/bin/../conf/zoo.cfg",
				)...))
				pods = append(pods, p)
			}
			return []string{"pod/" + pods[0].Name}
		},
		category: "OOMKilled",
		culprit:  []string{"384Mi", "ZOO_HEAP_SIZE"},
	},
	{
		// jenkins-operator v0.1 builds the Jenkins master pod with a fixed
		// JAVA_OPTS tuned for a Java 8 image (-XX:+UseCGroupMemoryLimitForHeap);
		// the Jenkins CR asks for jenkins/jenkins:lts-jdk11, whose JVM no
		// longer knows that option, so the JVM does not start and the pod
		// (restartPolicy Never) fails. The fix was the operator's v0.2.0,
		// which stopped hard-coding JAVA_OPTS (on JDK 11 the flag is simply
		// removed: container support is on by default).
		name:   "real-jenkins-operator-java-opts-cgroup-flag-on-jdk11-image",
		source: "material: https://github.com/jenkinsci/kubernetes-operator/issues/76 (the operator sets JAVA_OPTS tuned for the java8 image, specifically -XX:+UseCGroupMemoryLimitForHeap; this option is not present in java 11, so the JVM fails to start with jenkins:lts-jdk11; JAVA_OPTS is hardcoded and cannot be overridden; fixed in v0.2.0), https://github.com/jenkinsci/kubernetes-operator/issues/554 (kubectl logs of the master pod: Unrecognized VM option 'UseCGroupMemoryLimitForHeap' / Error: Could not create the Java Virtual Machine. / Error: A fatal exception has occurred. Program will exit.; the maintainer: the option was removed in JDK 11, remove it from the JAVA_OPTS env var of the container), the pod as the operator's pkg/controller/jenkins/configuration/base/resources/pod.go of v0.1 builds it (pod jenkins-<cr>, container jenkins-master, command bash /var/jenkins/scripts/init.sh, env JAVA_OPTS=-XX:+UnlockExperimentalVMOptions -XX:+UseCGroupMemoryLimitForHeap -XX:MaxRAMFraction=1 -Djenkins.install.runSetupWizard=false -Djava.awt.headless=true, restartPolicy Never, runAsUser 1000)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "jenkins/jenkins:lts-jdk11"
			sa := "jenkins-operator-example"
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}})
			c4aConfigMap(t, c, ns, "jenkins-operator-scripts-example", map[string]string{"init.sh": "#!/usr/bin/env bash\nset -e\nset -x\n\n# https://wiki.jenkins.io/display/JENKINS/Post-initialization+script\nmkdir -p /var/jenkins/home/init.groovy.d\ncp -n /var/jenkins/init-configuration/*.groovy /var/jenkins/home/init.groovy.d\n\nmkdir -p /var/jenkins/home/scripts\ncp /var/jenkins/scripts/*.sh /var/jenkins/home/scripts\nchmod +x /var/jenkins/home/scripts/*.sh\n\n/sbin/tini -s -- /usr/local/bin/jenkins.sh\n"})
			c4aConfigMap(t, c, ns, "jenkins-operator-init-configuration-example", map[string]string{"1-create-admin-user.groovy": "import jenkins.model.*\nimport hudson.security.*\n"})
			c4aConfigMap(t, c, ns, "jenkins-operator-base-configuration-example", map[string]string{"1-basic-settings.groovy": "import jenkins.model.Jenkins\nJenkins.instance.setNumExecutors(0)\n"})
			c4aConfigMap(t, c, ns, "jenkins-operator-user-configuration-example", map[string]string{"1-configure-theme.groovy": "import jenkins.*\n"})
			c8appSecret(t, c, ns, "jenkins-operator-credentials-example", corev1.SecretTypeOpaque, map[string]string{"user": "jenkins-operator", "password": "Wk3Jv9Qp2Lx7"})
			c8appSecret(t, c, ns, "jenkins-operator-user-configuration-example", corev1.SecretTypeOpaque, map[string]string{})
			cm := func(vol, name string) corev1.Volume {
				return corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}, DefaultMode: ptr(int32(0o644))}}}
			}
			sec := func(vol, name string) corev1.Volume {
				return corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name, DefaultMode: ptr(int32(0o644))}}}
			}
			probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/login", Port: intstr.FromString("http")}}, InitialDelaySeconds: 80, PeriodSeconds: 10, TimeoutSeconds: 4, FailureThreshold: 12}
			started, finished := minutesAgo(6), wlAgo(6*time.Minute-3*time.Second)
			p := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "jenkins-example", Namespace: ns, Labels: map[string]string{"app": "jenkins-operator", "jenkins-cr": "example", "watch": "true"}},
				Spec: corev1.PodSpec{ServiceAccountName: sa, RestartPolicy: corev1.RestartPolicyNever,
					SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr(int64(1000)), RunAsGroup: ptr(int64(1000))},
					Containers: []corev1.Container{{Name: "jenkins-master", Image: image, ImagePullPolicy: corev1.PullAlways, Command: []string{"bash", "/var/jenkins/scripts/init.sh"},
						Env: []corev1.EnvVar{{Name: "JENKINS_HOME", Value: "/var/jenkins/home"},
							{Name: "JAVA_OPTS", Value: "-XX:+UnlockExperimentalVMOptions -XX:+UseCGroupMemoryLimitForHeap -XX:MaxRAMFraction=1 -Djenkins.install.runSetupWizard=false -Djava.awt.headless=true"},
							{Name: "SECRETS", Value: "/var/jenkins/user-configuration-secrets"}},
						Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "slavelistener", ContainerPort: 50000}},
						LivenessProbe:  probe,
						ReadinessProbe: &corev1.Probe{ProbeHandler: probe.ProbeHandler, InitialDelaySeconds: 60},
						Resources:      corev1.ResourceRequirements{Requests: c10appRes("1", "500Mi"), Limits: c10appRes("1500m", "3Gi")},
						VolumeMounts: []corev1.VolumeMount{{Name: "home", MountPath: "/var/jenkins/home"}, {Name: "scripts", MountPath: "/var/jenkins/scripts", ReadOnly: true},
							{Name: "init-configuration", MountPath: "/var/jenkins/init-configuration", ReadOnly: true}, {Name: "base-configuration", MountPath: "/var/jenkins/base-configuration", ReadOnly: true},
							{Name: "user-configuration", MountPath: "/var/jenkins/user-configuration", ReadOnly: true}, {Name: "operator-credentials", MountPath: "/var/jenkins/operator-credentials", ReadOnly: true},
							{Name: "user-configuration-secrets", MountPath: "/var/jenkins/user-configuration-secrets", ReadOnly: true}}}},
					Volumes: []corev1.Volume{{Name: "home", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						cm("scripts", "jenkins-operator-scripts-example"), cm("init-configuration", "jenkins-operator-init-configuration-example"),
						cm("base-configuration", "jenkins-operator-base-configuration-example"), cm("user-configuration", "jenkins-operator-user-configuration-example"),
						sec("operator-credentials", "jenkins-operator-credentials-example"), sec("user-configuration-secrets", "jenkins-operator-user-configuration-example")}},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, HostIP: "127.0.0.1", PodIP: "10.244.0.63", PodIPs: []corev1.PodIP{{IP: "10.244.0.63"}}, StartTime: &started,
					Conditions: []corev1.PodCondition{
						{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
						{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: started},
						{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "PodFailed", LastTransitionTime: finished},
						{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "PodFailed", LastTransitionTime: finished}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "jenkins-master", Image: "docker.io/jenkins/jenkins:lts-jdk11", ImageID: "docker.io/jenkins/jenkins@sha256:7e4d1d5c0b0a", ContainerID: "containerd://jm1",
						Started: ptr(false), State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: started, FinishedAt: finished, ContainerID: "containerd://jm1"}}}}}})
			c.SetLogs(ns, p.Name, "jenkins-master", false, c5Lines(
				"+ mkdir -p /var/jenkins/home/init.groovy.d",
				"+ cp -n /var/jenkins/init-configuration/1-create-admin-user.groovy /var/jenkins/home/init.groovy.d",
				"+ mkdir -p /var/jenkins/home/scripts",
				"+ cp /var/jenkins/scripts/init.sh /var/jenkins/home/scripts",
				"+ chmod +x /var/jenkins/home/scripts/init.sh",
				"+ /sbin/tini -s -- /usr/local/bin/jenkins.sh",
				"Unrecognized VM option 'UseCGroupMemoryLimitForHeap'",
				"Error: Could not create the Java Virtual Machine.",
				"Error: A fatal exception has occurred. Program will exit.",
			))
			for _, e := range []struct{ reason, msg string }{
				{"Pulling", `Pulling image "jenkins/jenkins:lts-jdk11"`},
				{"Pulled", `Successfully pulled image "jenkins/jenkins:lts-jdk11" in 1.204s (1.204s including waiting)`},
				{"Created", "Created container jenkins-master"},
				{"Started", "Started container jenkins-master"},
			} {
				c.Event(t, testcluster.EventSpec{Object: p, Type: corev1.EventTypeNormal, Reason: e.reason, First: time.Now().Add(-6 * time.Minute), FieldPath: "spec.containers{jenkins-master}", Message: e.msg})
			}
			return []string{"pod/" + p.Name}
		},
		category: "ContainerFailed/",
		culprit:  []string{"JAVA_OPTS", "jdk11"},
	},
	{
		// The TrueCharts plausible chart generated a secret_key_base too
		// short for Plug's cookie store: Plausible starts and serves its
		// health endpoint, but every browser request raises and returns an
		// error. The fix lengthened the generated SECRET_KEY_BASE to 64
		// bytes.
		name:   "real-plausible-secret-key-base-shorter-than-64-bytes",
		source: "material: https://github.com/trueforge-org/truecharts/issues/12946 (plausible 2.0.0 starts, but the first http request shows an error; logs: [error] #PID<0.3642.0> running PlausibleWeb.Endpoint (connection #PID<0.3641.0>, stream id 1) terminated / Server: stat.example.org:80 (http) / Request: GET /example.org / ** (exit) an exception was raised: / ** (ArgumentError) cookie store expects conn.secret_key_base to be at least 64 bytes / (plug 1.14.2) lib/plug/session/c...), https://github.com/trueforge-org/truecharts/pull/12947 (fix(plausible): increase secret_key_base length to 64 bytes)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "tccr.io/truecharts/plausible:v2.0.0"
			c8appSecret(t, c, ns, "plausible-secret", corev1.SecretTypeOpaque, map[string]string{"SECRET_KEY_BASE": "b3V5cTNzN2tQd0xtOWFYZTJWcjVuRzhq", "TOTP_VAULT_KEY": "dGhpcy1pcy1hLTMyLWJ5dGUta2V5LWZvci10b3Rw"})
			c8appSecret(t, c, ns, "plausible-cnpg-main-urls", corev1.SecretTypeOpaque, map[string]string{"std": "postgresql://plausible:pR4nE8sWq2@plausible-cnpg-main-rw:5432/plausible"})
			labels := map[string]string{"app.kubernetes.io/name": "plausible", "app.kubernetes.io/instance": "plausible", "pod.name": "main"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "plausible", Image: image,
					Env: []corev1.EnvVar{{Name: "BASE_URL", Value: "https://stat.example.org"}, {Name: "PORT", Value: "8000"}, {Name: "DISABLE_REGISTRATION", Value: "invite_only"},
						{Name: "CLICKHOUSE_DATABASE_URL", Value: "http://plausible-clickhouse:8123/plausible"},
						c8appSecretKey("DATABASE_URL", "plausible-cnpg-main-urls", "std"), c8appSecretKey("SECRET_KEY_BASE", "plausible-secret", "SECRET_KEY_BASE"),
						c8appSecretKey("TOTP_VAULT_KEY", "plausible-secret", "TOTP_VAULT_KEY")},
					Ports:          []corev1.ContainerPort{{Name: "main", ContainerPort: 8000}},
					LivenessProbe:  c4aHTTPProbe("/api/health", 8000, corev1.URISchemeHTTP),
					ReadinessProbe: c4aHTTPProbe("/api/health", 8000, corev1.URISchemeHTTP),
					StartupProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8000)}}, PeriodSeconds: 5, FailureThreshold: 60}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "plausible", Replicas: 1, Template: &tmpl,
				PodStatus: c10appPod("172.16.1.224", 5*time.Hour, c10appCtr("plausible", image, true, 5*time.Hour, 0))})
			p := pods[0]
			c4bService(t, c, ns, "plausible", labels, []corev1.ServicePort{c4bPort("main", 10280, intstr.FromInt32(8000))})
			c4bSlice(t, c, ns, "plausible", c4bSlicePort("main", 8000), p)
			boot := time.Now().Add(-5 * time.Hour).UTC()
			bt := func(ms int) string { return boot.Add(time.Duration(ms) * time.Millisecond).Format("15:04:05.000") }
			var reqs strings.Builder
			for i := 0; i < 6; i++ {
				at := time.Now().Add(-time.Duration(48-8*i) * time.Minute).UTC().Format("15:04:05.000")
				path := []string{"/example.org", "/login", "/", "/register", "/example.org", "/sites"}[i]
				fmt.Fprintf(&reqs, "%s [error] #PID<0.%d.0> running PlausibleWeb.Endpoint (connection #PID<0.%d.0>, stream id 1) terminated\n", at, 3642+17*i, 3641+17*i)
				reqs.WriteString("Server: stat.example.org:80 (http)\nRequest: GET " + path + "\n** (exit) an exception was raised:\n")
				reqs.WriteString("    ** (ArgumentError) cookie store expects conn.secret_key_base to be at least 64 bytes\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session/cookie.ex:240: Plug.Session.COOKIE.validate_secret_key_base/1\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session/cookie.ex:230: Plug.Session.COOKIE.derive/3\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session/cookie.ex:124: Plug.Session.COOKIE.get/3\n")
				reqs.WriteString("        (plug 1.14.2) lib/plug/session.ex:102: anonymous fn/3 in Plug.Session.fetch_session/1\n")
				reqs.WriteString("        (plausible 0.0.1) lib/plausible_web/endpoint.ex:1: PlausibleWeb.Endpoint.plug_builder_call/2\n")
			}
			c.SetLogs(ns, p.Name, "plausible", false, c5Lines(
				"Loading plausible..",
				"Starting dependencies..",
				"Starting repos..",
				"Running migrations for Elixir.Plausible.Repo",
				bt(412)+" [info] Migrations already up",
				"Running migrations for Elixir.Plausible.IngestRepo",
				bt(903)+" [info] Migrations already up",
				"Success!",
				bt(2611)+" [info] Running PlausibleWeb.Endpoint with cowboy 2.9.0 at :::8000 (http)",
				bt(2614)+" [info] Access PlausibleWeb.Endpoint at https://stat.example.org",
			)+reqs.String())
			return []string{"pod/" + p.Name}
		},
		category: "Running/Errors",
		culprit:  []string{"SECRET_KEY_BASE"},
	},
	{
		// The zero-to-jupyterhub hub keeps its state in a SQLite file on
		// claim hub-db-dir; the file is locked, so the hub's database
		// set-up fails at start and the pod crash-loops. The maintainer's
		// answer: clear out the Hub database by deleting the volume of the
		// hub-db-dir claim.
		name:   "real-jupyterhub-hub-db-dir-sqlite-database-locked",
		source: "material: https://github.com/jupyterhub/zero-to-jupyterhub-k8s/issues/872 (after the helm guide the hub fails: sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) database is locked [SQL: '\\nCREATE TABLE alembic_version (...)'] (Background on this error at: http://sqlalche.me/e/e3q8); minrk: you might need to clear out the Hub database, by deleting the volume that corresponds to the hub-db-dir claim (staging/hub-db-dir, storage class standard)), the traceback's frames as in https://github.com/jupyterhub/zero-to-jupyterhub-k8s/issues/731 (launch_instance_async -> initialize -> init_db -> dbutil.upgrade_if_needed)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "jupyterhub/k8s-hub:0.7.0"
			c.Create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "hub", Namespace: ns}})
			c8appSecret(t, c, ns, "hub-secret", corev1.SecretTypeOpaque, map[string]string{"hub.cookie-secret": "4f1c2b9e7d3a6f0851b2c4e9d7a3f6b1", "proxy.token": "e3a9833dbe73925d092514320a7c5f1e"})
			c4aConfigMap(t, c, ns, "hub-config", map[string]string{"values.yaml": "hub:\n  db:\n    type: sqlite-pvc\n    pvc:\n      accessModes:\n      - ReadWriteOnce\n      storage: 1Gi\nauth:\n  type: dummy\n", "z2jh.py": "", "jupyterhub_config.py": ""})
			c11appClaim(t, c, ns, "hub-db-dir", "standard", "kubernetes.io/gce-pd", "1Gi",
				corev1.PersistentVolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{PDName: "gke-jhub-5a2122c0-dynamic-pvc-5a2122c0-52c4-11e8-bae9-42010a800282", FSType: "ext4"}})
			labels := map[string]string{"app": "jupyterhub", "component": "hub", "release": "jhub", "heritage": "Tiller"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"checksum/config-map": "7c3b5f1d2e", "checksum/secret": "9a4e6c2b1d"}},
				Spec: corev1.PodSpec{ServiceAccountName: "hub", SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr(int64(1000)), FSGroup: ptr(int64(1000))},
					Containers: []corev1.Container{{Name: "hub", Image: image,
						Command: []string{"jupyterhub", "--config", "/srv/jupyterhub_config.py", "--upgrade-db"},
						Env: []corev1.EnvVar{{Name: "PYTHONUNBUFFERED", Value: "1"}, {Name: "HELM_RELEASE_NAME", Value: "jhub"},
							{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
							c8appSecretKey("JPY_COOKIE_SECRET", "hub-secret", "hub.cookie-secret"), c8appSecretKey("CONFIGPROXY_AUTH_TOKEN", "hub-secret", "proxy.token")},
						Ports:     []corev1.ContainerPort{{Name: "hub", ContainerPort: 8081}},
						Resources: corev1.ResourceRequirements{Requests: c10appRes("200m", "512Mi")},
						VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/jupyterhub/config/"}, {Name: "secret", MountPath: "/etc/jupyterhub/secret/"},
							{Name: "hub-db-dir", MountPath: "/srv/jupyterhub"}}}},
					Volumes: []corev1.Volume{{Name: "config", VolumeSource: c4aConfigMapSource("hub-config")},
						{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "hub-secret"}}},
						{Name: "hub-db-dir", VolumeSource: c4aClaimSource("hub-db-dir")}}}}
			dep := testcluster.DeploymentSpec{Name: "hub", Labels: labels, Replicas: 1, Template: &tmpl, PodStatus: c11appCrash("hub", image, "10.20.2.21", 1, "Error", 14)}
			_, _, pods := c.DeploymentChain(t, ns, dep)
			p := pods[0]
			c4bService(t, c, ns, "hub", map[string]string{"app": "jupyterhub", "component": "hub", "release": "jhub"}, []corev1.ServicePort{c4bPort("hub", 8081, intstr.FromInt32(8081))})
			at := time.Now().Add(-2 * time.Minute).UTC()
			st := func(ms int) string {
				return at.Add(time.Duration(ms) * time.Millisecond).Format("2006-01-02 15:04:05.000")
			}
			c.SetLogs(ns, p.Name, "hub", true, c5Lines(
				"[I "+st(0)+" JupyterHub app:1667] Using Authenticator: dummyauthenticator.dummyauthenticator.DummyAuthenticator-0.3.1",
				"[I "+st(1)+" JupyterHub app:1667] Using Spawner: kubespawner.spawner.KubeSpawner",
				"[I "+st(3)+" JupyterHub app:1010] Loading cookie_secret from env[JPY_COOKIE_SECRET]",
				"[E "+st(5214)+" JupyterHub app:1623]",
				"    Traceback (most recent call last):",
				`      File "/usr/local/lib/python3.6/dist-packages/jupyterhub/app.py", line 1620, in launch_instance_async`,
				"        yield self.initialize(argv)",
				`      File "/usr/lib/python3.6/types.py", line 204, in __next__`,
				"        return next(self.__wrapped)",
				`      File "/usr/local/lib/python3.6/dist-packages/jupyterhub/app.py", line 1373, in initialize`,
				"        self.init_db()",
				`      File "/usr/local/lib/python3.6/dist-packages/jupyterhub/app.py", line 888, in init_db`,
				"        dbutil.upgrade_if_needed(self.db_url, log=self.log)",
				`      File "/usr/local/lib/python3.6/dist-packages/jupyterhub/dbutil.py", line 118, in upgrade_if_needed`,
				"        orm.check_db_revision(engine)",
				`      File "/usr/local/lib/python3.6/dist-packages/jupyterhub/orm.py", line 639, in check_db_revision`,
				"        alembic.command.stamp(cfg, 'head')",
				`      File "/usr/local/lib/python3.6/dist-packages/sqlalchemy/engine/default.py", line 509, in do_execute`,
				"        cursor.execute(statement, parameters)",
				`    sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) database is locked [SQL: '\nCREATE TABLE alembic_version (\n\tversion_num VARCHAR(32) NOT NULL, \n\tCONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)\n)\n\n'] (Background on this error at: http://sqlalche.me/e/e3q8)`,
				"    ",
			))
			c.SetLogs(ns, p.Name, "hub", false, "")
			c8appBackOff(t, c, p, "hub", 58)
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"hub-db-dir"},
	},
}
