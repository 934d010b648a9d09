package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestRBACDenied: a denial in a running operator's log, in the API server's
// wording as client-go's reflector logs it, checked against the bindings
// and roles the collector read. Log lines: rancher/rancher#20963 (a
// namespace the account has no RoleBinding in), giantswarm/prometheus#142
// (cluster scope), vmware-archive/kubewatch#95 (old wording, default SA).
func TestRBACDenied(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	nsLine := `level=error ts=2019-09-17T10:52:34.848535733Z caller=klog.go:94 component=k8s_client_runtime func=ErrorDepth msg="/app/discovery/kubernetes/kubernetes.go:301: Failed to list *v1.Service: services is forbidden: User \"system:serviceaccount:shop:monitor\" cannot list resource \"services\" in API group \"\" in the namespace \"default\""` + "\n"
	ownNSLine := strings.ReplaceAll(nsLine, `in the namespace \"default\"`, `in the namespace \"shop\"`)
	clusterLine := `E0815 13:42:36.847815 1 reflector.go:199] vendor/k8s.io/client-go/tools/cache/reflector.go:94: Failed to list *v1.Service: services is forbidden: User "system:serviceaccount:shop:monitor" cannot list resource "services" in API group "" at the cluster scope` + "\n"
	sa := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "monitor", Namespace: "shop"}}
	podsOnly := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "monitor", Namespace: "shop"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}}}
	withServices := podsOnly.DeepCopy()
	withServices.Rules[0].Resources = append(withServices.Rules[0].Resources, "services")
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "monitor", Namespace: "shop"}, Subjects: sa, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "monitor"}}
	for _, tt := range []struct {
		name, log string
		read      []string
		roles     []*rbacv1.Role
		rbs       []*rbacv1.RoleBinding
		problems  []bundle.Problem
		category  string // "" when silent
		culprit   []string
		fix       string
	}{
		{"bound role lacks the resource", ownNSLine, []string{"cluster", "shop"}, []*rbacv1.Role{podsOnly}, []*rbacv1.RoleBinding{rb},
			nil, "RBAC/Forbidden/RoleLacksVerb", []string{"role shop/monitor", "rolebinding shop/monitor", "list services in namespace shop"},
			`kubectl patch role monitor -n shop --type=json -p '[{"op":"add","path":"/rules/-","value":{"apiGroups":[""],"resources":["services"],"verbs":["list","watch"]}}]'`},
		{"bound role grants it now", ownNSLine, []string{"cluster", "shop"}, []*rbacv1.Role{withServices}, []*rbacv1.RoleBinding{rb}, nil, "refuted", nil, ""},
		{"binding in another namespace", nsLine, []string{"cluster", "default", "shop"}, []*rbacv1.Role{withServices}, []*rbacv1.RoleBinding{rb},
			nil, "RBAC/Forbidden/OtherNamespace", []string{"no RoleBinding in namespace default", "rolebinding shop/monitor"},
			"kubectl create rolebinding monitor-access -n default --role=monitor-access --serviceaccount=shop:monitor"},
		{"cluster scope with a RoleBinding only", clusterLine, []string{"cluster", "shop"}, []*rbacv1.Role{withServices}, []*rbacv1.RoleBinding{rb},
			nil, "RBAC/Forbidden/ClusterScope", []string{"no ClusterRoleBinding"}, "kubectl create clusterrolebinding monitor-access --clusterrole=monitor-access --serviceaccount=shop:monitor"},
		{"no binding at all", clusterLine, []string{"cluster", "shop"}, nil, nil,
			nil, "RBAC/Forbidden/NoBinding", []string{"no binding grants list services at the cluster scope"}, "kubectl create clusterrole monitor-access --verb=list,watch --resource=services"},
		{"bindings unreadable", clusterLine, nil, nil, nil,
			[]bundle.Problem{{What: "clusterrolebindings", Error: "clusterrolebindings.rbac.authorization.k8s.io is forbidden", Forbidden: true}},
			"RBAC/Forbidden/RBACUnreadable", []string{"bindings unreadable"}, "kubectl auth can-i list services --as=system:serviceaccount:shop:monitor --all-namespaces"},
		{"RBAC not read", clusterLine, nil, nil, nil, nil, "RBAC/Forbidden", []string{"missing list services"}, "kubectl auth can-i"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "prom/prometheus:v2.12.0"})
			p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
			p.Spec.ServiceAccountName = "monitor"
			b := envBundle(p, tt.log)
			b.Logs[0].Previous = false
			b.Cluster.RBACRead, b.Roles, b.RoleBindings, b.Problems = tt.read, tt.roles, tt.rbs, tt.problems
			fs := ruletest.Run(RBACDenied, b, now)
			if tt.category == "refuted" {
				if len(fs) != 1 || fs[0].Verdict != report.Refuted || ruletest.Root(fs) != nil {
					t.Fatalf("want one refuted finding, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || string(fs[0].Category) != tt.category {
				t.Fatalf("findings %+v, want one %s", fs, tt.category)
			}
			for _, want := range tt.culprit {
				if !strings.Contains(fs[0].Culprit, want) {
					t.Errorf("culprit %q lacks %q", fs[0].Culprit, want)
				}
			}
			var cmds []string
			for _, a := range fs[0].Actions {
				cmds = append(cmds, a.Commands...)
			}
			if !strings.Contains(strings.Join(cmds, "\n"), tt.fix) {
				t.Errorf("commands\n%s\nlack %s", strings.Join(cmds, "\n"), tt.fix)
			}
		})
	}
}

// TestRBACDeniedOtherAccount: the ClusterRoleBinding grants the verb to
// the namespace's default ServiceAccount while the pod runs as another one
// (GoogleCloudPlatform/gke-autoneg-controller#64); the fix adds the account
// as a subject of that binding.
func TestRBACDeniedOtherAccount(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	log := `E0727 18:09:24.847396       1 reflector.go:126] pkg/mod/k8s.io/client-go@v11.0.1-0.20190409021438-1a26190bd76a+incompatible/tools/cache/reflector.go:94: Failed to list *v1.Service: services is forbidden: User "system:serviceaccount:autoneg-system:autoneg" cannot list resource "services" in API group "" at the cluster scope` + "\n"
	p := envPod(corev1.Container{Name: "manager", Image: "gcr.io/gke-release/autoneg-controller:v0.9.7"})
	p.Namespace, p.Spec.ServiceAccountName = "autoneg-system", "autoneg"
	p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "manager", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	b := envBundle(p, log)
	b.Logs[0].Previous, b.Logs[0].Namespace = false, "autoneg-system"
	b.Cluster.RBACRead = []string{"autoneg-system", "cluster"}
	b.ClusterRoleBindings = []*rbacv1.ClusterRoleBinding{{ObjectMeta: metav1.ObjectMeta{Name: "autoneg-manager-rolebinding"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: "autoneg-system"}},
		RoleRef:  rbacv1.RoleRef{Kind: "ClusterRole", Name: "autoneg-manager-role"}}}
	b.ClusterRoles = []*rbacv1.ClusterRole{{ObjectMeta: metav1.ObjectMeta{Name: "autoneg-manager-role"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch", "update", "patch"}}}}}
	fs := ruletest.Run(RBACDenied, b, now)
	if len(fs) != 1 || fs[0].Category != "RBAC/Forbidden/OtherAccount" {
		t.Fatalf("findings %+v, want one RBAC/Forbidden/OtherAccount", fs)
	}
	if !strings.Contains(fs[0].Culprit, "clusterrolebinding autoneg-manager-rolebinding") || !strings.Contains(fs[0].Culprit, "serviceaccount autoneg-system/default") {
		t.Errorf("culprit %q", fs[0].Culprit)
	}
	want := `kubectl patch clusterrolebinding autoneg-manager-rolebinding --type=json -p '[{"op":"add","path":"/subjects/-","value":{"kind":"ServiceAccount","name":"autoneg","namespace":"autoneg-system"}}]'`
	if got := fs[0].Actions[0].Commands[0]; got != want {
		t.Errorf("fix\n%s\nwant\n%s", got, want)
	}
}

// TestRulesAllow: what a role's rules grant a request with no resource
// name, as the RBAC authorizer matches it.
func TestRulesAllow(t *testing.T) {
	rule := func(verbs, groups, resources, names []string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}}
	}
	s := func(v ...string) []string { return v }
	for _, tt := range []struct {
		name                  string
		rules                 []rbacv1.PolicyRule
		verb, group, resource string
		want                  bool
	}{
		{"exact", rule(s("list", "watch"), s(""), s("pods"), nil), "list", "", "pods", true},
		{"another verb", rule(s("get"), s(""), s("pods"), nil), "list", "", "pods", false},
		{"another group", rule(s("list"), s("apps"), s("pods"), nil), "list", "", "pods", false},
		{"wildcards", rule(s("*"), s("*"), s("*"), nil), "delete", "apps", "deployments", true},
		{"subresource wildcard", rule(s("get"), s(""), s("*/log"), nil), "get", "", "pods/log", true},
		{"the resource does not grant its subresource", rule(s("get"), s(""), s("pods"), nil), "get", "", "pods/log", false},
		{"limited to names", rule(s("list"), s(""), s("configmaps"), s("app-config")), "list", "", "configmaps", false},
	} {
		if got := rulesAllow(tt.rules, tt.verb, tt.group, tt.resource); got != tt.want {
			t.Errorf("%s: rulesAllow = %v, want %v", tt.name, got, tt.want)
		}
	}
}
