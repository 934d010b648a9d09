package pod

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// A file the crashing container reads may be written by another container
// of the pod onto a volume both mount (an emptyDir): an init container
// rendering it, or a sidecar copying labelled ConfigMaps into a folder
// (docs/DESIGN.md, "Correlations"). Then the pod spec projects nothing
// there, and the file's origin is the writer and what it copies.

// fileNameRe finds a configuration file named without its directory:
// `datasource.yaml config is invalid`.
var fileNameRe = regexp.MustCompile(`(?:^|[\s"'(=:\[])([\w.-]+\.(?:ya?ml|json|conf|cfg|cnf|ini|toml|properties|xml|env|rules|tpl))\b`)

// writtenFile is a file on a volume shared with the container that writes
// it, and what the writer copies it from.
type writtenFile struct {
	Path      string // as the crashing container sees it
	Volume    *corev1.Volume
	Mount     *corev1.VolumeMount // the reader's
	Writer    string              // the container that writes it
	WriterLog string              // the writer's log line naming the file, or ""
	Watch     *bundle.LabelWatch  // the writer's label watch, when it is a copying sidecar
	Sources   []*corev1.ConfigMap // the watched ConfigMaps holding the file's key
	Key       string
}

// writtenFileOf finds, among the paths and file names of a decisive line,
// one that lies on a volume another container of the pod also mounts and
// is shown to write: its log names the file, it copies ConfigMaps holding
// that key, or its command names it.
func writtenFileOf(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, line string) *writtenFile {
	names := applog.Extract(line).Paths
	for _, m := range fileNameRe.FindAllStringSubmatch(line, -1) {
		if !slices.ContainsFunc(names, func(n string) bool { return path.Base(n) == m[1] }) {
			names = append(names, m[1])
		}
	}
	for _, name := range names {
		for i := range spec.VolumeMounts {
			m := &spec.VolumeMounts[i]
			v := volumeNamed(p, m.Name)
			if v == nil || v.EmptyDir == nil {
				continue
			}
			rel, ok := relativeTo(name, m)
			if !ok {
				continue
			}
			for _, w := range allContainerSpecs(p) {
				if w.Name == spec.Name {
					continue
				}
				if wf := writes(c, p, w, v, m, name, rel); wf != nil {
					return wf
				}
			}
		}
	}
	return nil
}

// relativeTo is a file's name inside the volume of mount m: below the
// mount path for an absolute path, the name itself for a bare file name.
func relativeTo(name string, m *corev1.VolumeMount) (string, bool) {
	if !strings.HasPrefix(name, "/") {
		return name, true
	}
	mp := strings.TrimSuffix(m.MountPath, "/")
	if !strings.HasPrefix(name, mp+"/") {
		return "", false
	}
	return strings.TrimPrefix(name, mp+"/"), true
}

// writes tells whether container w writes file rel of volume v, and how.
func writes(c *rule.Pass, p *corev1.Pod, w *corev1.Container, v *corev1.Volume, reader *corev1.VolumeMount, name, rel string) *writtenFile {
	var wm *corev1.VolumeMount
	for i := range w.VolumeMounts {
		if w.VolumeMounts[i].Name == v.Name && w.VolumeMounts[i].SubPath == reader.SubPath && !w.VolumeMounts[i].ReadOnly {
			wm = &w.VolumeMounts[i]
		}
	}
	if wm == nil {
		return nil
	}
	wf := &writtenFile{Path: name, Volume: v, Mount: reader, Writer: w.Name, Key: path.Base(rel)}
	if !strings.HasPrefix(name, "/") {
		wf.Path = strings.TrimSuffix(reader.MountPath, "/") + "/" + rel
	}
	written := strings.TrimSuffix(wm.MountPath, "/") + "/" + rel
	if lw, ok := bundle.LabelWatchOf(w, p.Namespace); ok && strings.HasPrefix(strings.TrimSuffix(lw.Folder, "/")+"/", strings.TrimSuffix(wm.MountPath, "/")+"/") {
		wf.Watch = &lw
		for _, cm := range c.B.ConfigMaps {
			if cm.Namespace != lw.Namespace || !lw.Selector.Matches(labels.Set(cm.Labels)) {
				continue
			}
			if _, has := cm.Data[wf.Key]; has {
				wf.Sources = append(wf.Sources, cm)
			}
		}
	}
	wf.WriterLog = logLineNaming(c, p, w.Name, written)
	command := strings.Join(append(slices.Clone(w.Command), w.Args...), " ")
	if len(wf.Sources) == 0 && wf.WriterLog == "" && !strings.Contains(command, written) && !strings.Contains(command, rel) {
		return nil
	}
	return wf
}

// logLineNaming is the last line of a container's log (current, else
// previous) that names file, or "".
func logLineNaming(c *rule.Pass, p *corev1.Pod, container, file string) string {
	cur, prev := c.B.LogsFor(p.Name, container)
	for _, l := range []*bundle.ContainerLog{cur, prev} {
		if l == nil {
			continue
		}
		lines := strings.Split(l.Text, "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], file) {
				return strings.TrimSpace(lines[i])
			}
		}
	}
	return ""
}

func allContainerSpecs(p *corev1.Pod) []*corev1.Container {
	var out []*corev1.Container
	for i := range p.Spec.InitContainers {
		out = append(out, &p.Spec.InitContainers[i])
	}
	for i := range p.Spec.Containers {
		out = append(out, &p.Spec.Containers[i])
	}
	return out
}

// writtenFileFinding refines a crash whose file another container writes.
func writtenFileFinding(c *rule.Pass, cr crashOf, wf *writtenFile) *rule.Finding {
	crash, p, spec, dec := cr.finding, cr.pod, cr.spec, cr.dec
	f := crash
	f.Strength, f.Current = rule.Traced, true
	ns := p.Namespace
	writer := fmt.Sprintf("container %s", wf.Writer)
	if wf.Watch != nil {
		writer = wf.Watch.String()
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("%s in container %s is on emptyDir volume %s, which %s writes", wf.Path, spec.Name, wf.Volume.Name, writer),
		fmt.Sprintf("%s .spec.containers[*].volumeMounts, .spec.volumes[%s]", kube.PodRef(p), wf.Volume.Name), containerSpecCmd(p, wf.Writer, "env")))
	if wf.WriterLog != "" {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("container %s's log: %s", wf.Writer, wf.WriterLog),
			fmt.Sprintf("logs of %s container %s", kube.PodRef(p), wf.Writer), fmt.Sprintf("kubectl logs %s -n %s -c %s", p.Name, ns, wf.Writer)))
	}
	f.Category = crash.Category.Sub("SharedVolume")
	f.Confidence = rule.Likely
	f.Mechanism = strings.TrimSpace(crash.Mechanism + fmt.Sprintf(" No ConfigMap or Secret of the pod spec projects %s: it is on emptyDir volume %s, written by %s; the program's log says: %q.", wf.Path, wf.Volume.Name, writer, dec.Line))
	f.Culprit = fmt.Sprintf("%s on emptyDir volume %s of %s, written by container %s", wf.Path, wf.Volume.Name, kube.PodRef(p), wf.Writer)
	f.Hypothesis = fmt.Sprintf("What container %s writes to %s is what %s rejects", wf.Writer, wf.Path, spec.Name)
	fix := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Correct what container %s writes to %s (its command, or what it renders from), then restart the pod.", wf.Writer, wf.Path),
		Commands:    []string{containerSpecCmd(p, wf.Writer, "command"), fmt.Sprintf("kubectl logs %s -n %s -c %s", p.Name, ns, wf.Writer)}}
	if len(wf.Sources) > 0 {
		var named, quoted []string
		for _, cm := range wf.Sources {
			named = append(named, "configmap "+cm.Name)
			for _, q := range salientLines(cm.Data[wf.Key], dec.Line, wf.Path, wf.Key) {
				if len(wf.Sources) > 1 {
					q = cm.Name + ": " + q
				}
				quoted = append(quoted, q)
			}
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("configmap %s (labels %s) has key %s", cm.Name, kube.OrDash(labelsString(cm.Labels)), wf.Key),
				fmt.Sprintf("configmap %s/%s .data", ns, cm.Name), configMapKeyCmd(ns, cm.Name, wf.Key)))
		}
		f.Category = crash.Category.Sub("ConfigMap")
		f.Confidence = rule.Strong
		f.Culprit = fmt.Sprintf("%s key %s (labelled %s), which container %s copies to %s on emptyDir volume %s, read by container %s as %s", strings.Join(named, ", "), wf.Key, wf.Watch.Selector, wf.Writer, wf.Watch.Folder, wf.Volume.Name, spec.Name, wf.Path)
		if len(quoted) > 0 {
			f.Culprit += "; the lines the error is about: " + strings.Join(quoted, "; ")
		}
		f.Hypothesis = fmt.Sprintf("The content of key %s of %s, copied to %s by container %s, is what %s rejects", wf.Key, strings.Join(named, ", "), wf.Path, wf.Writer, spec.Name)
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Correct key %s of %s (or the chart values that render it); the sidecar rewrites %s, then restart the pod so that %s reads it again.", wf.Key, strings.Join(named, ", "), wf.Path, spec.Name),
			Commands:    []string{configMapKeyCmd(ns, wf.Sources[0].Name, wf.Key)}}
	}
	f.Title = fmt.Sprintf("%s; %s is written by container %s", crash.Title, wf.Path, wf.Writer)
	f.Summary = fmt.Sprintf("%s %s is on emptyDir volume %s, written by %s.", crash.Summary, wf.Path, wf.Volume.Name, writer)
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	return &f
}

func configMapKeyCmd(ns, name, key string) string {
	return fmt.Sprintf(`kubectl get configmap %s -n %s -o jsonpath='{.data.%s}'`, name, ns, strings.ReplaceAll(key, ".", `\.`))
}

func labelsString(l map[string]string) string {
	return labels.Set(l).String()
}
