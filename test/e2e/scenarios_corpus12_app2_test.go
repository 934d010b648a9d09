package e2e

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The twelfth batch, continued (see scenarios_corpus12_app_test.go).

var c12appScenarios2 = []scenario{
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
}
