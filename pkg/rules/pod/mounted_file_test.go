package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestMountedFile: a crash's file (missing, unparsable, too open) is traced
// to the ConfigMap or Secret volume that projects it. The log lines:
//   - nginx's ngx_ssl_certificate: `cannot load certificate "%s":
//     BIO_new_file() failed` (kubernetes/kubernetes#51164);
//   - Node's require of a JSON file: "SyntaxError: <path>: Unexpected token
//     a in JSON at position 59" (jhuckaby/Cronicle#419);
//   - PostgreSQL's be-secure-openssl.c: `private key file "%s" has group or
//     world access` (smallstep/autocert#53).
func TestMountedFile(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	nginx := `nginx: [emerg] cannot load certificate "/etc/nginx/ssl/nginx.crt": BIO_new_file() failed (SSL: error:02001002:system library:fopen:No such file or directory:fopen('/etc/nginx/ssl/nginx.crt','r') error:2006D080:BIO routines:BIO_new_file:no such file)` + "\n"
	node := "SyntaxError: /opt/cronicle/conf/config.json: Unexpected token a in JSON at position 59\n    at JSON.parse (<anonymous>)\n"
	pg := `2022-06-01 18:24:51.139 GMT [37] FATAL:  private key file "/var/run/secrets/pg/certs/tls.key" has group or world access` + "\n"
	secretVol := func(name string, mode *int32, items ...corev1.KeyToPath) corev1.VolumeSource {
		return corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name, DefaultMode: mode, Items: items}}
	}
	cmVol := corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cronicle-config"}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cronicle-config", Namespace: "shop"}, Data: map[string]string{"config.json": "{ not json"}}
	for _, tt := range []struct {
		name, log string
		vol       corev1.VolumeSource
		mount     corev1.VolumeMount
		cms       []*corev1.ConfigMap
		category  string
		culprit   []string
		conf      rule.Confidence
	}{
		{"missing file under a Secret", nginx, secretVol("nginxsecret", nil), corev1.VolumeMount{Name: "v", MountPath: "/etc/nginx/ssl"}, nil,
			"CrashLoop/Exit1/MissingFile/Secret", []string{"secret nginxsecret", "key nginx.crt"}, rule.Likely},
		{"a Secret's items project other names", nginx, secretVol("nginxsecret", nil, corev1.KeyToPath{Key: "tls.crt", Path: "tls.crt"}), corev1.VolumeMount{Name: "v", MountPath: "/etc/nginx/ssl"}, nil,
			"CrashLoop/Exit1/MissingFile/Secret", []string{"secret nginxsecret", "(key -)"}, rule.Likely},
		{"unparsable file from a ConfigMap", node, cmVol, corev1.VolumeMount{Name: "v", MountPath: "/opt/cronicle/conf"}, []*corev1.ConfigMap{cm},
			"CrashLoop/Exit1/InvalidConfig/ConfigMap", []string{"configmap cronicle-config key config.json"}, rule.Strong},
		// The key is missing: pod/config-source's, not this rule's.
		{"ConfigMap without the key", node, cmVol, corev1.VolumeMount{Name: "v", MountPath: "/opt/cronicle/conf"}, []*corev1.ConfigMap{{ObjectMeta: cm.ObjectMeta, Data: map[string]string{"other.json": "{}"}}},
			"", nil, 0},
		{"key too open from a Secret's default mode", pg, secretVol("pg-tls", nil), corev1.VolumeMount{Name: "v", MountPath: "/var/run/secrets/pg/certs"}, nil,
			"CrashLoop/Exit1/FileMode/Secret", []string{"secret pg-tls", "mode 0644"}, rule.Strong},
		{"key too open through a subPath and an explicit mode", pg, secretVol("pg-tls", ptrTo(int32(0o640))), corev1.VolumeMount{Name: "v", MountPath: "/var/run/secrets/pg/certs/tls.key", SubPath: "tls.key"}, nil,
			"CrashLoop/Exit1/FileMode/Secret", []string{"secret pg-tls", "mode 0640"}, rule.Strong},
		{"file on the image's own filesystem", nginx, secretVol("nginxsecret", nil), corev1.VolumeMount{Name: "v", MountPath: "/etc/tls"}, nil,
			"", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "shop/app:1", VolumeMounts: []corev1.VolumeMount{tt.mount}})
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: tt.vol}}
			b := envBundle(p, tt.log)
			b.ConfigMaps = tt.cms
			fs := ruletest.Run(MountedFile, b, now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d (crash: %+v)", len(fs), ruletest.Run(CrashLoop, b, now))
			}
			f := fs[0]
			if string(f.Category) != tt.category || f.Strength != rule.Traced || f.Confidence != tt.conf {
				t.Errorf("category %q strength %v confidence %v", f.Category, f.Strength, f.Confidence)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
		})
	}
}
