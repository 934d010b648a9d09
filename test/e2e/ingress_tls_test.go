package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestIngressTLSSecretExistence: an Ingress naming one TLS Secret that
// exists and one that does not. Triage learns which is which from one
// table-row read per name, against the real API server: the absent one is
// named, the present one is seen, and nothing of the present Secret — its
// data, or kubectl apply's annotation that copies the data — reaches the
// workspace or the output.
func TestIngressTLSSecretExistence(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	const sentinel = "c2VjcmV0LXNlbnRpbmVsLXZhbHVl" // in the data and the annotation
	c.Create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "web-tls", Namespace: ns, Annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"tls.key":"` + sentinel + `"}}`}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": []byte(sentinel), "tls.key": []byte(sentinel)},
	})
	pathType := networkingv1.PathTypePrefix
	c.Create(t, &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: networkingv1.IngressSpec{
			TLS: []networkingv1.IngressTLS{{Hosts: []string{"web.example.com"}, SecretName: "web-tls"}, {Hosts: []string{"api.example.com"}, SecretName: "api-tls"}},
			Rules: []networkingv1.IngressRule{{Host: "web.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pathType, Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}},
		},
	})
	mark := c.AuditMark()
	r := triage(t, c, ns, "ingress/web")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertReadOnly(t, c, mark)
	dir := onlyWorkspace(t, r.root)
	var info bundle.ClusterInfo
	data, err := os.ReadFile(filepath.Join(dir, "context", "cluster-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.SecretsSeen) != 1 || info.SecretsSeen[0] != ns+"/web-tls" {
		t.Errorf("secretsSeen = %v, want only %s/web-tls", info.SecretsSeen, ns)
	}
	if !strings.Contains(r.stdout, "api-tls") || !strings.Contains(r.stdout, "Secret api-tls not found") {
		t.Errorf("report does not name the absent api-tls Secret:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "Secret web-tls not found") {
		t.Errorf("report calls the present web-tls Secret absent:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, sentinel) {
		t.Error("the Secret's data reached the output")
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), sentinel) {
				t.Errorf("the Secret's data reached %s", p)
			}
		}
		return nil
	})
}
