package pod

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// podEventEvidence registers an event about a pod; the fact reads like the
// other rules' so the same event is one piece of evidence.
func podEventEvidence(c *rule.Pass, p *corev1.Pod, e *corev1.Event) string {
	return c.Evidence(fmt.Sprintf("Event %s ×%d: %s", e.Reason, bundle.EventCount(e), e.Message),
		"event on "+kube.PodRef(p),
		fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NSFlag(p), p.Name, e.Reason))
}

// eventAboutContainer: the event's fieldPath names this container, or names no
// container at all.
func eventAboutContainer(e *corev1.Event, container string) bool {
	switch e.InvolvedObject.FieldPath {
	case "", "spec.containers{" + container + "}", "spec.initContainers{" + container + "}", "spec.ephemeralContainers{" + container + "}":
		return true
	}
	return false
}

// probeFailureEvent: the kubelet's Unhealthy event of a failed (or
// errored) probe of that kind ("Readiness") on the container.
func probeFailureEvent(e *corev1.Event, container, kind string) bool {
	return e.Reason == "Unhealthy" && eventAboutContainer(e, container) &&
		(strings.HasPrefix(e.Message, kind+" probe failed:") || strings.HasPrefix(e.Message, kind+" probe errored:"))
}

func isInitContainer(p *corev1.Pod, name string) bool {
	for _, ctr := range p.Spec.InitContainers {
		if ctr.Name == name {
			return true
		}
	}
	return false
}

// containerSpecCmd shows one field of one container of the pod.
func containerSpecCmd(p *corev1.Pod, container, field string) string {
	list := "containers"
	if isInitContainer(p, container) {
		list = "initContainers"
	}
	return fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.%s[?(@.name=="%s")].%s}'`, p.Name, kube.NSFlag(p), list, container, field)
}

// ContainerPatch proposes a change to one container of the pod's workload:
// a strategic-merge patch (containers merge by name) of the owner's pod
// template, or, for a bare pod or a Job whose template is immutable, an
// edit-and-recreate.
func ContainerPatch(c *rule.Pass, p *corev1.Pod, container string, fields map[string]any, desc, risk string) report.Action {
	list := "containers"
	if isInitContainer(p, container) {
		list = "initContainers"
	}
	ctr := map[string]any{"name": container}
	for k, v := range fields {
		ctr[k] = v
	}
	change, _ := json.Marshal(fields)
	return specPatch(c, p, map[string]any{list: []any{ctr}}, "containers", fmt.Sprintf("in %s %s set %s", list, container, change), desc, risk)
}

// PodSpecPatch is ContainerPatch for pod-level fields (securityContext,
// volumes): fields merge into the pod template's spec.
func PodSpecPatch(c *rule.Pass, p *corev1.Pod, fields map[string]any, desc, risk string) report.Action {
	change, _ := json.Marshal(fields)
	return specPatch(c, p, fields, "pod spec", fmt.Sprintf("in spec set %s", change), desc, risk)
}

// specPatch patches podSpec into the pod template of p's owner; field
// names what changes, what says the change in words for a manifest to edit
// by hand.
func specPatch(c *rule.Pass, p *corev1.Pod, podSpec map[string]any, field, what, desc, risk string) report.Action {
	kind, owner := kube.OwnerName(c, p)
	var patch map[string]any
	switch kind {
	case "deployment", "statefulset", "daemonset", "replicaset":
		patch = map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpec}}}
	case "cronjob":
		patch = map[string]any{"spec": map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpec}}}}}
	}
	a := report.Action{Kind: report.Immediate, Description: desc, Risk: risk}
	if patch != nil {
		data, _ := json.Marshal(patch)
		a.Commands = kube.TemplateCommands(kind, owner, p.Namespace, []string{fmt.Sprintf("kubectl patch %s/%s %s -p '%s'", kind, owner, kube.NSFlag(p), data)}, "", "")
		if a.Risk == "" {
			a.Risk = kube.TemplateRisk(kind, "the change starts a rollout of the workload")
		} else if kind == "cronjob" {
			a.Risk += "; " + kube.CronJobTemplateRisk
		}
		return a
	}
	// Pods and Jobs cannot change these fields in place.
	a.Description += fmt.Sprintf(" A %s's %s cannot be changed in place: edit the manifest and recreate it.", kind, field)
	a.Commands = []string{
		fmt.Sprintf("kubectl get %s %s %s -o yaml > %s.yaml   # %s", kind, owner, kube.NSFlag(p), owner, what),
		fmt.Sprintf("kubectl replace --force -f %s.yaml", owner),
	}
	a.Risk = "replace --force deletes and recreates the " + kind
	if kind == "job" {
		a.Commands = kube.TemplateCommands(kind, owner, p.Namespace, nil, what, "")
		a.Risk = kube.JobTemplateRisk
	}
	if risk != "" {
		a.Risk += "; " + risk
	}
	return a
}

func configMapKeys(cm *corev1.ConfigMap) []string {
	var keys []string
	for k := range cm.Data {
		keys = append(keys, k)
	}
	for k := range cm.BinaryData {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// NearestConfigKey finds a key that differs from want only by case, separators
// or a two-letter typo.
func NearestConfigKey(want string, keys []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(s))
	}
	best, bestDist := "", 3
	for _, k := range keys {
		if k == want {
			continue
		}
		if norm(k) == norm(want) {
			return k
		}
		if d := kube.EditDistance(strings.ToLower(k), strings.ToLower(want)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}
