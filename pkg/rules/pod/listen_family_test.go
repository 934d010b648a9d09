package pod

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestListenAddressFamily: a listen refused with EAFNOSUPPORT is its own
// class, traced to the env, arg or mounted ConfigMap line that sets the
// IPv6 address; a commented line is no setting, and the image's own
// configuration is said by naming none.
func TestListenAddressFamily(t *testing.T) {
	// nginx's wording, as in https://github.com/kubernetes/website/issues/7837
	// and https://github.com/opencost/opencost-helm-chart/issues/173.
	nginx := "2024/01/18 10:01:02 [emerg] 1#1: socket() [::]:9096 failed (97: Address family not supported by protocol)\nnginx: [emerg] socket() [::]:9096 failed (97: Address family not supported by protocol)\n"
	tests := []struct {
		name  string
		log   string
		conf  string // the mounted ConfigMap's default.conf, "" for none
		env   []corev1.EnvVar
		names []string
	}{
		// The server block of https://github.com/sharevb/it-tools/issues/98.
		{"nginx, ConfigMap server block", nginx, "server {\n    listen 9096;\n    listen [::]:9096;\n}\n", nil,
			[]string{"[::]:9096", "ConfigMap ui-conf key default.conf", "listen [::]:9096;"}},
		{"nginx, a commented IPv6 listen is no setting", nginx, "server {\n    listen 9096;\n    # listen [::]:9096;\n}\n", nil,
			[]string{"[::]:9096"}},
		// Go's net package (listen tcp6 ...: socket: address family not
		// supported by protocol), the address from the environment.
		{"go, env", "listen tcp6 [::]:8080: socket: address family not supported by protocol\n", "", []corev1.EnvVar{{Name: "LISTEN_ADDR", Value: "[::]:8080"}},
			[]string{"[::]:8080", "env LISTEN_ADDR=[::]:8080"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := bundletest.Pod("ui", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Env = tt.env
				if tt.conf != "" {
					p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/nginx/conf.d"}}
					p.Spec.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ui-conf"}}}}}
				}
			})
			b := bundletest.PodBundle(p, func(b *bundle.Bundle) {
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "ui", Container: "app", Previous: true, Text: tt.log}}
				if tt.conf != "" {
					b.ConfigMaps = []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "ui-conf", Namespace: "shop"}, Data: map[string]string{"default.conf": tt.conf}}}
				}
			})
			f := ruletest.Root(ruletest.Run(CrashLoop, b, bundletest.Now))
			if f == nil || !strings.HasSuffix(string(f.Category), "/AddressFamily") {
				t.Fatalf("finding %+v, want an AddressFamily crash", f)
			}
			for _, n := range tt.names {
				if !strings.Contains(f.Title, n) {
					t.Errorf("title does not name %q: %s", n, f.Title)
				}
			}
			if tt.conf != "" && strings.Contains(tt.conf, "# listen") && strings.Contains(f.Title, "set by") {
				t.Errorf("a commented line is named as the setting: %s", f.Title)
			}
		})
	}
}
