package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// MountShadow is the rule pod/mount-shadow.
var MountShadow = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/mount-shadow",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop, RuntimeError},
		Needs:    append([]rule.Need{rule.ConfigMaps}, rule.PodEvidence...),
		Doc:      "A file the container cannot find (a config include, a module, its own command) under a directory a whole ConfigMap, Secret or other volume is mounted over: the mount hides the image's files there; mount the one key with subPath.",
	},
	Check: checkMountShadow,
}

// shadow is a missing path hidden by a volume mounted over its directory.
type shadow struct {
	path   string
	mount  *corev1.VolumeMount
	vol    *corev1.Volume
	source string // "ConfigMap nginx-conf"
	why    string // what shows the image, not the volume, was to provide it
}

// shadowOf says whether path, which the container cannot find, lies under
// a whole-directory mount that hides the image's copy. A mount only
// replaces what the image has at its mountPath; the missing file is the
// image's when the volume cannot hold it (a ConfigMap or Secret key has no
// "/": a subdirectory comes from the image), when it is the container's
// own executable, or when the line names a sibling file the volume does
// provide (nginx's "… in /etc/nginx/nginx.conf:12", the config from the
// ConfigMap including the image's mime.types).
func shadowOf(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, path string, others []string, executable bool) *shadow {
	m, _, sure := mountFor(p, spec, []string{path})
	if m == nil || !sure || m.SubPath != "" || strings.TrimSuffix(m.MountPath, "/") == path {
		return nil
	}
	v := volumeNamed(p, m.Name)
	if v == nil {
		return nil
	}
	rel := strings.TrimPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")
	source := "volume " + v.Name
	keyed := false // the volume projects named keys, so provides() can answer
	switch {
	case v.ConfigMap != nil:
		source, keyed = "ConfigMap "+v.ConfigMap.Name, true
	case v.Secret != nil:
		source = "Secret " + v.Secret.SecretName
	case v.Projected != nil:
		source = "projected volume " + v.Name
	case claimOf(p, v) != "":
		source = "PVC " + claimOf(p, v)
	case v.EmptyDir != nil:
		source = "emptyDir " + v.Name
	}
	if keyed && provides(c, p, v, rel) {
		return nil // the volume has it: another cause
	}
	s := &shadow{path: path, mount: m, vol: v, source: source}
	projection := v.ConfigMap != nil || v.Secret != nil
	switch {
	case executable:
		s.why = fmt.Sprintf("%s is the container's own command, which the image ships", path)
	case projection && strings.Contains(rel, "/") && (v.ConfigMap == nil || len(v.ConfigMap.Items) == 0) && (v.Secret == nil || len(v.Secret.Items) == 0):
		s.why = fmt.Sprintf("%s is in a subdirectory (%s), which a %s cannot hold: its keys are files of one directory", path, rel[:strings.LastIndex(rel, "/")], strings.Fields(source)[0])
	default:
		for _, o := range others {
			if o == path {
				continue
			}
			om, _, ok := mountFor(p, spec, []string{o})
			orel := strings.TrimPrefix(o, strings.TrimSuffix(m.MountPath, "/")+"/")
			if ok && om == m && keyed && provides(c, p, v, orel) {
				s.why = fmt.Sprintf("the line names %s, which %s provides, asking for %s beside it, which the image had", o, source, path)
				break
			}
		}
	}
	if s.why == "" {
		return nil
	}
	return s
}

// provides: the ConfigMap volume v holds the file rel (an item's path, or
// a key when it projects them all).
func provides(c *rule.Pass, p *corev1.Pod, v *corev1.Volume, rel string) bool {
	if len(v.ConfigMap.Items) > 0 {
		for _, it := range v.ConfigMap.Items {
			if it.Path == rel {
				return true
			}
		}
		return false
	}
	cm := c.B.ConfigMap(p.Namespace, v.ConfigMap.Name)
	if cm == nil {
		return false
	}
	_, data := cm.Data[rel]
	_, bin := cm.BinaryData[rel]
	return data || bin
}

// checkMountShadow reads the crash loops whose decisive line is a missing
// file or library, and the runtime errors for a missing executable.
func checkMountShadow(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, class := range []logs.Class{logs.MissingFile, logs.MissingLibrary} {
		for _, cr := range crashesOf(c, class) {
			paths := applog.Extract(cr.dec.Line).Paths
			for _, path := range paths {
				if s := shadowOf(c, cr.pod, cr.spec, path, paths, false); s != nil {
					f := shadowFinding(c, cr.pod, cr.spec, cr.finding, crashRoot(cr.finding.Category).Sub(logs.MissingFile.String(), "HiddenByMount"), s)
					out = append(out, f)
					break
				}
			}
		}
	}
	for _, rf := range c.ResultOf(RuntimeError) {
		if !strings.HasSuffix(string(rf.Category), "/"+string(runtimeExecutableNotFound)) {
			continue
		}
		podName, ctrName, _ := strings.Cut(rf.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		if spec == nil || len(spec.Command) == 0 || !strings.HasPrefix(spec.Command[0], "/") {
			continue
		}
		if !strings.Contains(rf.Title+" "+rf.Summary+" "+rf.Culprit, spec.Command[0]) {
			continue // the runtime's message is about another file
		}
		if s := shadowOf(c, p, spec, spec.Command[0], nil, true); s != nil {
			out = append(out, shadowFinding(c, p, spec, rf, rule.Category(strings.SplitN(string(rf.Category), "/", 2)[0]).Sub("HiddenByMount"), s))
		}
	}
	return out
}

func shadowFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, base rule.Finding, cat rule.Category, s *shadow) rule.Finding {
	f := base
	f.Category, f.Strength, f.Current, f.Confidence = cat, rule.Traced, true, rule.Strong
	dir := strings.TrimSuffix(s.mount.MountPath, "/")
	name := s.path[strings.LastIndex(s.path, "/")+1:]
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s mounts %s (volume %s) at %s as a whole directory (no subPath)", spec.Name, s.source, s.vol.Name, s.mount.MountPath),
		fmt.Sprintf("%s .spec.containers[%s].volumeMounts, .spec.volumes[%s]", kube.PodRef(p), spec.Name, s.vol.Name), containerSpecCmd(p, spec.Name, "volumeMounts")))
	f.Title = fmt.Sprintf("container %s cannot find %s: %s, mounted over %s, hides the image's files there", spec.Name, s.path, s.source, dir)
	f.Hypothesis = fmt.Sprintf("Mounting %s at %s replaces the image's whole %s directory, so %s (%s) is gone: %s", s.source, dir, dir, name, s.path, s.why)
	f.Culprit = fmt.Sprintf("%s volumeMount %s at %s (%s, whole directory): it hides the image's %s, including %s", kube.PodRef(p), s.vol.Name, dir, s.source, dir, s.path)
	f.Mechanism = fmt.Sprintf("A volume mounted at a directory replaces that directory of the image for the container: only the volume's files are visible there. %s", base.Mechanism)
	var keys []string
	if s.vol.ConfigMap != nil {
		if cm := c.B.ConfigMap(p.Namespace, s.vol.ConfigMap.Name); cm != nil {
			keys = configMapKeys(cm)
		}
	}
	var snippet []string
	for _, k := range keys {
		snippet = append(snippet, fmt.Sprintf("{name: %s, mountPath: %s/%s, subPath: %s}", s.vol.Name, dir, k, k))
	}
	what := "mount each file the volume provides with subPath"
	if len(snippet) > 0 {
		what = "replace it with " + strings.Join(snippet, ", ")
	}
	kind, owner := kube.OwnerName(c, p)
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Mount only the files the %s provides, with subPath, instead of the whole directory %s: in container %s's volumeMounts, %s (or mount the volume at a directory of its own and point the application there).", s.source, dir, spec.Name, what),
		Commands:    []string{fmt.Sprintf("kubectl edit %s/%s %s", kind, owner, kube.NSFlag(p))},
		Risk:        "a subPath mount does not receive updates of the ConfigMap or Secret: restart the pods after changing it"}}, base.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), base.Summary)
	return f
}
