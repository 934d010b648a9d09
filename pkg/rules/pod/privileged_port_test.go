package pod

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPrivilegedPort(t *testing.T) {
	uid := int64(1001)
	tests := []struct {
		name string
		env  []corev1.EnvVar
		port int32
		uid  *int64
		want string
	}{
		// tomkerkhove/promitor#1561: Kestrel under runAsUser 1001.
		{"aspnetcore-urls", []corev1.EnvVar{{Name: "ASPNETCORE_URLS", Value: "http://+:80"}}, 80, &uid, "port 80 from ASPNETCORE_URLS=http://+:80, as non-root user 1001"},
		{"container-port", nil, 443, nil, "port 443 from containerPort"},
		{"unprivileged", []corev1.EnvVar{{Name: "ASPNETCORE_URLS", Value: "http://+:8080"}}, 8080, &uid, ""},
		{"not-a-url", []corev1.EnvVar{{Name: "GREETING", Value: "hello: 80"}}, 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: tt.uid},
				Containers: []corev1.Container{{Name: "app", Env: tt.env}}}}
			if tt.port != 0 {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: tt.port}}
			}
			if got := privilegedPort(p, "app"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTLSListener: the environment value that asks for an https://
// listener is named with its variable; a plain http:// one is not.
func TestTLSListener(t *testing.T) {
	for _, tt := range []struct {
		env  []corev1.EnvVar
		want string
	}{
		{[]corev1.EnvVar{{Name: "ASPNETCORE_URLS", Value: "https://+:8081;http://+:8080"}}, "https://+:8081 from env ASPNETCORE_URLS=https://+:8081;http://+:8080"},
		{[]corev1.EnvVar{{Name: "ASPNETCORE_URLS", Value: "http://+:8080;https://+:8443"}}, "https://+:8443 from env ASPNETCORE_URLS=http://+:8080;https://+:8443"},
		{[]corev1.EnvVar{{Name: "Kestrel__Endpoints__Https__Url", Value: "https://0.0.0.0:5001"}}, "https://0.0.0.0:5001 from env Kestrel__Endpoints__Https__Url=https://0.0.0.0:5001"},
		{[]corev1.EnvVar{{Name: "ASPNETCORE_URLS", Value: "http://+:8080"}}, ""},
		{nil, ""},
	} {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: tt.env}}}}
		if got := tlsListener(p, "app"); got != tt.want {
			t.Errorf("tlsListener(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
