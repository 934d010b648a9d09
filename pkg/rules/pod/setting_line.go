package pod

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// settingMatching is where container's spec or a ConfigMap it mounts sets
// what re matches: an env var, an arg, or a mounted ConfigMap key's line
// (comments skipped). "" when none does (the image's own configuration).
func settingMatching(c *rule.Pass, p *corev1.Pod, container string, re *regexp.Regexp) string {
	ctr := kube.SpecOf(p, container)
	if ctr == nil {
		return ""
	}
	for _, e := range ctr.Env {
		if re.MatchString(" " + e.Value + " ") {
			return fmt.Sprintf("env %s=%s", e.Name, e.Value)
		}
	}
	for _, a := range append(append([]string{}, ctr.Command...), ctr.Args...) {
		if re.MatchString(" " + a + " ") {
			return fmt.Sprintf("arg %s", a)
		}
	}
	for _, m := range ctr.VolumeMounts {
		v := volumeNamed(p, m.Name)
		if v == nil || v.ConfigMap == nil {
			continue
		}
		if cm := c.B.ConfigMap(p.Namespace, v.ConfigMap.Name); cm != nil {
			keys := make([]string, 0, len(cm.Data))
			for k := range cm.Data {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if m.SubPath != "" && m.SubPath != k {
					continue
				}
				for _, line := range strings.Split(cm.Data[k], "\n") {
					if re.MatchString(line) && !isComment(line) {
						return fmt.Sprintf("ConfigMap %s key %s, mounted at %s: %s", cm.Name, k, m.MountPath, strings.TrimSpace(line))
					}
				}
			}
		}
	}
	return ""
}

// isComment: a configuration line that is a comment (#, //, ;, <!-- -->).
func isComment(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, ";") || strings.HasPrefix(t, "<!--")
}
