package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestSettingOrigin: a setting a crashing program rejects is traced to the
// flag, variable or key of the pod spec that sets it, and an option the
// program does not know to the version its log reports beside a tag that
// moves; a setting the spec does not set leaves the crash finding alone.
func TestSettingOrigin(t *testing.T) {
	now := time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	secretEnv := func(name, secret, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
	}
	mk := func(ctr corev1.Container, code int32, log string, cms ...*corev1.ConfigMap) *bundle.Bundle {
		ctr.Name = "app"
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app-0", Namespace: "shop", UID: "p1"}, Spec: corev1.PodSpec{Containers: []corev1.Container{ctr}},
			Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: ctr.Image, RestartCount: 6,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: p.Namespace}, Pods: []*corev1.Pod{p}, ConfigMaps: cms,
			Logs: []bundle.ContainerLog{{Pod: p.Name, Container: "app", Previous: true, Text: log}}}
	}
	for _, tt := range []struct {
		name string
		b    *bundle.Bundle
		want []string // what the culprit names; nil: the rule stays silent
	}{
		// https://github.com/Smana/cloud-native-ref/pull/1889: oauth2-proxy
		// maps cookie_secret to OAUTH2_PROXY_COOKIE_SECRET.
		{"variable after the program's prefix, from a Secret key", mk(corev1.Container{Image: "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0",
			Env: []corev1.EnvVar{secretEnv("OAUTH2_PROXY_CLIENT_SECRET", "oauth2-proxy", "client-secret"), secretEnv("OAUTH2_PROXY_COOKIE_SECRET", "oauth2-proxy", "cookie-secret")}}, 1,
			"[2026/08/28 09:41:17] [main.go:54] invalid configuration:\n  cookie_secret must be 16, 24, or 32 bytes to create an AES cipher, but is 44 bytes\n"),
			[]string{"env OAUTH2_PROXY_COOKIE_SECRET", "key cookie-secret of Secret oauth2-proxy", "44 bytes"}},
		// https://github.com/standardnotes/forum/issues/3587: mysql:8 now
		// pulls 8.4, which removed --default-authentication-plugin.
		{"unknown option under a moving tag", mk(corev1.Container{Image: "docker.io/library/mysql:8",
			Args: []string{"--default-authentication-plugin=mysql_native_password", "--character-set-server=utf8mb4"}}, 1,
			"2024-05-12T20:38:43.233908Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.4.0) starting as process 1\n"+
				"2024-05-12T20:38:44.127128Z 0 [ERROR] [MY-000067] [Server] unknown variable 'default-authentication-plugin=mysql_native_password'.\n"+
				"2024-05-12T20:38:44.127540Z 0 [ERROR] [MY-010119] [Server] Aborting\n"),
			[]string{"argument --default-authentication-plugin=mysql_native_password", "version 8.4.0", "moving tag"}},
		// The Prometheus 3.0 migration guide
		// (https://prometheus.io/docs/prometheus/latest/migration/) removed
		// --storage.tsdb.retention; kingpin refuses an unknown flag before
		// any banner, so no version is claimed.
		{"unknown long flag of a kingpin program", mk(corev1.Container{Image: "quay.io/prometheus/prometheus:v3.0.0",
			Args: []string{"--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.retention=15d"}}, 1,
			"prometheus: error: unknown long flag '--storage.tsdb.retention', try --help\n"),
			[]string{"argument --storage.tsdb.retention=15d", "does not know the option"}},
		{"key of an envFrom ConfigMap", mk(corev1.Container{Image: "shop/api:2.1.0",
			EnvFrom: []corev1.EnvFromSource{{Prefix: "API_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-config"}}}}}, 1,
			"level=fatal msg=\"invalid configuration\" error=\"max_connections must be a positive integer, got \\\"-5\\\"\"\n",
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "api-config", Namespace: "shop"}, Data: map[string]string{"MAX_CONNECTIONS": "-5"}}),
			[]string{"env API_MAX_CONNECTIONS", "key MAX_CONNECTIONS of ConfigMap api-config"}},
		// https://github.com/apecloud/kubeblocks/issues/6936: the setting
		// is a line of my.cnf from a ConfigMap, the decisive line the first
		// of a cascade ending in "Aborting".
		{"line of a mounted ConfigMap file, first of the exit cascade", withConfigVolume(mk(corev1.Container{Image: "docker.io/apecloud/mysql:8.0.33",
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/mysql/conf.d"}}}, 1,
			"2024-04-01T08:32:05.692379Z 1 [ERROR] [MY-011087] [Server] Different lower_case_table_names settings for server ('1') and data dictionary ('0').\n"+
				"2024-04-01T08:32:05.692529Z 0 [ERROR] [MY-010020] [Server] Data Dictionary initialization failed.\n"+
				"2024-04-01T08:32:05.692551Z 0 [ERROR] [MY-010119] [Server] Aborting\n",
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mysql-config", Namespace: "shop"}, Data: map[string]string{"my.cnf": "[mysqld]\nmax_connections=1000\nlower_case_table_names=1\n"}}), "config", "mysql-config"),
			[]string{`line "lower_case_table_names=1" of /etc/mysql/conf.d/my.cnf`, "key my.cnf of ConfigMap mysql-config", "('1')"}},
		// https://github.com/dusansusic/kubernetes-traefik/issues/7: an
		// untagged image that became v2 no longer knows a v1 key.
		{"unknown field under an untagged image", withConfigVolume(mk(corev1.Container{Image: "traefik", Args: []string{"--configfile=/config/traefik.toml"},
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/config"}}}, 1,
			"2020/04/06 21:01:45 command traefik error: field not found, node: entryPoint\n",
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "traefik", Namespace: "shop"}, Data: map[string]string{"traefik.toml": "[ping]\nentryPoint = \"http\"\n"}}), "config", "traefik"),
			[]string{`entryPoint = \"http\"`, "key traefik.toml of ConfigMap traefik", "names no version (latest)"}},
		// https://github.com/jenkinsci/kubernetes-operator/issues/76: a
		// JVM option of Java 8 in JAVA_OPTS, on a JDK 11 image.
		{"a quoted value of a literal env value", mk(corev1.Container{Image: "jenkins/jenkins:lts-jdk11",
			Env: []corev1.EnvVar{{Name: "JAVA_OPTS", Value: "-XX:+UnlockExperimentalVMOptions -XX:+UseCGroupMemoryLimitForHeap -XX:MaxRAMFraction=1"}}}, 1,
			"Unrecognized VM option 'UseCGroupMemoryLimitForHeap'\nError: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit.\n"),
			[]string{"env JAVA_OPTS", "does not know the option", "jenkins/jenkins:lts-jdk11"}},
		{"a quoted value that is part of a longer word", mk(corev1.Container{Image: "jenkins/jenkins:lts-jdk11",
			Env: []corev1.EnvVar{{Name: "JAVA_OPTS", Value: "-XX:+UseCGroupMemoryLimitForHeapX"}}}, 1,
			"Unrecognized VM option 'UseCGroupMemoryLimitForHeap'\nError: A fatal exception has occurred. Program will exit.\n"), nil},
		{"a mounted file that does not set the setting", withConfigVolume(mk(corev1.Container{Image: "docker.io/apecloud/mysql:8.0.33",
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/mysql/conf.d"}}}, 1,
			"2024-04-01T08:32:05.692379Z 1 [ERROR] [MY-011087] [Server] Different lower_case_table_names settings for server ('1') and data dictionary ('0').\n"+
				"2024-04-01T08:32:05.692551Z 0 [ERROR] [MY-010119] [Server] Aborting\n",
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mysql-config", Namespace: "shop"}, Data: map[string]string{"my.cnf": "[mysqld]\nmax_connections=1000\n"}}), "config", "mysql-config"), nil},
		{"a setting the spec does not set", mk(corev1.Container{Image: "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0",
			Args: []string{"--config=/etc/oauth2-proxy.cfg"}}, 1,
			"[2026/08/28 09:41:17] [main.go:54] invalid configuration:\n  cookie_secret must be 16, 24, or 32 bytes to create an AES cipher, but is 44 bytes\n"), nil},
		{"one word names no variable", mk(corev1.Container{Image: "shop/api:2.1.0", Env: []corev1.EnvVar{{Name: "APP_PORT", Value: "80a"}}}, 1,
			"level=fatal msg=\"invalid configuration: port must be a number\"\n"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := ruletest.Run(SettingOrigin, tt.b, now)
			var got []string
			for _, f := range fs {
				if f.Rule == SettingOrigin.ID {
					got = append(got, f.Culprit)
				}
			}
			if tt.want == nil {
				if len(got) > 0 {
					t.Fatalf("spoke without the spec setting it: %q", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("findings %q, want one", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("culprit %q does not name %q", got[0], w)
				}
			}
		})
	}
}

// withConfigVolume gives the bundle's pod a volume of the ConfigMap.
func withConfigVolume(b *bundle.Bundle, volume, configMap string) *bundle.Bundle {
	b.Pods[0].Spec.Volumes = append(b.Pods[0].Spec.Volumes, corev1.Volume{Name: volume,
		VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}})
	return b
}

func TestSettingKey(t *testing.T) {
	for in, want := range map[string]string{"cookie_secret": "COOKIE_SECRET", "cookie-secret": "COOKIE_SECRET", "cookieSecret": "COOKIE_SECRET",
		"storage.tsdb.retention": "STORAGE_TSDB_RETENTION", "OAUTH2_PROXY_COOKIE_SECRET": "OAUTH2_PROXY_COOKIE_SECRET"} {
		if got := settingKey(in); got != want {
			t.Errorf("settingKey(%q) = %q, want %q", in, got, want)
		}
	}
}
