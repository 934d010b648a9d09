package pod

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// A setting the log names may be set in a configuration file the pod
// mounts from a ConfigMap (my.cnf's lower_case_table_names=1, Trino's
// query.max-memory-per-node=150GB): the key's line is the origin, though
// the log names no file (docs/DESIGN.md, "Correlations").

// assignRe is a configuration line that sets something: `name = value`,
// `name: value`, `name value` (my.cnf, properties, YAML, TOML, nginx).
var assignRe = regexp.MustCompile(`^\s*(?:--)?([A-Za-z][\w.-]*)\s*(?:[=:]|\s)\s*(.*?)\s*;?\s*$`)

// mountedConfigMapFile is one key of a ConfigMap as a file of the
// container.
type mountedConfigMapFile struct {
	configMap string
	key       string
	path      string // where the container sees it
}

// mountedConfigMapFiles are the ConfigMap keys the container sees as
// files, through configMap volumes and projected volumes' sources.
func mountedConfigMapFiles(c *rule.Pass, p *corev1.Pod, spec *corev1.Container) []mountedConfigMapFile {
	var out []mountedConfigMapFile
	for _, m := range spec.VolumeMounts {
		v := volumeNamed(p, m.Name)
		if v == nil {
			continue
		}
		type source struct {
			name  string
			items []corev1.KeyToPath
		}
		var sources []source
		switch {
		case v.ConfigMap != nil:
			sources = append(sources, source{v.ConfigMap.Name, v.ConfigMap.Items})
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					sources = append(sources, source{s.ConfigMap.Name, s.ConfigMap.Items})
				}
			}
		}
		for _, s := range sources {
			cm := c.B.ConfigMap(p.Namespace, s.name)
			if cm == nil {
				continue
			}
			files := map[string]string{} // key → path inside the volume
			if len(s.items) > 0 {
				for _, it := range s.items {
					files[it.Key] = it.Path
				}
			} else {
				for k := range cm.Data {
					files[k] = k
				}
			}
			keys := make([]string, 0, len(files))
			for k := range files {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				rel := files[k]
				if _, ok := cm.Data[k]; !ok {
					continue
				}
				at := path.Join(m.MountPath, rel)
				if m.SubPath != "" {
					if m.SubPath != rel {
						continue
					}
					at = m.MountPath
				}
				out = append(out, mountedConfigMapFile{configMap: s.name, key: k, path: at})
			}
		}
	}
	return out
}

// fileOrigin is the line of a mounted ConfigMap file that sets the
// setting: its name, with '-' and '_' alike (mysqld reads both).
func fileOrigin(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, name string) *settingOrigin {
	key := settingKey(name)
	for _, f := range mountedConfigMapFiles(c, p, spec) {
		data := c.B.ConfigMap(p.Namespace, f.configMap).Data[f.key]
		for _, l := range strings.Split(data, "\n") {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
				continue
			}
			m := assignRe.FindStringSubmatch(t)
			if m == nil || settingKey(m[1]) != key {
				continue
			}
			return &settingOrigin{setting: name, where: fmt.Sprintf("line %q of %s", t, f.path),
				from: fmt.Sprintf("key %s of ConfigMap %s", f.key, f.configMap), field: "volumeMounts",
				fix: fmt.Sprintf("Correct %s in key %s of ConfigMap %s", m[1], f.key, f.configMap)}
		}
	}
	return nil
}
