package workload

import (
	"fmt"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// requestAboveLimitRe is the API server's validation of a container whose
// request exceeds its limit (pkg/apis/core/validation in
// https://github.com/kubernetes/kubernetes): "spec.containers[0].resources.
// requests: Invalid value: "700m": must be less than or equal to cpu
// limit".
var requestAboveLimitRe = regexp.MustCompile(`spec\.(?P<list>containers|initContainers)\[(?P<i>\d+)\]\.resources\.requests(?:\[(?P<res1>[a-z.\-/]+)\])?: Invalid value: "(?P<request>[^"]+)": must be less than or equal to (?P<res>[a-z.\-/]+) limit`)

// limitDefault is a LimitRange's default limit that admission gave a
// container which set none, below the container's own request.
type limitDefault struct {
	limitRange, container, resource, request, limit string
}

// limitRangeDefault: the request the validation names is above a limit
// the pod template never set, so the namespace's LimitRange filled it in
// with its default (LimitRanger admits before validation runs: the
// default limit, not the max, is applied;
// https://github.com/kubernetes/kubernetes/issues/112835). The template
// is read, not guessed: a limit set in it is the template's own mistake.
func limitRangeDefault(c *rule.Pass, tpl *corev1.PodTemplateSpec, detail string) *limitDefault {
	m, ok := submatch.Find(requestAboveLimitRe, detail)
	if !ok || tpl == nil {
		return nil
	}
	i, _ := strconv.Atoi(m.Get("i"))
	list := tpl.Spec.Containers
	if m.Get("list") == "initContainers" {
		list = tpl.Spec.InitContainers
	}
	if i >= len(list) {
		return nil
	}
	ctr := list[i]
	res := corev1.ResourceName(m.Get("res"))
	if _, set := ctr.Resources.Limits[res]; set {
		return nil
	}
	for _, lr := range c.B.LimitRanges {
		for _, item := range lr.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			if def, ok := item.Default[res]; ok {
				return &limitDefault{limitRange: lr.Name, container: ctr.Name, resource: string(res), request: m.Get("request"), limit: def.String()}
			}
		}
	}
	return nil
}

func (d *limitDefault) title(what string) string {
	return fmt.Sprintf("%s cannot be created: container %s requests %s %s but sets no %s limit, so LimitRange %s gives it its default limit %s, below the request", what, d.container, d.resource, d.request, d.resource, d.limitRange, d.limit)
}
