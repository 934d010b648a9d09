package logs

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestLoopbackListen: an application that says it listens on the probed
// port on loopback only, in its log or its spec; one on all interfaces, an
// outgoing connection to a loopback address, or another port is not one.
func TestLoopbackListen(t *testing.T) {
	tests := []struct {
		name, log, port string
		args            []string
		env             []corev1.EnvVar
		want            string // the address, "" for none
	}{
		// Werkzeug's serving.py start-up line (Flask's default host is 127.0.0.1).
		{name: "flask dev server", log: " * Serving Flask app 'app'\n * Running on http://127.0.0.1:5000\nPress CTRL+C to quit\n", port: "5000", want: "127.0.0.1:5000"},
		// Puma's binder: "* Listening on http://127.0.0.1:3000".
		{name: "puma", log: "Puma starting in single mode...\n* Listening on http://127.0.0.1:3000\nUse Ctrl-C to stop\n", port: "3000", want: "127.0.0.1:3000"},
		// grafana/synthetic-monitoring-agent logs its config at start-up (cmd/synthetic-monitoring-agent/main.go).
		{name: "a logged listen setting", log: `{"level":"info","config":{"GrpcApiServerAddr":"synthetic-monitoring-grpc-eu-west.grafana.net:443","HttpListenAddr":"localhost:4050"},"message":"starting"}` + "\n", port: "4050", want: "localhost:4050"},
		// node_exporter's --web.listen-address behind kube-rbac-proxy.
		{name: "a listen flag", args: []string{"--web.listen-address=127.0.0.1:9100", "--path.rootfs=/host/root"}, port: "9100", want: "127.0.0.1:9100"},
		{name: "a bind variable", env: []corev1.EnvVar{{Name: "BIND_ADDRESS", Value: "127.0.0.1:8080"}}, port: "8080", want: "127.0.0.1:8080"},
		{name: "all interfaces", log: " * Running on all addresses (0.0.0.0)\n * Running on http://127.0.0.1:5000\n * Running on http://10.244.0.7:5000\n", port: "5000"},
		{name: "another port", log: " * Running on http://127.0.0.1:5000\n", port: "8080"},
		{name: "an outgoing connection", log: "connecting to database at 127.0.0.1:5432\nListening on :8080\n", port: "5432"},
		// vault-helm sets the server's own client address on every pod.
		{name: "a client's address variable", env: []corev1.EnvVar{{Name: "VAULT_ADDR", Value: "https://127.0.0.1:8200"}}, port: "8200"},
		{name: "a proxy's upstream", args: []string{"--upstream=http://127.0.0.1:8081/", "--secure-listen-address=0.0.0.0:8443"}, port: "8081"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Args: tt.args, Env: tt.env}}}}
			b := &bundle.Bundle{Pods: []*corev1.Pod{p}}
			if tt.log != "" {
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web", Container: "app", Text: tt.log}}
			}
			got := LoopbackListen(rule.NewPass(b, time.Now(), nil), p, "app", tt.port)
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("got %+v, want none", got)
			case tt.want != "" && (got == nil || got.Addr != tt.want):
				t.Errorf("got %+v, want %s", got, tt.want)
			}
		})
	}
}
