package pod

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/component-helpers/auth/rbac/validation"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// RBACDenied is the rule pod/rbac-denied.
var RBACDenied = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/rbac-denied",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    []rule.Need{rule.Pods, rule.Events, rule.Logs, rule.ServiceAccounts, rule.RBAC},
		Doc:      "A Kubernetes RBAC denial in a container's log (\"User system:serviceaccount:NS:SA cannot VERB resource …\") checked against the ServiceAccount's RoleBindings, ClusterRoleBindings and their roles: the verb a bound role lacks, a binding in another namespace, or no binding at all.",
	},
	Check: checkRBACDenied,
}

// RBACCategory is the root of a denial found in the logs of a container
// that is not crash-looping (an operator keeps running and retrying).
const RBACCategory rule.Category = "RBAC"

// denialGroup is one ServiceAccount's denials in one scope (a namespace, or
// the cluster scope ""), from one container.
type denialGroup struct {
	sa, saNS, saName string
	scope            string
	denials          []bundle.Denial
}

func checkRBACDenied(c *rule.Pass) []rule.Finding {
	var groups []*denialGroup
	for _, d := range bundle.LogDenials(c.B) {
		var g *denialGroup
		for _, have := range groups {
			if have.sa == d.ServiceAccount && have.scope == d.Namespace && have.denials[0].Pod == d.Pod && have.denials[0].Container == d.Container {
				g = have
			}
		}
		if g == nil {
			ns, name, _ := strings.Cut(d.ServiceAccount, "/")
			g = &denialGroup{sa: d.ServiceAccount, saNS: ns, saName: name, scope: d.Namespace}
			groups = append(groups, g)
		}
		g.denials = append(g.denials, d)
	}
	crashes := c.ResultOf(CrashLoop)
	var out []rule.Finding
	for _, g := range groups {
		p := kube.PodNamed(c, g.denials[0].Pod)
		if p == nil {
			continue
		}
		if f := rbacFinding(c, p, g, crashes); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// verdict is what the RBAC objects say about one group of denials.
type verdict struct {
	class     string   // RoleLacksVerb, OtherNamespace, ClusterScope, NoBinding, Unreadable, Granted
	bindings  []string // "rolebinding shop/app-reader → role app-reader"
	roles     []rbacRole
	elsewhere []string // bindings of the account in other namespaces
	// sibling is a binding in scope whose role grants what was denied, to
	// another ServiceAccount of the same namespace (kind/namespace/name).
	sibling, siblingAccount, siblingRole string
}

type rbacRole struct {
	kind, ns, name string
	rules          []rbacv1.PolicyRule
	aggregated     bool
}

func (r rbacRole) ref() string {
	if r.kind == "Role" {
		return "role " + r.ns + "/" + r.name
	}
	return "clusterrole " + r.name
}

func judge(c *rule.Pass, g *denialGroup) verdict {
	var v verdict
	for _, pr := range c.B.Problems {
		if pr.Forbidden && (strings.HasPrefix(pr.What, "rolebindings") || strings.HasPrefix(pr.What, "clusterrolebindings") ||
			strings.HasPrefix(pr.What, "role ") || strings.HasPrefix(pr.What, "clusterrole ")) {
			v.class = "Unreadable"
			return v
		}
	}
	read := c.B.Cluster.RBACRead
	if !slices.Contains(read, "cluster") || (g.scope != "" && !slices.Contains(read, g.scope)) {
		v.class = "NotRead"
		return v
	}
	roleOf := func(kind, ns, name string) (rbacRole, bool) {
		if kind == "Role" {
			for _, r := range c.B.Roles {
				if r.Namespace == ns && r.Name == name {
					return rbacRole{kind, ns, name, r.Rules, false}, true
				}
			}
			return rbacRole{kind: kind, ns: ns, name: name}, false
		}
		for _, r := range c.B.ClusterRoles {
			if r.Name == name {
				return rbacRole{kind, "", name, r.Rules, r.AggregationRule != nil}, true
			}
		}
		return rbacRole{kind: kind, name: name}, false
	}
	granted := 0
	consider := func(binding string, role rbacRole) {
		v.bindings = append(v.bindings, binding+" → "+role.ref())
		v.roles = append(v.roles, role)
		for _, d := range g.denials {
			if rulesAllow(role.rules, d.Verb, d.Group, d.Resource) {
				granted++
				return
			}
		}
	}
	for _, crb := range c.B.ClusterRoleBindings {
		if bindsAccount(crb.Subjects, "", g) {
			role, _ := roleOf("ClusterRole", "", crb.RoleRef.Name)
			consider("clusterrolebinding "+crb.Name, role)
		}
	}
	for _, rb := range c.B.RoleBindings {
		if !bindsAccount(rb.Subjects, rb.Namespace, g) {
			continue
		}
		if g.scope == "" || rb.Namespace != g.scope {
			v.elsewhere = append(v.elsewhere, fmt.Sprintf("rolebinding %s/%s → %s %s", rb.Namespace, rb.Name, strings.ToLower(rb.RoleRef.Kind), rb.RoleRef.Name))
			continue
		}
		role, _ := roleOf(rb.RoleRef.Kind, rb.Namespace, rb.RoleRef.Name)
		consider("rolebinding "+rb.Namespace+"/"+rb.Name, role)
	}
	if granted == 0 && len(v.bindings) == 0 {
		v.sibling, v.siblingAccount, v.siblingRole = siblingGrant(c, g, roleOf)
	}
	switch {
	case granted > 0:
		v.class = "Granted"
	case len(v.bindings) > 0:
		v.class = "RoleLacksVerb"
	case v.sibling != "":
		v.class = "OtherAccount"
	case len(v.elsewhere) > 0 && g.scope == "":
		v.class = "ClusterScope"
	case len(v.elsewhere) > 0:
		v.class = "OtherNamespace"
	default:
		v.class = "NoBinding"
	}
	return v
}

// siblingGrant finds a binding in the denied scope whose role grants a
// denied request to another ServiceAccount of the account's namespace.
func siblingGrant(c *rule.Pass, g *denialGroup, roleOf func(kind, ns, name string) (rbacRole, bool)) (string, string, string) {
	allows := func(role rbacRole) bool {
		for _, d := range g.denials {
			if rulesAllow(role.rules, d.Verb, d.Group, d.Resource) {
				return true
			}
		}
		return false
	}
	other := func(subjects []rbacv1.Subject, bindingNS string) string {
		for _, s := range subjects {
			sns := s.Namespace
			if sns == "" {
				sns = bindingNS
			}
			if s.Kind == rbacv1.ServiceAccountKind && sns == g.saNS && s.Name != g.saName {
				return sns + "/" + s.Name
			}
		}
		return ""
	}
	for _, crb := range c.B.ClusterRoleBindings {
		if acc := other(crb.Subjects, ""); acc != "" {
			if role, ok := roleOf("ClusterRole", "", crb.RoleRef.Name); ok && allows(role) {
				return "clusterrolebinding " + crb.Name, acc, role.ref()
			}
		}
	}
	for _, rb := range c.B.RoleBindings {
		if g.scope == "" || rb.Namespace != g.scope {
			continue
		}
		if acc := other(rb.Subjects, rb.Namespace); acc != "" {
			if role, ok := roleOf(rb.RoleRef.Kind, rb.Namespace, rb.RoleRef.Name); ok && allows(role) {
				return "rolebinding " + rb.Namespace + "/" + rb.Name, acc, role.ref()
			}
		}
	}
	return "", "", ""
}

func bindsAccount(subjects []rbacv1.Subject, bindingNS string, g *denialGroup) bool {
	for _, s := range subjects {
		if bundle.SubjectIsAccount(s, bindingNS, g.saNS, g.saName) {
			return true
		}
	}
	return false
}

// rulesAllow: the rules cover the request (a verb on a resource or
// subresource of an API group, with no resource name, so a rule limited to
// resourceNames never grants it), by the policy comparison the API server's
// escalation check uses.
func rulesAllow(rules []rbacv1.PolicyRule, verb, group, resource string) bool {
	ok, _ := validation.Covers(rules, []rbacv1.PolicyRule{{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{resource}}})
	return ok
}

// missing is what the group's denials ask for: verbs and resources per API
// group, in the log's order; a list by an informer (client-go's reflector)
// is followed by a watch, so watch joins list.
func (g *denialGroup) missing() (verbs []string, resources []string, rules []map[string]any) {
	perGroup := map[string]*[2][]string{}
	var order []string
	for _, d := range g.denials {
		vs := []string{d.Verb}
		if d.Verb == "list" && (strings.Contains(d.Line, "Failed to list") || strings.Contains(d.Line, "reflector") || strings.Contains(d.Line, "Failed to watch")) {
			vs = append(vs, "watch")
		}
		res := d.Resource
		if d.Group != "" {
			res += "." + d.Group
		}
		resources = kube.AppendUnique(resources, res)
		verbs = kube.AppendUnique(verbs, vs...)
		pg, ok := perGroup[d.Group]
		if !ok {
			pg = &[2][]string{}
			perGroup[d.Group] = pg
			order = append(order, d.Group)
		}
		pg[0] = kube.AppendUnique(pg[0], d.Resource)
		pg[1] = kube.AppendUnique(pg[1], vs...)
	}
	for _, grp := range order {
		rules = append(rules, map[string]any{"apiGroups": []string{grp}, "resources": perGroup[grp][0], "verbs": perGroup[grp][1]})
	}
	return verbs, resources, rules
}

func (g *denialGroup) asked() string {
	var parts []string
	for _, d := range g.denials {
		grp := ""
		if d.Group != "" {
			grp = " (API group " + d.Group + ")"
		}
		parts = kube.AppendUnique(parts, fmt.Sprintf("%s %s%s", d.Verb, d.Resource, grp))
	}
	where := "at the cluster scope"
	if g.scope != "" {
		where = "in namespace " + g.scope
	}
	return strings.Join(parts, ", ") + " " + where
}

func rbacFinding(c *rule.Pass, p *corev1.Pod, g *denialGroup, crashes []rule.Finding) *rule.Finding {
	v := judge(c, g)
	first := g.denials[0]
	ctr := first.Container
	f := rule.Finding{Category: RBACCategory.Sub(logs.Forbidden.String()), Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: p.Name + "/" + ctr,
		Mechanism: "The API server authorizes every request of the pod's ServiceAccount token with RBAC: only the verbs and resources a Role (through a RoleBinding, in that namespace) or a ClusterRole (through a ClusterRoleBinding, everywhere; through a RoleBinding, in its namespace) grants are allowed; anything else is answered 403 Forbidden."}
	var crash *rule.Finding
	for i := range crashes {
		if crashes[i].Subject == f.Subject && strings.Contains(string(crashes[i].Category), "/"+logs.Forbidden.String()) {
			crash = &crashes[i]
		}
	}
	if crash != nil {
		// The denial is the cause whatever the container does with it: the
		// category keeps the RBAC root (docs/DESIGN.md §7, category
		// vocabulary); the crash loop is how it shows.
		f.Evidence, f.Strength = append([]string(nil), crash.Evidence...), rule.Traced
		f.Contributing = append(f.Contributing, fmt.Sprintf("The container stops on the denial: %s (%s).", crash.Title, crash.Category))
		f.Mechanism = crash.Mechanism + " " + f.Mechanism
		f.Contributing = append(f.Contributing, crash.Contributing...)
	}
	// The API server's own words stay in the root cause: they are what a
	// reader searches for.
	f.Contributing = append(f.Contributing, "The log says: "+first.Line)
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Log line (%d denial(s) of serviceaccount %s): %q", len(g.denials), g.sa, first.Line),
		fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), ctr, kube.Instance(first.Previous)), kube.LogsCmd(p, ctr, first.Previous)))
	runsAs := p.Spec.ServiceAccountName
	if runsAs == "" {
		runsAs = "default"
	}
	verbs, resources, rules := g.missing()
	asked := g.asked()
	who := "serviceaccount " + g.sa
	fixName := g.saName + "-access"
	canI := fmt.Sprintf("kubectl auth can-i %s %s --as=system:serviceaccount:%s:%s", first.Verb, strings.TrimSuffix(first.Resource+"."+first.Group, "."), g.saNS, g.saName)
	if g.scope != "" {
		canI += " -n " + g.scope
	} else {
		canI += " --all-namespaces"
	}
	check := report.Action{Kind: report.Check, Description: fmt.Sprintf("Ask the API server what %s may do once the change is made.", who), Commands: []string{canI}}
	createNS := g.scope
	if createNS == "" {
		createNS = g.saNS
	}
	create := report.Action{Kind: report.Immediate}
	if g.scope == "" {
		create.Description = fmt.Sprintf("Grant %s %s at the cluster scope: a ClusterRole with exactly these permissions and a ClusterRoleBinding to the account (a RoleBinding never grants cluster-wide access).", who, strings.Join(verbs, ", ")+" on "+strings.Join(resources, ", "))
		create.Commands = []string{
			fmt.Sprintf("kubectl create clusterrole %s --verb=%s --resource=%s", fixName, strings.Join(verbs, ","), strings.Join(resources, ",")),
			fmt.Sprintf("kubectl create clusterrolebinding %s --clusterrole=%s --serviceaccount=%s:%s", fixName, fixName, g.saNS, g.saName)}
	} else {
		create.Description = fmt.Sprintf("Grant %s %s in namespace %s: a Role there with exactly these permissions and a RoleBinding to the account.", who, strings.Join(verbs, ", ")+" on "+strings.Join(resources, ", "), createNS)
		create.Commands = []string{
			fmt.Sprintf("kubectl create role %s -n %s --verb=%s --resource=%s", fixName, createNS, strings.Join(verbs, ","), strings.Join(resources, ",")),
			fmt.Sprintf("kubectl create rolebinding %s -n %s --role=%s --serviceaccount=%s:%s", fixName, createNS, fixName, g.saNS, g.saName)}
	}
	create.Risk = "grants the account these permissions; grant no more than the application needs"
	bindingEv := func(text string) {
		f.Evidence = append(f.Evidence, c.Evidence(text, "RBAC bindings naming "+who,
			fmt.Sprintf("kubectl get rolebindings,clusterrolebindings -A -o wide | grep %s", g.saName)))
	}
	switch v.class {
	case "Granted":
		// The RBAC read now grants it: the denial is older than a fix, or
		// came from a token of another account. Said as ruled out, so the
		// report does not send the reader to RBAC.
		bindingEv(fmt.Sprintf("Bindings of %s in scope: %s", who, strings.Join(v.bindings, "; ")))
		return &rule.Finding{Category: f.Category.Sub("Granted"), Verdict: report.Refuted, Confidence: rule.Strong, Subject: f.Subject, Evidence: f.Evidence[len(f.Evidence)-2:],
			Hypothesis: fmt.Sprintf("%s lacks the RBAC permission to %s (its log says so, but its bindings grant it now)", upperFirst(who), asked)}
	case "NotRead":
		if crash != nil {
			return nil // the crash finding names the denial; no RBAC was read to say more
		}
		f.Title = fmt.Sprintf("container %s is denied by RBAC: %s cannot %s", ctr, who, asked)
		f.Culprit = fmt.Sprintf("RBAC of %s: missing %s", who, asked)
		f.Confidence = rule.Likely
		f.Contributing = append(f.Contributing, "The ServiceAccount's bindings were not read, so whether a binding exists and lacks the verb is not known.")
		f.Actions = []report.Action{check, create}
	case "Unreadable":
		f.Category = f.Category.Sub("RBACUnreadable")
		f.Title = fmt.Sprintf("container %s is denied by RBAC: %s cannot %s; its bindings could not be read (403), so which Role to change is not known", ctr, who, asked)
		f.Culprit = fmt.Sprintf("RBAC of %s: missing %s (bindings unreadable with the collector's credentials)", who, asked)
		f.Confidence = rule.Likely
		f.Contributing = append(f.Contributing, "The credentials kubectl-triage ran with may not list RoleBindings, ClusterRoleBindings or roles (403 Forbidden): the report cannot say whether a binding exists and lacks the verb, or no binding exists. Ask someone who can read RBAC, or run the check below.")
		f.Actions = []report.Action{check, create}
	case "RoleLacksVerb":
		role := v.roles[0]
		f.Category = f.Category.Sub("RoleLacksVerb")
		bindingEv(fmt.Sprintf("Bindings of %s in scope: %s", who, strings.Join(v.bindings, "; ")))
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("%s rules: %s", upperFirst(role.ref()), rulesText(role.rules)), role.ref(),
			fmt.Sprintf("kubectl get %s %s -o yaml", strings.ToLower(role.kind), nsArg(role))))
		f.Title = fmt.Sprintf("container %s is denied by RBAC: %s cannot %s; it is bound to %s, which does not allow it", ctr, who, asked, role.ref())
		f.Culprit = fmt.Sprintf("%s (bound to %s by %s): no rule allows %s", role.ref(), who, strings.Split(v.bindings[0], " → ")[0], asked)
		f.Confidence = rule.Definitive
		ops := make([]string, 0, len(rules))
		for _, r := range rules {
			data, _ := json.Marshal(r)
			ops = append(ops, `{"op":"add","path":"/rules/-","value":`+string(data)+`}`)
		}
		patch := report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Add the missing rule to %s, the role the account is bound to: %s.", role.ref(), strings.Join(verbs, ", ")+" on "+strings.Join(resources, ", ")),
			Commands:    []string{fmt.Sprintf("kubectl patch %s %s --type=json -p '[%s]'", strings.ToLower(role.kind), nsArg(role), strings.Join(ops, ","))},
			Risk:        "every account bound to this role gets the permission"}
		if role.aggregated {
			patch.Risk += "; this ClusterRole is aggregated, so the controller rewrites its rules: add a ClusterRole labelled for its aggregation instead"
		}
		f.Actions = []report.Action{patch, check}
	case "OtherAccount":
		f.Category = f.Category.Sub("OtherAccount")
		bindingEv(fmt.Sprintf("No binding names %s; %s grants %s to serviceaccount %s", who, v.sibling, v.siblingRole, v.siblingAccount))
		f.Title = fmt.Sprintf("container %s is denied by RBAC: %s cannot %s; %s grants it to serviceaccount %s instead", ctr, who, asked, v.sibling, v.siblingAccount)
		f.Culprit = fmt.Sprintf("%s (%s): its subject is serviceaccount %s, not %s", v.sibling, v.siblingRole, v.siblingAccount, who)
		f.Confidence = rule.Strong
		kindName := strings.Fields(v.sibling)
		nsFlag := ""
		if kindName[0] == "rolebinding" {
			bns, bname, _ := strings.Cut(kindName[1], "/")
			kindName[1], nsFlag = bname, " -n "+bns
		}
		subject := fmt.Sprintf(`{"kind":"ServiceAccount","name":%q,"namespace":%q}`, g.saName, g.saNS)
		f.Actions = []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Add %s as a subject of %s (or run the pod as serviceaccount %s, if that is the account meant for it).", who, v.sibling, v.siblingAccount),
			Commands:    []string{fmt.Sprintf("kubectl patch %s %s%s --type=json -p '[{\"op\":\"add\",\"path\":\"/subjects/-\",\"value\":%s}]'", kindName[0], kindName[1], nsFlag, subject)},
			Risk:        "the account gets everything the bound role grants"}, check}
	case "OtherNamespace":
		f.Category = f.Category.Sub("OtherNamespace")
		bindingEv(fmt.Sprintf("Bindings of %s: %s; none in namespace %s", who, strings.Join(v.elsewhere, "; "), g.scope))
		f.Title = fmt.Sprintf("container %s is denied by RBAC: %s cannot %s; its RoleBinding is in another namespace (%s), and a RoleBinding grants only in its own", ctr, who, asked, strings.Join(v.elsewhere, "; "))
		f.Culprit = fmt.Sprintf("RBAC of %s: no RoleBinding in namespace %s (only %s)", who, g.scope, strings.Join(v.elsewhere, "; "))
		f.Confidence = rule.Strong
		f.Contributing = append(f.Contributing, fmt.Sprintf("If the application should not touch namespace %s at all, fix its configuration (the namespace it watches) instead of granting access.", g.scope))
		f.Actions = []report.Action{create, check}
	case "ClusterScope":
		f.Category = f.Category.Sub("ClusterScope")
		bindingEv(fmt.Sprintf("Bindings of %s: %s; no ClusterRoleBinding", who, strings.Join(v.elsewhere, "; ")))
		f.Title = fmt.Sprintf("container %s is denied by RBAC: %s cannot %s; it has only RoleBindings (%s), which never grant cluster-wide access", ctr, who, asked, strings.Join(v.elsewhere, "; "))
		f.Culprit = fmt.Sprintf("RBAC of %s: no ClusterRoleBinding (only %s)", who, strings.Join(v.elsewhere, "; "))
		f.Confidence = rule.Strong
		f.Contributing = append(f.Contributing, "If the application can work in one namespace, configure it to watch that namespace instead of granting cluster-wide access.")
		f.Actions = []report.Action{create, check}
	default: // NoBinding
		f.Category = f.Category.Sub("NoBinding")
		bindingEv(fmt.Sprintf("No RoleBinding or ClusterRoleBinding names %s", who))
		f.Title = fmt.Sprintf("container %s is denied by RBAC: %s cannot %s, and no RoleBinding or ClusterRoleBinding grants that account anything", ctr, who, asked)
		f.Culprit = fmt.Sprintf("RBAC of %s: no binding grants %s", who, asked)
		f.Confidence = rule.Strong
		f.Actions = []report.Action{create, check}
	}
	if g.sa != p.Namespace+"/"+runsAs {
		f.Contributing = append(f.Contributing, fmt.Sprintf("The pod runs as serviceaccount %s/%s, but the denied account is %s: the application uses another account's token, or the pod should run as that account.", p.Namespace, runsAs, g.sa))
	}
	f.Hypothesis = fmt.Sprintf("%s lacks the RBAC permission to %s", upperFirst(who), asked)
	f.Summary = upperFirst(f.Title) + "."
	if crash != nil {
		f.Summary += " " + crash.Summary
		f.Actions = append(f.Actions, crash.Actions...)
	} else if st := containerStatusNamed(p, ctr); st != nil && st.Ready {
		f.Summary += fmt.Sprintf(" The container keeps running and Ready, so the pod looks healthy; what needs this permission fails (%d distinct denial(s) in its log).", len(g.denials))
	}
	return &f
}

func rulesText(rules []rbacv1.PolicyRule) string {
	if len(rules) == 0 {
		return "none (or the role was not readable)"
	}
	var parts []string
	for _, r := range rules {
		groups := make([]string, len(r.APIGroups))
		for i, g := range r.APIGroups {
			groups[i] = fmt.Sprintf("%q", g)
		}
		parts = append(parts, fmt.Sprintf("%s on %s (groups %s)", strings.Join(r.Verbs, ","), strings.Join(r.Resources, ","), strings.Join(groups, ",")))
	}
	return strings.Join(parts, "; ")
}

func nsArg(r rbacRole) string {
	if r.kind == "Role" {
		return r.name + " -n " + r.ns
	}
	return r.name
}
