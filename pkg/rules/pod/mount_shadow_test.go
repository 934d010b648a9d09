package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestMountShadow: a file missing under a directory a whole ConfigMap is
// mounted over is the image's file the mount hides. The lines:
//   - nginx for PHP-FPM with its nginx.conf from a ConfigMap mounted at
//     /etc/nginx, which hides the image's fastcgi_params (the file php-fpm
//     setups include, https://github.com/jlesage/docker-nginx-proxy-manager/issues/27;
//     nginx's open() wording);
//   - mysqld reading a conf.d subdirectory the image had under /etc/mysql
//     ("Can't read dir of '/etc/mysql/conf.d/'", https://github.com/docker-library/mysql/issues/70).
//
// Negatives: a top-level file the ConfigMap lacks (a missing key, not a
// hidden file), the same mount with subPath.
func TestMountShadow(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	nginxPHP := "2024/03/05 18:04:17 [emerg] 1#1: open() \"/etc/nginx/fastcgi_params\" failed (2: No such file or directory) in /etc/nginx/nginx.conf:30\nnginx: [emerg] open() \"/etc/nginx/fastcgi_params\" failed (2: No such file or directory) in /etc/nginx/nginx.conf:30\n"
	mysqld := "mysqld: Can't read dir of '/etc/mysql/conf.d/' (Errcode: 2 - No such file or directory)\nmysqld: [ERROR] Fatal error in defaults handling. Program aborted!\n"
	missingKey := "Error: open /etc/app/settings.yaml: no such file or directory\n"
	cmVol := func(name string) []corev1.Volume {
		return []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}}
	}
	cms := []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "nginx-php-conf", Namespace: "shop"}, Data: map[string]string{"nginx.conf": "http {\n  include fastcgi_params;\n}\n"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "mysql-conf", Namespace: "shop"}, Data: map[string]string{"my.cnf": "[mysqld]\n!includedir /etc/mysql/conf.d/\n"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "app-conf", Namespace: "shop"}, Data: map[string]string{"app.yaml": "a: 1\n"}},
	}
	for _, tt := range []struct {
		name, log string
		vols      []corev1.Volume
		mount     corev1.VolumeMount
		culprit   []string // none when the rule must stay silent
	}{
		{"sibling of the ConfigMap's file", nginxPHP, cmVol("nginx-php-conf"), corev1.VolumeMount{Name: "conf", MountPath: "/etc/nginx"}, []string{"nginx-php-conf", "/etc/nginx/fastcgi_params"}},
		{"a subdirectory", mysqld, cmVol("mysql-conf"), corev1.VolumeMount{Name: "conf", MountPath: "/etc/mysql"}, []string{"mysql-conf", "/etc/mysql/conf.d"}},
		{"a key the ConfigMap lacks", missingKey, cmVol("app-conf"), corev1.VolumeMount{Name: "conf", MountPath: "/etc/app"}, nil},
		{"mounted with subPath", nginxPHP, cmVol("nginx-php-conf"), corev1.VolumeMount{Name: "conf", MountPath: "/etc/nginx/nginx.conf", SubPath: "nginx.conf"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "shop/app:1", VolumeMounts: []corev1.VolumeMount{tt.mount}})
			p.Spec.Volumes = tt.vols
			b := envBundle(p, tt.log)
			b.ConfigMaps = cms
			fs := ruletest.Run(MountShadow, b, now)
			if tt.culprit == nil {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d (crash: %+v)", len(fs), ruletest.Run(CrashLoop, b, now))
			}
			f := fs[0]
			if !strings.HasSuffix(string(f.Category), "/MissingFile/HiddenByMount") {
				t.Errorf("category %q", f.Category)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
			if !strings.Contains(f.Actions[0].Description, "subPath") {
				t.Errorf("fix %q", f.Actions[0].Description)
			}
		})
	}
}
