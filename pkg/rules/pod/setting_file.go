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
func fileOrigin(c *rule.Pass, p *corev1.Pod, files []mountedConfigMapFile, name string) *settingOrigin {
	key := settingKey(name)
	for _, f := range files {
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

// quotedTokenRe is a value a line quotes: 'UseCGroupMemoryLimitForHeap'.
var quotedTokenRe = regexp.MustCompile("['\"`]([^'\"`\\s]{6,})['\"`]")

// valueOrigin is the literal env value or argument that holds a value the
// line quotes (the JVM's "Unrecognized VM option
// 'UseCGroupMemoryLimitForHeap'" is a word of JAVA_OPTS): the setting is
// named by its value, not by a name.
func valueOrigin(spec *corev1.Container, line string) *settingOrigin {
	if !unknownOptionRe.MatchString(line) {
		return nil
	}
	for _, m := range quotedTokenRe.FindAllStringSubmatch(line, -1) {
		token := strings.TrimLeft(m[1], "-")
		if strings.Contains(token, "/") {
			continue // a file the line names, which pod/mounted-file traces
		}
		for _, e := range spec.Env {
			if e.ValueFrom != nil || !containsWord(e.Value, token) {
				continue
			}
			return &settingOrigin{setting: token, where: fmt.Sprintf("env %s (%s)", e.Name, e.Value), field: "env",
				fix: fmt.Sprintf("Remove or replace %s in the value of %s in the container's env", token, e.Name)}
		}
		for _, list := range []struct {
			field string
			args  []string
		}{{"args", spec.Args}, {"command", spec.Command}} {
			for _, a := range list.args {
				if containsWord(a, token) {
					return &settingOrigin{setting: token, where: "argument " + a, field: list.field,
						fix: fmt.Sprintf("Remove or replace the argument %s in the container's %s", a, list.field)}
				}
			}
		}
	}
	return nil
}

// containsWord: token is in s, not as a part of a longer name.
func containsWord(s, token string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], token)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(token)
		before := j == 0 || !isNameByte(s[j-1])
		after := end == len(s) || !isNameByte(s[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isNameByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
