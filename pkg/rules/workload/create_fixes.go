package workload

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

var quotedNames = regexp.MustCompile(`containers? "(?P<name>[^"]+)"`)

var webhookHost = regexp.MustCompile(`https://(?P<host>[a-z0-9.-]+\.svc)(?::\d+)?`)

// splitTopLevel splits "a (x, y), b, c (z)" on commas outside parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// podSecurityPatch builds the strategic-merge patch of a pod spec that
// fixes the restricted-profile violations Pod Security names.
func podSecurityPatch(reasons, containers []string) string {
	pod := map[string]string{}
	ctr := map[string]string{}
	for _, r := range reasons {
		switch r {
		case "allowPrivilegeEscalation != false":
			ctr["allowPrivilegeEscalation"] = "false"
		case "unrestricted capabilities":
			ctr["capabilities"] = `{"drop":["ALL"]}`
		case "runAsNonRoot != true":
			pod["runAsNonRoot"] = "true"
		case "seccompProfile":
			pod["seccompProfile"] = `{"type":"RuntimeDefault"}`
		case "privileged":
			ctr["privileged"] = "false"
		}
	}
	if len(pod) == 0 && len(ctr) == 0 {
		return ""
	}
	obj := func(m map[string]string) string {
		var parts []string
		for _, k := range kube.SortedKeys(m) {
			parts = append(parts, fmt.Sprintf("%q:%s", k, m[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	var parts []string
	if len(pod) > 0 {
		parts = append(parts, `"securityContext":`+obj(pod))
	}
	if len(ctr) > 0 && len(containers) > 0 {
		var cs []string
		for _, name := range containers {
			cs = append(cs, fmt.Sprintf(`{"name":%q,"securityContext":%s}`, name, obj(ctr)))
		}
		parts = append(parts, `"containers":[`+strings.Join(cs, ",")+`]`)
	}
	if len(parts) == 0 {
		return ""
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// templateAmounts says what one pod of the template asks for of the quota's
// resource names ("limits.memory 2Gi (container app 2Gi)").
func templateAmounts(t *corev1.PodTemplateSpec, names []string) string {
	var out []string
	for _, n := range names {
		kind, res, ok := strings.Cut(n, ".")
		if !ok {
			if n == "pods" {
				out = append(out, "1 pod")
			}
			continue
		}
		total := resource.Quantity{}
		var per []string
		for _, ctr := range t.Spec.Containers {
			list := ctr.Resources.Requests
			if kind == "limits" {
				list = ctr.Resources.Limits
			}
			if q, ok := list[corev1.ResourceName(res)]; ok {
				total.Add(q)
				per = append(per, fmt.Sprintf("container %s %s", ctr.Name, q.String()))
			}
		}
		if len(per) > 0 {
			out = append(out, fmt.Sprintf("%s %s (%s)", n, total.String(), strings.Join(per, ", ")))
		}
	}
	return strings.Join(out, ", ")
}

// setResourcesCmd proposes `kubectl set resources` for the quota's resources.
func setResourcesCmd(w kube.Workload, t *corev1.PodTemplateSpec, names []string) string {
	var reqs, lims []string
	for _, n := range names {
		kind, res, ok := strings.Cut(n, ".")
		if !ok {
			continue
		}
		if kind == "limits" {
			lims = append(lims, res+"=<less>")
		} else {
			reqs = append(reqs, res+"=<less>")
		}
	}
	cmd := fmt.Sprintf("kubectl set resources %s %s", w.Ref(), w.NS())
	if t != nil && len(t.Spec.Containers) == 1 {
		cmd += " -c " + t.Spec.Containers[0].Name
	}
	if len(reqs) > 0 {
		cmd += " --requests=" + strings.Join(reqs, ",")
	}
	if len(lims) > 0 {
		cmd += " --limits=" + strings.Join(lims, ",")
	}
	return cmd
}

func deploymentOf(c *rule.Pass, w kube.Workload) *appsv1.Deployment {
	if w.Kind != "deployment" {
		return nil
	}
	for _, d := range c.B.Deployments {
		if d.Name == w.Name && d.Namespace == w.Namespace {
			return d
		}
	}
	return nil
}

// rolloutInProgress: an older revision still runs pods next to the newest.
func rolloutInProgress(c *rule.Pass, d *appsv1.Deployment) bool {
	rss := replicaSetsOf(c, d)
	newest := bundle.NewestReplicaSet(rss)
	for _, rs := range rss {
		if rs != newest && rs.Status.Replicas > 0 {
			return true
		}
	}
	return false
}
