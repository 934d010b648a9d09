package network

import (
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestIngressClass: the class an Ingress names must exist; one that names
// none needs a default class; a class list the collector could not read
// gives no verdict.
func TestIngressClass(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	str := func(s string) *string { return &s }
	nginx := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	dflt := nginx.DeepCopy()
	dflt.Annotations = map[string]string{annIngressClassDefault: "true"}
	target := func(class *string, classes []*networkingv1.IngressClass, problems ...bundle.Problem) *bundle.Bundle {
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "shop", UID: "i1"}, Spec: networkingv1.IngressSpec{IngressClassName: class}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: "shop", Namespace: "shop", UID: "i1"},
			Ingresses: []*networkingv1.Ingress{ing}, IngressClasses: classes, Problems: problems}
	}
	for _, tt := range []struct {
		name    string
		b       *bundle.Bundle
		want    rule.Category // validated root; "" for none
		refuted bool
	}{
		{"class missing", target(str("nginx-internal"), []*networkingv1.IngressClass{nginx}), rule.Ingress.Sub("Class", "Missing"), false},
		{"class exists", target(str("nginx"), []*networkingv1.IngressClass{nginx}), "", true},
		{"no class, no default", target(nil, []*networkingv1.IngressClass{nginx}), rule.Ingress.Sub("Class", "NoDefault"), false},
		{"no class, a default", target(nil, []*networkingv1.IngressClass{dflt}), "", true},
		{"classes unreadable", target(str("nginx-internal"), nil, bundle.Problem{What: "ingress classes", Error: "forbidden"}), "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := ruletest.Run(IngressClass, tt.b, now)
			root := ruletest.Root(fs)
			switch {
			case tt.want == "" && root != nil:
				t.Errorf("validated %q", root.Category)
			case tt.want != "" && (root == nil || root.Category != tt.want):
				t.Errorf("root %+v, want %q", root, tt.want)
			}
			refuted := len(fs) == 1 && fs[0].Verdict == report.Refuted
			if refuted != tt.refuted {
				t.Errorf("refuted = %v, want %v: %+v", refuted, tt.refuted, fs)
			}
		})
	}
}
