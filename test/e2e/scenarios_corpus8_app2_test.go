package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// c8appServingCert is a CA-signed serving certificate for dnsNames (PEM
// certificate with its CA, and key), as a service CA issues it.
func c8appServingCert(t *testing.T, dnsNames ...string) (crt, key, ca string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(-24 * time.Hour)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "openshift-service-serving-signer@1636450000"},
		NotBefore: now, NotAfter: now.AddDate(2, 0, 0), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dnsNames[0]}, DNSNames: dnsNames,
		NotBefore: now, NotAfter: now.AddDate(2, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(k)
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})) + caPEM,
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})), caPEM
}

var c8appScenarios2 = []scenario{
	{
		// Vault HA on raft with TLS end to end: the serving certificate comes
		// from the platform's service CA for the Service vault only
		// (vault.<ns>.svc), while retry_join dials the leader by its pod
		// name under the headless Service (vault-0.vault-internal), so every
		// join fails hostname verification; vault-1 stays uninitialized and
		// sealed and its readiness probe (vault status) fails. The fix is a
		// certificate whose SANs include *.vault-internal (or
		// leader_tls_servername).
		name:   "real-vault-raft-join-tls-cert-lacks-pod-names",
		source: "material: https://github.com/hashicorp/vault-helm/issues/645 (Vault HA raft with certificates from the OpenShift service CA: core: attempting to join possible raft leader node: leader_addr=https://vault-0.vault-internal:8200; join attempt failed: error=\"error during raft bootstrap init call: Put \\\"https://vault-0.vault-internal:8200/v1/sys/storage/raft/bootstrap/challenge\\\": x509: certificate is valid for vault.management-dev.svc, vault.management-dev.svc.cluster.local, not vault-0.vault-internal\"); the same in https://github.com/hashicorp/vault/pull/12982 (the certificate must name the vault-internal pod addresses)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/hashicorp/vault:1.8.4"
			crt, key, ca := c8appServingCert(t, "vault."+ns+".svc", "vault."+ns+".svc.cluster.local")
			c8appSecret(t, c, ns, "vault-server-tls", corev1.SecretTypeTLS, map[string]string{"tls.crt": crt, "tls.key": key})
			c4aConfigMap(t, c, ns, "vault-config", map[string]string{"extraconfig-from-values.hcl": "disable_mlock = true\nui = true\nlistener \"tcp\" {\n  tls_disable = 0\n  address = \"[::]:8200\"\n  cluster_address = \"[::]:8201\"\n  tls_cert_file = \"/vault/userconfig/vault-server-tls/tls.crt\"\n  tls_key_file  = \"/vault/userconfig/vault-server-tls/tls.key\"\n}\nstorage \"raft\" {\n  path = \"/vault/data\"\n  retry_join {\n    leader_api_addr = \"https://vault-0.vault-internal:8200\"\n    leader_ca_cert_file = \"/vault/userconfig/vault-ca/service-ca.crt\"\n  }\n  retry_join {\n    leader_api_addr = \"https://vault-1.vault-internal:8200\"\n    leader_ca_cert_file = \"/vault/userconfig/vault-ca/service-ca.crt\"\n  }\n  retry_join {\n    leader_api_addr = \"https://vault-2.vault-internal:8200\"\n    leader_ca_cert_file = \"/vault/userconfig/vault-ca/service-ca.crt\"\n  }\n}\nservice_registration \"kubernetes\" {}\n"})
			c4aConfigMap(t, c, ns, "vault-ca", map[string]string{"service-ca.crt": ca})
			c4bService(t, c, ns, "vault", map[string]string{"app.kubernetes.io/name": "vault"}, []corev1.ServicePort{c4bPort("https", 8200, intstr.FromInt32(8200)), c4bPort("https-internal", 8201, intstr.FromInt32(8201))},
				func(s *corev1.Service) {
					s.Annotations = map[string]string{"service.beta.openshift.io/serving-cert-secret-name": "vault-server-tls"}
				})
			probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh", "-ec", "vault status -tls-skip-verify"}}},
				InitialDelaySeconds: 5, PeriodSeconds: 5, TimeoutSeconds: 3, FailureThreshold: 2, SuccessThreshold: 1}
			leader := c4bReady("vault", image, "10.244.0.90", 3*time.Hour)
			follower := c8appNotReady("vault", image, "10.244.0.91", 2*time.Hour)
			pods := c8appSts(t, c, ns, "vault", "vault-internal", "vault", image, 8200, 3, func(s *corev1.PodSpec) {
				s.Containers[0].Args = []string{"cp /vault/config/extraconfig-from-values.hcl /tmp/storageconfig.hcl;\n/usr/local/bin/docker-entrypoint.sh vault server -config=/tmp/storageconfig.hcl \n"}
				s.Containers[0].Command = []string{"/bin/sh", "-ec"}
				s.Containers[0].Env = []corev1.EnvVar{{Name: "VAULT_ADDR", Value: "https://127.0.0.1:8200"}, {Name: "VAULT_API_ADDR", Value: "https://$(POD_IP):8200"},
					{Name: "VAULT_CLUSTER_ADDR", Value: "https://$(HOSTNAME).vault-internal:8201"}, {Name: "VAULT_CACERT", Value: "/vault/userconfig/vault-ca/service-ca.crt"}}
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "https", ContainerPort: 8200}, {Name: "https-internal", ContainerPort: 8201}}
				s.Containers[0].ReadinessProbe = probe
				s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: c4aConfigMapSource("vault-config")},
					{Name: "userconfig-vault-server-tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vault-server-tls"}}},
					{Name: "userconfig-vault-ca", VolumeSource: c4aConfigMapSource("vault-ca")}}
				s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/vault/config"},
					{Name: "userconfig-vault-server-tls", MountPath: "/vault/userconfig/vault-server-tls", ReadOnly: true},
					{Name: "userconfig-vault-ca", MountPath: "/vault/userconfig/vault-ca", ReadOnly: true}}
			}, leader, follower)
			c.SetLogs(ns, "vault-0", "vault", false, c5Lines(
				"2021-11-09T10:02:11.418Z [INFO]  core: vault is unsealed",
				"2021-11-09T10:02:11.418Z [INFO]  core: entering standby mode",
				"2021-11-09T10:02:11.425Z [INFO]  core: acquired lock, enabling active operation",
				"2021-11-09T10:02:11.473Z [INFO]  core: post-unseal setup complete",
			))
			// Each retry: the join fails, retry_join waits 2s and tries again.
			var log string
			start := time.Date(2021, 11, 9, 10, 21, 32, 834000000, time.UTC)
			for i := 0; i < 12; i++ {
				at := func(ms int) string {
					return start.Add(time.Duration(i)*2005*time.Millisecond + time.Duration(ms)*time.Millisecond).Format("2006-01-02T15:04:05.000Z")
				}
				log += c5Lines(
					at(0)+" [ERROR] core: failed to retry join raft cluster: retry=2s",
					at(2001)+" [INFO]  core: security barrier not initialized",
					at(2001)+" [INFO]  core: attempting to join possible raft leader node: leader_addr=https://vault-0.vault-internal:8200",
					at(2005)+` [WARN]  core: join attempt failed: error="error during raft bootstrap init call: Put \"https://vault-0.vault-internal:8200/v1/sys/storage/raft/bootstrap/challenge\": x509: certificate is valid for vault.`+ns+`.svc, vault.`+ns+`.svc.cluster.local, not vault-0.vault-internal"`,
				)
			}
			c.SetLogs(ns, "vault-1", "vault", false, log)
			c8appUnhealthy(t, c, pods[1], "vault", "Key                Value\n---                -----\nSeal Type          shamir\nInitialized        false\nSealed             true\nTotal Shares       0\nThreshold          0\nUnseal Progress    0/0\nUnseal Nonce       n/a\nVersion            1.8.4\nStorage Type       raft\nHA Enabled         true", 1420)
			return []string{"pod/vault-1"}
		},
		category: "Probe/Readiness",
		culprit:  []string{"vault-0.vault-internal", "certificate is valid for"},
	},
	{
		// Upgrading Harbor 2.8.4 to 2.9.0 with the Helm chart (Argo CD): a
		// first start of the new core ran the schema migration to version
		// 120 and did not finish it, so golang-migrate left
		// schema_migrations dirty; every start of the new core now refuses
		// to migrate and exits, while the old ReplicaSet's core serves.
		name:   "real-harbor-core-dirty-database-version-120",
		source: "material: https://github.com/goharbor/harbor/issues/19398 (Harbor 2.8.4 to 2.9.0 via Helm with Argo CD: the new harbor-core pod in CrashLoopBackOff beside the running old ones: [ERROR] [/common/dao/pgsql.go:140]: Failed to upgrade schema, error: \"Dirty database version 120. Fix and force version.\" [FATAL] [/core/main.go:192]: failed to migrate the database, error: Dirty database version 120. Fix and force version.); the dirty flag in schema_migrations as in https://github.com/goharbor/harbor/issues/15033",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			tmpl := func(version string) corev1.PodTemplateSpec {
				return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "harbor-core"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "core", Image: "docker.io/goharbor/harbor-core:" + version,
						Ports:          []corev1.ContainerPort{{ContainerPort: 8080}},
						EnvFrom:        []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "harbor-core"}}}},
						LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/api/v2.0/ping", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 10, FailureThreshold: 2, TimeoutSeconds: 1},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/api/v2.0/ping", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 10, FailureThreshold: 2, TimeoutSeconds: 1}}}}}
			}
			c4aConfigMap(t, c, ns, "harbor-core", map[string]string{"DATABASE_TYPE": "postgresql", "POSTGRESQL_HOST": "harbor.cluster-abc123.eu-west-1.rds.amazonaws.com",
				"POSTGRESQL_PORT": "5432", "POSTGRESQL_DATABASE": "registry", "POSTGRESQL_SSLMODE": "require", "EXT_ENDPOINT": "https://harbor.example.com"})
			c4bService(t, c, ns, "harbor-core", map[string]string{"app": "harbor-core"}, []corev1.ServicePort{c4bPort("http-web", 80, intstr.FromInt32(8080))})
			p := c4aRollout(t, c, ns, "harbor-core", tmpl("v2.8.4"), tmpl("v2.9.0"), 1, c5Lines(
				"2023-09-26T17:33:56Z [INFO] [/common/dao/pgsql.go:135]: Upgrading schema for pgsql ...",
				`2023-09-26T17:33:56Z [ERROR] [/common/dao/pgsql.go:140]: Failed to upgrade schema, error: "Dirty database version 120. Fix and force version."`,
				"2023-09-26T17:33:56Z [FATAL] [/core/main.go:192]: failed to migrate the database, error: Dirty database version 120. Fix and force version.",
			))
			return []string{"pod/" + p.Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"Dirty database version 120"},
	},
	{
		// The Kibana chart was installed from the helm-charts master branch,
		// whose default image is Kibana 8.0.0-SNAPSHOT, against the 7.10.2
		// Elasticsearch cluster: Kibana refuses incompatible nodes, never
		// becomes available and its readiness probe gets 503. The chart
		// version matching the cluster (7.10.2) is the fix.
		name:   "real-kibana-8-snapshot-against-elasticsearch-7-10",
		source: "material: https://github.com/elastic/helm-charts/issues/1061 (Kibana from the chart does not match the Elasticsearch nodes: {\"type\":\"log\",...,\"tags\":[\"error\",\"savedobjects-service\"],\"message\":\"This version of Kibana (v8.0.0-SNAPSHOT) is incompatible with the following Elasticsearch nodes in your cluster: v7.10.2 @ 10.0.2.3:9200 (10.0.2.3), v7.10.2 @ 10.0.2.2:9200 (10.0.2.2), v7.10.2 @ 10.0.0.3:9200 (10.0.0.3)\"}; resolved by installing the chart release matching the cluster, per the chart's install docs)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			es, kb := "docker.elastic.co/elasticsearch/elasticsearch:7.10.2", "docker.elastic.co/kibana/kibana:8.0.0-SNAPSHOT"
			var esPods []corev1.PodStatus
			for _, ip := range []string{"10.0.2.3", "10.0.2.2", "10.0.0.3"} {
				esPods = append(esPods, c4bReady("elasticsearch", es, ip, 6*time.Hour))
			}
			c8appSts(t, c, ns, "elasticsearch-master", "elasticsearch-master-headless", "elasticsearch", es, 9200, 3, func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 9200}, {Name: "transport", ContainerPort: 9300}}
			}, esPods...)
			c4bService(t, c, ns, "elasticsearch-master", map[string]string{"app.kubernetes.io/name": "elasticsearch-master"}, []corev1.ServicePort{c4bPort("http", 9200, intstr.FromInt32(9200))})
			probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "#!/usr/bin/env bash -e\n\n# Disable nss cache to avoid filling dentry cache when calling curl\n# This is required with Kibana Docker using nss < 3.52\nexport NSS_SDB_USE_CACHE=no\n\nhttp () {\n    local path=\"${1}\"\n    set -- -XGET -s --fail -L\n\n    if [ -n \"${ELASTICSEARCH_USERNAME}\" ] && [ -n \"${ELASTICSEARCH_PASSWORD}\" ]; then\n      set -- \"$@\" -u \"${ELASTICSEARCH_USERNAME}:${ELASTICSEARCH_PASSWORD}\"\n    fi\n\n    STATUS=$(curl --output /dev/null --write-out \"%{http_code}\" -k \"$@\" \"http://localhost:5601${path}\")\n    if [[ \"${STATUS}\" -eq 200 ]]; then\n      exit 0\n    fi\n\n    echo \"Error: Got HTTP code ${STATUS} but expected a 200\"\n    exit 1\n}\n\nhttp \"/app/kibana\"\n"}}},
				InitialDelaySeconds: 10, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3, SuccessThreshold: 3}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "kibana", "release": "kibana"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "kibana", Image: kb, Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 5601}},
					Env: []corev1.EnvVar{{Name: "ELASTICSEARCH_HOSTS", Value: "http://elasticsearch-master:9200"}, {Name: "SERVER_HOST", Value: "0.0.0.0"}}, ReadinessProbe: probe}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "kibana-kibana", Replicas: 1, Template: &tmpl, PodStatus: c8appNotReady("kibana", kb, "10.0.1.7", 35*time.Minute)})
			p := pods[0]
			c4bService(t, c, ns, "kibana-kibana", map[string]string{"app": "kibana", "release": "kibana"}, []corev1.ServicePort{c4bPort("http", 5601, intstr.FromInt32(5601))})
			c.SetLogs(ns, p.Name, "kibana", false, c5Lines(
				`{"type":"log","@timestamp":"2021-02-12T10:17:07+00:00","tags":["info","savedobjects-service"],"pid":6,"message":"Waiting until all Elasticsearch nodes are compatible with Kibana before starting saved objects migrations..."}`,
				`{"type":"log","@timestamp":"2021-02-12T10:17:08+00:00","tags":["error","savedobjects-service"],"pid":6,"message":"This version of Kibana (v8.0.0-SNAPSHOT) is incompatible with the following Elasticsearch nodes in your cluster: v7.10.2 @ 10.0.2.3:9200 (10.0.2.3), v7.10.2 @ 10.0.2.2:9200 (10.0.2.2), v7.10.2 @ 10.0.0.3:9200 (10.0.0.3)"}`,
			))
			c8appUnhealthy(t, c, p, "kibana", "Error: Got HTTP code 503 but expected a 200", 210)
			return []string{"pod/" + p.Name}
		},
		category: "Probe/Readiness",
		culprit:  []string{"incompatible", "7.10.2"},
	},
	{
		// A new PersistentVolume is owned by root and nexus3 runs as UID 200;
		// without fsGroup: 200 (or a chown 200:200 init container) Nexus
		// cannot create its work directories under /nexus-data and stops.
		name:   "real-nexus3-data-volume-not-writable-uid-200",
		source: "material: https://github.com/sonatype/operator-nxrm3/issues/54 (the Nexus pod does not come up: mkdir: cannot create directory '../sonatype-work/nexus3/log': Permission denied ... java.io.FileNotFoundException: /nexus-data/karaf.pid (Permission denied)); the cause and fix in https://github.com/sonatype/docker-nexus3/issues/61 (the provisioned volume is owned by root, Nexus runs as UID 200) and https://github.com/sonatype/docker-nexus/issues/31 (securityContext fsGroup: 200, or an init container running chown -R 200:200 /nexus-data)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "docker.io/sonatype/nexus3:3.41.0"
			c4aClaim(t, c, ns, "nexus-data", "gp2", "ebs.csi.aws.com", "50Gi")
			c4bService(t, c, ns, "nexus", map[string]string{"app": "nexus"}, []corev1.ServicePort{c4bPort("http", 8081, intstr.FromInt32(8081))})
			pods := c2CrashDeployment(t, c, ns, "nexus", image, 8081, 1, c5Lines(
				"mkdir: cannot create directory '../sonatype-work/nexus3/log': Permission denied",
				"mkdir: cannot create directory '../sonatype-work/nexus3/tmp': Permission denied",
				"OpenJDK 64-Bit Server VM warning: Cannot open file ../sonatype-work/nexus3/log/jvm.log due to No such file or directory",
				"",
				"Warning:  Cannot open log file: ../sonatype-work/nexus3/log/jvm.log",
				"Warning:  Forcing option -XX:LogFile=/tmp/jvm.log",
				"java.io.FileNotFoundException: ../sonatype-work/nexus3/tmp/i4j_ZTDnGON8hezynsMX2ZCYAVDtQog=.lock (No such file or directory)",
				"        at java.io.RandomAccessFile.open0(Native Method)",
				"        at java.io.RandomAccessFile.open(RandomAccessFile.java:316)",
				"        at java.io.RandomAccessFile.<init>(RandomAccessFile.java:243)",
				"        at com.install4j.runtime.launcher.util.SingleInstance.check(SingleInstance.java:72)",
				"        at com.install4j.runtime.launcher.util.SingleInstance.checkForCurrentLauncher(SingleInstance.java:31)",
				"        at com.install4j.runtime.launcher.UnixLauncher.checkSingleInstance(UnixLauncher.java:88)",
				"        at com.install4j.runtime.launcher.UnixLauncher.main(UnixLauncher.java:67)",
				"java.io.FileNotFoundException: /nexus-data/karaf.pid (Permission denied)",
				"        at java.io.FileOutputStream.open0(Native Method)",
			), func(s *corev1.PodSpec) {
				s.Volumes = []corev1.Volume{{Name: "nexus-data", VolumeSource: c4aClaimSource("nexus-data")}}
				s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "nexus-data", MountPath: "/nexus-data"}}
				s.Containers[0].Env = []corev1.EnvVar{{Name: "INSTALL4J_ADD_VM_PARAMS", Value: "-Xms2703m -Xmx2703m -XX:MaxDirectMemorySize=2703m -Djava.util.prefs.userRoot=/nexus-data/javaprefs"}}
			})
			return []string{"pod/" + pods[0].Name}
		},
		category: "CrashLoop/",
		culprit:  []string{"/nexus-data", "fsGroup"},
	},
}
