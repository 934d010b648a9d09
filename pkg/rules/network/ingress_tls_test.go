package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestIngressTLS: a spec.tls secretName is known absent from the metadata
// read that found no such Secret (Definitive), or from the controller's own
// event; an event about another secret, a wrong-type secret or an ordinary
// sync proves nothing, nor does a Secret seen or another one missing.
func TestIngressTLS(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	target := func(secret, reason, component, msg string) *bundle.Bundle {
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "cafe-ingress", Namespace: "cafe", UID: "i1"},
			Spec: networkingv1.IngressSpec{TLS: []networkingv1.IngressTLS{{Hosts: []string{"cafe.example.com"}, SecretName: secret}}}}
		b := &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: ing.Name, Namespace: "cafe", UID: "i1"}, Ingresses: []*networkingv1.Ingress{ing}}
		if msg != "" {
			b.Events = []corev1.Event{{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "cafe"}, Type: corev1.EventTypeWarning, Reason: reason, Message: msg, Count: 4,
				Source:         corev1.EventSource{Component: component},
				InvolvedObject: corev1.ObjectReference{Kind: "Ingress", Namespace: "cafe", Name: ing.Name, UID: "i1"}, LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}}
		}
		return b
	}
	for _, tt := range []struct {
		name string
		b    *bundle.Bundle
		want bool
	}{
		// NGINX Inc's controller: internal/configs/ingress.go's warning as
		// the AddedOrUpdatedWithWarning event, wording from
		// https://github.com/nginx/kubernetes-ingress/issues/1448
		{"nginx inc: secret doesn't exist", target("cafe-secret", "AddedOrUpdatedWithWarning", "nginx-ingress-controller",
			"Configuration for cafe/cafe-ingress was added or updated ; with warning(s): TLS secret cafe-secret is invalid: secret doesn't exist or of an unsupported type"), true},
		// ingress-gce's Sync warning, https://github.com/kubernetes/ingress-gce/issues/1334
		// (there for an empty name; here for a named one).
		{"ingress-gce: secret does not exist", target("web-ssl", "Sync", "loadbalancer-controller",
			`Error syncing to GCP: error running load balancer syncing routine: error getting secrets for Ingress: secret "web-ssl" does not exist`), true},
		{"namespace/name form", target("grafana-tls", "TLSError", "traefik", "secret cafe/grafana-tls not found"), true},
		{"another secret is missing", target("cafe-secret", "Sync", "loadbalancer-controller", `error getting secrets for Ingress: secret "cafe-secret-old" does not exist`), false},
		{"wrong type is not absent", target("cafe-secret", "AddedOrUpdatedWithWarning", "nginx-ingress-controller",
			"Configuration for cafe/cafe-ingress was added or updated ; with warning(s): TLS secret cafe-secret is of a wrong type 'Opaque', must be 'kubernetes.io/tls'"), false},
		{"ordinary sync", target("grafana-tls", "Sync", "nginx-ingress-controller", "Scheduled for sync"), false},
		{"no event", target("grafana-tls", "", "", ""), false},
		{"metadata read: not found", missing(target("grafana-tls", "", "", ""), "cafe", "grafana-tls"), true},
		{"metadata read: another namespace's", missing(target("grafana-tls", "", "", ""), "prod", "grafana-tls"), false},
		{"metadata read: found", seen(target("grafana-tls", "", "", ""), "cafe/grafana-tls"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := ruletest.Root(ruletest.Run(IngressTLS, tt.b, now))
			if got := root != nil; got != tt.want {
				t.Fatalf("validated = %v, want %v: %+v", got, tt.want, root)
			}
			if root == nil {
				return
			}
			if root.Category != rule.Ingress.Sub("TLS", "SecretMissing") || !strings.Contains(root.Culprit, tt.b.Ingresses[0].Spec.TLS[0].SecretName) {
				t.Errorf("category %q culprit %q", root.Category, root.Culprit)
			}
		})
	}
}

func missing(b *bundle.Bundle, ns, name string) *bundle.Bundle {
	b.Missing = append(b.Missing, bundle.MissingRef{Kind: "Secret", Namespace: ns, Name: name, ReferencedBy: "ingress/cafe-ingress .spec.tls[0].secretName"})
	return b
}

func seen(b *bundle.Bundle, key string) *bundle.Bundle {
	b.Cluster.SecretsSeen = append(b.Cluster.SecretsSeen, key)
	return b
}

// TestSplitTLS: a TLS host in an entry without a secretName, next to an
// entry naming a Secret for no host, is one entry written as two
// (https://github.com/kubernetes/ingress-nginx/issues/1641); a host with
// its Secret, or an entry left to the default certificate on purpose with
// no Secret elsewhere, is not.
func TestSplitTLS(t *testing.T) {
	for _, tt := range []struct {
		name string
		tls  []networkingv1.IngressTLS
		want bool
	}{
		{"split", []networkingv1.IngressTLS{{SecretName: "mytls"}, {Hosts: []string{"myhost.ex.net"}}}, true},
		{"one entry", []networkingv1.IngressTLS{{Hosts: []string{"myhost.ex.net"}, SecretName: "mytls"}}, false},
		{"default certificate on purpose", []networkingv1.IngressTLS{{Hosts: []string{"myhost.ex.net"}}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "myapp", Namespace: "web", UID: "i1"}, Spec: networkingv1.IngressSpec{TLS: tt.tls}}
			fs := ruletest.Run(IngressTLS, &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: "myapp", Namespace: "web", UID: "i1"}, Ingresses: []*networkingv1.Ingress{ing}}, time.Now())
			if got := len(fs) == 1 && string(fs[0].Category) == "Ingress/TLS/HostWithoutSecret"; got != tt.want {
				t.Fatalf("findings %+v, want split %v", fs, tt.want)
			}
			if tt.want && (!strings.Contains(fs[0].Culprit, "myhost.ex.net") || !strings.Contains(fs[0].Culprit, "mytls")) {
				t.Errorf("culprit %q", fs[0].Culprit)
			}
		})
	}
}
