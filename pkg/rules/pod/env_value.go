package pod

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// EnvValue is the rule pod/env-value.
var EnvValue = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/env-value",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.ConfigMaps}, rule.PodEvidence...),
		Doc:      "A crashing container whose log lists the values a variable allows, traced to the value the pod spec gives it (a literal, or a ConfigMap key) when that value is not among them — even when the message calls the variable missing.",
	},
	Check: checkEnvValue,
}

// allowedRe is a message's list of accepted values: entrypoints' "Allowed
// values are [h2, postgresql, oracle]", "must be one of: a, b", "valid
// values: a|b", Bitnami's "The allowed values for X are: a b c".
var allowedRe = regexp.MustCompile(`(?i)(?:(?:allowed|valid|supported|possible|accepted) (?:values|options)(?: for [\w.]+)?(?: are| is)?|must be one of|expected one of)\s*:?\s*[\[({]?(?P<list>[\w.-]+(?:(?:\s*[,|/]\s*|\s+(?:or|and)\s+|\s+)[\w.-]+)+)`)

// checkEnvValue follows a crash line that lists the allowed values of a
// variable the container's env sets to where that value comes from. An
// image that says "Missing mandatory environment variable DB_VENDOR" for a
// value it does not accept is rejecting the value, not missing it.
func checkEnvValue(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, crash := range c.ResultOf(CrashLoop) {
		podName, ctrName, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		dec, _ := logs.LastDecisive(c, p, ctrName)
		if spec == nil || dec == nil {
			continue
		}
		m, ok := submatch.Find(allowedRe, dec.Line)
		if !ok {
			continue
		}
		allowed := splitAllowed(m.Get("list"))
		for _, e := range spec.Env {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(e.Name) + `\b`).MatchString(dec.Line) {
				continue
			}
			value, origin, ok := envValueOrigin(c, p, e)
			if !ok || value == "" || slices.Contains(allowed, value) || slices.Contains(allowed, strings.ToLower(value)) {
				continue
			}
			out = append(out, envValueFinding(c, p, spec, crash, dec, e.Name, value, origin, allowed))
			break
		}
	}
	return out
}

func splitAllowed(list string) []string {
	var out []string
	for _, w := range regexp.MustCompile(`\s*[,|/]\s*|\s+`).Split(list, -1) {
		if w = strings.TrimSpace(w); w != "" && w != "or" && w != "and" {
			out = append(out, w)
		}
	}
	return out
}

// envValueOrigin is the value e gives the variable and where it comes
// from; ok is false when the value cannot be read (a Secret, a field ref).
func envValueOrigin(c *rule.Pass, p *corev1.Pod, e corev1.EnvVar) (value, origin string, ok bool) {
	if e.ValueFrom == nil {
		return e.Value, "a literal value in the pod spec", true
	}
	if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
		if cm := c.B.ConfigMap(p.Namespace, ref.Name); cm != nil {
			if v, has := cm.Data[ref.Key]; has {
				return v, fmt.Sprintf("key %s of ConfigMap %s", ref.Key, ref.Name), true
			}
		}
	}
	return "", "", false
}

func envValueFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, dec *logs.Decisive, name, value, origin string, allowed []string) rule.Finding {
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Strong
	f.Category = crashRoot(crash.Category).Sub("InvalidConfig", "Value")
	near := nearestValue(value, allowed)
	list := strings.Join(allowed, ", ")
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s sets %s=%s (%s)", spec.Name, name, value, origin),
		fmt.Sprintf("%s .spec.containers[%s].env", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "env")))
	f.Title = fmt.Sprintf("container %s rejects %s=%s: the value is not one of %s", spec.Name, name, value, list)
	f.Hypothesis = fmt.Sprintf("%s is set to %q (%s), which the application does not accept (allowed: %s)", name, value, origin, list)
	f.Culprit = fmt.Sprintf("env %s=%s in %s container %s, from %s: not among the allowed values %s", name, value, kube.PodRef(p), spec.Name, origin, list)
	if near != "" {
		f.Culprit += fmt.Sprintf(" (the nearest is %s)", near)
	}
	f.Mechanism = fmt.Sprintf("The application checks %s against a fixed list at startup and exits when the value is not in it (its log: %q). %s", name, dec.Line, crash.Mechanism)
	want := near
	if want == "" {
		want = "<one of " + list + ">"
	}
	var fix report.Action
	if strings.HasPrefix(origin, "key ") {
		ref := ""
		for _, e := range spec.Env {
			if e.Name == name && e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				ref = e.ValueFrom.ConfigMapKeyRef.Name + " " + e.ValueFrom.ConfigMapKeyRef.Key
			}
		}
		cm, key, _ := strings.Cut(ref, " ")
		fix = report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Set key %s of ConfigMap %s to %s, then restart the pods (a variable is read only when the container starts).", key, cm, want),
			Commands: []string{fmt.Sprintf(`kubectl patch configmap %s -n %s -p '{"data":{"%s":"%s"}}'`, cm, p.Namespace, key, want)}}
	} else {
		fix = ContainerPatch(c, p, spec.Name, map[string]any{"env": []any{map[string]any{"name": name, "value": want}}},
			fmt.Sprintf("Set %s to an accepted value (%s).", name, want), "")
	}
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	return f
}

// nearestValue is the allowed value the given one most nearly is (a prefix
// of it, or two edits away), "" when none or several.
func nearestValue(v string, allowed []string) string {
	var near []string
	lv := strings.ToLower(v)
	for _, a := range allowed {
		la := strings.ToLower(a)
		if strings.HasPrefix(la, lv) || strings.HasPrefix(lv, la) || kube.EditDistance(lv, la) <= 2 {
			near = append(near, a)
		}
	}
	if len(near) != 1 {
		return ""
	}
	return near[0]
}
