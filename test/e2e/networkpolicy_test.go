package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// TestNetworkPolicyBlocksDNS: a pod that runs and looks Ready, whose app
// cannot resolve its database because a deny-all egress policy in its
// namespace drops its DNS queries, is triaged to that policy — the API
// server stores NetworkPolicies without a CNI, so the policy is real; the
// app's words are what a Python/libpq client prints. The fix the report
// proposes is a JSON patch the real API server accepts, after which the
// policy admits DNS and the finding is gone. The namespace's policies cost
// one list request, and the whole one-pod triage stays within 15.
func TestNetworkPolicyBlocksDNS(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	pod := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: ns, Labels: map[string]string{"app": "orders"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/orders:1.4",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}}}}}})
	pod.Status = wlReadyStatus("app", "registry.example/orders:1.4", 20*time.Minute)
	c.SetStatus(t, pod)
	c.SetLogs(ns, "orders", "app", false, strings.Join([]string{
		"[2026-11-26 11:02:13 +0000] [1] [INFO] Starting gunicorn 22.0.0",
		"[2026-11-26 11:02:13 +0000] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)",
		`psycopg2.OperationalError: could not translate host name "postgres.data.svc.cluster.local" to address: Temporary failure in name resolution`,
	}, "\n")+"\n")
	// A policy for other pods, and one admitting ingress on the app's port:
	// neither is the cause.
	c.Create(t, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web-egress", Namespace: ns},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}})
	c.Create(t, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "orders-ingress", Namespace: ns},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "orders"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{}}}})
	c.Create(t, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny-egress", Namespace: ns},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}})

	if r := triage(t, c, ns, "pod/orders"); r.code != 0 { // warm discovery for this cache dir
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	mark := c.AuditMark()
	r := triage(t, c, ns, "pod/orders")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	objects, policyLists := 0, 0
	for _, e := range c.AuditSince(t, mark, c.UserName) {
		if e.Resource != "" {
			objects++
		}
		if e.Resource == "networkpolicies" {
			policyLists++
			if e.Verb != "list" || !strings.Contains(e.RequestURI, "limit=") {
				t.Errorf("network policies read other than by one bounded list: %s %s", e.Verb, e.RequestURI)
			}
		}
	}
	if objects > 15 || policyLists != 1 {
		t.Errorf("one-pod triage made %d object requests (want ≤ 15) and %d network policy lists (want 1)", objects, policyLists)
	}
	t.Logf("%d object requests", objects)

	dir := onlyWorkspace(t, r.root)
	if m, _ := filepath.Glob(filepath.Join(dir, "context", "resources", "*default-deny-egress*")); len(m) != 1 {
		t.Errorf("context/resources lacks the policy: %v", m)
	}
	rep := readReportJSON(t, dir)
	if rep.RootCause.Category != "NetworkPolicy/Egress/DNS" || !strings.Contains(rep.RootCause.Culprit, "default-deny-egress") {
		t.Fatalf("root cause %q (%s), culprit %q; want the DNS egress blocked by default-deny-egress", rep.RootCause.Category, rep.Title, rep.RootCause.Culprit)
	}
	var fix string
	for _, a := range rep.Actions {
		for _, cmd := range a.Commands {
			if strings.HasPrefix(cmd, "kubectl patch networkpolicy default-deny-egress ") {
				fix = cmd
			}
		}
	}
	m := regexp.MustCompile(`--type=json -p '([^']+)'`).FindStringSubmatch(fix)
	if m == nil {
		t.Fatalf("no fix patching the policy among %+v", rep.Actions)
	}
	// The proposed patch, applied as an administrator would.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Client.NetworkingV1().NetworkPolicies(ns).Patch(ctx, "default-deny-egress", types.JSONPatchType, []byte(m[1]), metav1.PatchOptions{}); err != nil {
		t.Fatalf("the API server refuses the proposed fix %s: %v", fix, err)
	}
	r = triage(t, c, ns, "pod/orders")
	if rep := readReportJSON(t, onlyWorkspace(t, r.root)); strings.HasPrefix(rep.RootCause.Category, "NetworkPolicy") {
		t.Errorf("after the fix the policy is still blamed: %s", rep.Title)
	}
}

// TestServiceNearMissFlat: a Ready pod no Service selects is tied to the
// Service whose selector is one character off its label, from one bounded
// list of the namespace's Services — whose events are not read, so forty
// more Services cost no request.
func TestServiceNearMissFlat(t *testing.T) {
	c := testcluster.Get(t)
	setup := func(extra int) string {
		ns := c.Namespace(t)
		pod := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: ns, Labels: map[string]string{"app": "checkout", "tier": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/checkout:2.0"}}}})
		pod.Status = wlReadyStatus("app", "registry.example/checkout:2.0", 10*time.Minute)
		c.SetStatus(t, pod)
		svc := func(name string, sel map[string]string) {
			c.Create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: corev1.ServiceSpec{Selector: sel, Ports: []corev1.ServicePort{{Port: 80}}}})
		}
		svc("checkout", map[string]string{"app": "chekout", "tier": "web"})
		for i := 0; i < extra; i++ {
			svc(fmt.Sprintf("other-%02d", i), map[string]string{"app": fmt.Sprintf("other-%02d", i)})
		}
		return ns
	}
	count := func(ns string) (int, *report.Report) {
		if r := triage(t, c, ns, "pod/checkout"); r.code != 0 { // warm discovery
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		mark := c.AuditMark()
		r := triage(t, c, ns, "pod/checkout")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		n := 0
		for _, e := range c.AuditSince(t, mark, c.UserName) {
			if e.Resource != "" {
				n++
			}
		}
		return n, readReportJSON(t, onlyWorkspace(t, r.root))
	}
	few, rep := count(setup(0))
	many, rep2 := count(setup(40))
	for _, r := range []*report.Report{rep, rep2} {
		if r.RootCause.Category != "Service/SelectorMismatch/NearMiss" || !strings.Contains(r.RootCause.Culprit, "app=chekout") {
			t.Errorf("root cause %q (%s), culprit %q; want service checkout's near-miss selector", r.RootCause.Category, r.Title, r.RootCause.Culprit)
		}
	}
	if few != many || many > 15 {
		t.Errorf("object requests: %d with one Service, %d with 41 (want equal, ≤ 15)", few, many)
	}
	t.Logf("%d object requests either way", few)
}
