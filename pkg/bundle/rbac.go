package bundle

import (
	"context"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// Bounds of the RBAC reads: a few namespaces, bounded lists, the roles of
// the bindings that name the account.
const (
	maxRBACNamespaces   = 3
	maxRoleBindings     = 250
	maxClusterBindings  = 500
	maxReferencedRoles  = 6
	rbacDenialLineBytes = 4096
)

// Denial is an RBAC denial a container's log holds, with the container.
type Denial struct {
	applog.Forbidden
	Pod, Container string
	Line           string // the log line, unescaped
	Previous       bool
}

// LogDenials are the Kubernetes RBAC denials of ServiceAccounts in the
// collected logs, each (account, verb, resource, namespace) once, in log
// order. The API server's wording arrives wrapped by client-go, the Python
// and Java clients, often inside JSON with escaped quotes: those are
// unescaped first.
func LogDenials(b *Bundle) []Denial {
	var out []Denial
	seen := map[string]bool{}
	for _, l := range b.Logs {
		if l.Error != "" || !strings.Contains(l.Text, "forbidden") && !strings.Contains(l.Text, "Forbidden") {
			continue
		}
		for _, line := range strings.Split(l.Text, "\n") {
			if !strings.Contains(line, "cannot ") || !strings.Contains(line, "User ") {
				continue
			}
			if len(line) > rbacDenialLineBytes {
				line = line[:rbacDenialLineBytes]
			}
			_, line = applog.SplitTimestamp(line)
			line = strings.NewReplacer(`\\\"`, `"`, `\"`, `"`).Replace(line)
			for _, f := range applog.Extract(line).Forbidden {
				if !strings.Contains(f.ServiceAccount, "/") || f.Path != "" {
					continue
				}
				key := strings.Join([]string{f.ServiceAccount, f.Verb, f.Resource, f.Group, f.Namespace}, "|")
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, Denial{Forbidden: f, Pod: l.Pod, Container: l.Container, Line: strings.TrimSpace(line), Previous: l.Previous})
			}
		}
	}
	return out
}

// SubjectIsAccount reports whether an RBAC subject of a binding in
// bindingNS covers ServiceAccount ns/name: the account itself, or a group
// every ServiceAccount (of its namespace) is in.
func SubjectIsAccount(s rbacv1.Subject, bindingNS, ns, name string) bool {
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		sns := s.Namespace
		if sns == "" {
			sns = bindingNS
		}
		return s.Name == name && sns == ns
	case rbacv1.GroupKind:
		return s.Name == "system:serviceaccounts" || s.Name == "system:serviceaccounts:"+ns || s.Name == "system:authenticated"
	}
	return false
}

// rbac reads the RBAC around the ServiceAccounts the logs show denied, and
// nothing when no log denies one: a pod without a denial costs no request.
func (c *collector) rbac(ctx context.Context) {
	c.mu.Lock()
	denials := LogDenials(c.b)
	c.mu.Unlock()
	if len(denials) == 0 {
		return
	}
	var namespaces []string
	accounts, scopes := map[string]bool{}, map[string]bool{}
	for _, d := range denials {
		accounts[d.ServiceAccount] = true
		scopes[d.Namespace] = true
		saNS, _, _ := strings.Cut(d.ServiceAccount, "/")
		for _, ns := range []string{d.Namespace, saNS} {
			if ns != "" && !slices.Contains(namespaces, ns) && len(namespaces) < maxRBACNamespaces {
				namespaces = append(namespaces, ns)
			}
		}
	}
	// A binding counts when it names the account, or a group of accounts
	// unless it is one of the API server's own (system:…), which grant
	// discovery URLs only and would cost a role read each.
	// A binding naming another ServiceAccount of the account's namespace
	// is kept too: granting to "default" instead of the account the pod
	// runs as is a common slip (GoogleCloudPlatform/gke-autoneg-controller#64).
	names := func(binding string, subjects []rbacv1.Subject, bindingNS string) bool {
		for _, s := range subjects {
			for acc := range accounts {
				ns, name, _ := strings.Cut(acc, "/")
				if SubjectIsAccount(s, bindingNS, ns, name) && (s.Kind == rbacv1.ServiceAccountKind || !strings.HasPrefix(binding, "system:")) {
					return true
				}
				if s.Kind == rbacv1.ServiceAccountKind && (s.Namespace == ns || s.Namespace == "" && bindingNS == ns) {
					return true
				}
			}
		}
		return false
	}
	direct := func(subjects []rbacv1.Subject, bindingNS string) bool {
		for _, s := range subjects {
			for acc := range accounts {
				ns, name, _ := strings.Cut(acc, "/")
				if SubjectIsAccount(s, bindingNS, ns, name) {
					return true
				}
			}
		}
		return false
	}
	tasks := []func(){func() {
		c.count()
		list, err := c.cs.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{Limit: maxClusterBindings})
		if err != nil {
			c.problem("clusterrolebindings", err)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.b.Cluster.RBACRead = append(c.b.Cluster.RBACRead, "cluster")
		for i := range list.Items {
			if names(list.Items[i].Name, list.Items[i].Subjects, "") {
				list.Items[i].ManagedFields = nil
				c.b.ClusterRoleBindings = append(c.b.ClusterRoleBindings, &list.Items[i])
			}
		}
	}}
	for _, ns := range namespaces {
		tasks = append(tasks, func() {
			c.count()
			list, err := c.cs.RbacV1().RoleBindings(ns).List(ctx, metav1.ListOptions{Limit: maxRoleBindings})
			if err != nil {
				c.problem("rolebindings of "+ns, err)
				return
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			c.b.Cluster.RBACRead = append(c.b.Cluster.RBACRead, ns)
			for i := range list.Items {
				if names(list.Items[i].Name, list.Items[i].Subjects, ns) {
					list.Items[i].ManagedFields = nil
					c.b.RoleBindings = append(c.b.RoleBindings, &list.Items[i])
				}
			}
		})
	}
	c.fanOut(ctx, len(tasks), func(i int) { tasks[i]() })

	// The roles those bindings grant, each once.
	type ref struct{ kind, ns, name string }
	var refs []ref
	add := func(r ref) {
		if !slices.Contains(refs, r) && len(refs) < maxReferencedRoles {
			refs = append(refs, r)
		}
	}
	// The account's own bindings first, then its neighbours'.
	for _, own := range []bool{true, false} {
		for _, crb := range c.b.ClusterRoleBindings {
			if direct(crb.Subjects, "") == own {
				add(ref{"ClusterRole", "", crb.RoleRef.Name})
			}
		}
		for _, rb := range c.b.RoleBindings {
			if !scopes[rb.Namespace] || direct(rb.Subjects, rb.Namespace) != own {
				continue // a binding in another namespace grants nothing where the request was denied
			}
			if rb.RoleRef.Kind == "Role" {
				add(ref{"Role", rb.Namespace, rb.RoleRef.Name})
			} else {
				add(ref{"ClusterRole", "", rb.RoleRef.Name})
			}
		}
	}
	c.fanOut(ctx, len(refs), func(i int) {
		r := refs[i]
		c.count()
		if r.kind == "Role" {
			role, err := c.cs.RbacV1().Roles(r.ns).Get(ctx, r.name, metav1.GetOptions{})
			if err != nil {
				c.problem("role "+r.ns+"/"+r.name, err)
				return
			}
			role.ManagedFields = nil
			c.mu.Lock()
			c.b.Roles = append(c.b.Roles, role)
			c.mu.Unlock()
			return
		}
		role, err := c.cs.RbacV1().ClusterRoles().Get(ctx, r.name, metav1.GetOptions{})
		if err != nil {
			c.problem("clusterrole "+r.name, err)
			return
		}
		role.ManagedFields = nil
		c.mu.Lock()
		c.b.ClusterRoles = append(c.b.ClusterRoles, role)
		c.mu.Unlock()
	})
	sort.Strings(c.b.Cluster.RBACRead)
	sort.Slice(c.b.RoleBindings, func(i, j int) bool {
		return c.b.RoleBindings[i].Namespace+"/"+c.b.RoleBindings[i].Name < c.b.RoleBindings[j].Namespace+"/"+c.b.RoleBindings[j].Name
	})
	sort.Slice(c.b.ClusterRoleBindings, func(i, j int) bool { return c.b.ClusterRoleBindings[i].Name < c.b.ClusterRoleBindings[j].Name })
	sort.Slice(c.b.Roles, func(i, j int) bool {
		return c.b.Roles[i].Namespace+"/"+c.b.Roles[i].Name < c.b.Roles[j].Namespace+"/"+c.b.Roles[j].Name
	})
	sort.Slice(c.b.ClusterRoles, func(i, j int) bool { return c.b.ClusterRoles[i].Name < c.b.ClusterRoles[j].Name })
}
